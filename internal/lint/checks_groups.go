package lint

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/source"
)

type groupsInterval struct{}

func (groupsInterval) Name() string { return "groups/interval" }
func (groupsInterval) Doc() string {
	return "rule groups Prometheus refuses to load: an interval that is not a positive duration, a name used twice in a file"
}
func (groupsInterval) Run(in *Inputs, report func(Problem)) {
	for _, f := range in.Files {
		seen := map[string]bool{}
		for _, g := range f.Groups {
			if g.Interval != "" {
				if d, err := promql.ParseDuration(g.Interval); err != nil || d <= 0 {
					report(Problem{Severity: Error, Path: f.Path, Pos: g.IntervalPos, Width: len(g.Interval),
						Message: fmt.Sprintf("group %q: interval %q is not a positive Prometheus duration (30s, 1m, 1h30m): Prometheus refuses the whole file", g.Name, g.Interval)})
				}
			}
			if seen[g.Name] {
				report(Problem{Severity: Error, Path: f.Path, Pos: g.Pos, Width: len(g.Name),
					Message: fmt.Sprintf("group name %q is used twice in the file: Prometheus refuses the whole file", g.Name)})
			}
			seen[g.Name] = true
		}
	}
}

type groupsDuplicateRule struct{}

func (groupsDuplicateRule) Name() string { return "groups/duplicate-rule" }
func (groupsDuplicateRule) Doc() string {
	return "the same rule (name, expression, labels) twice in a group: it records or alerts twice, and its series collide"
}
func (groupsDuplicateRule) Run(in *Inputs, report func(Problem)) {
	for _, f := range in.Files {
		first := map[string]*source.Rule{}
		for _, r := range f.Rules {
			key := ruleKey(r)
			if earlier, ok := first[key]; ok {
				report(Problem{Severity: Warning, Path: f.Path, Pos: r.NamePos, Width: len(r.Name()),
					Message: fmt.Sprintf("%s repeats the rule on line %d of group %q (same expression and labels): its series collide; remove one copy", r.Name(), earlier.NamePos.Line, r.Group.Name)})
				continue
			}
			first[key] = r
		}
	}
}

// ruleKey identifies a rule within a file: its group, name, expression (its words: spacing and
// line breaks aside) and labels.
func ruleKey(r *source.Rule) string {
	expr := strings.Join(strings.Fields(r.Expr.Text), " ")
	var labels []string
	for _, k := range slices.Sorted(maps.Keys(r.Labels)) {
		labels = append(labels, k+"="+r.Labels[k])
	}
	group := ""
	if r.Group != nil {
		group = r.Group.Name
	}
	return strings.Join([]string{group, r.Name(), expr, strings.Join(labels, ",")}, "\x00")
}
