// Package plan derives, once per run, everything gpuobs' outputs are built from: the recording
// rules in evaluation order, the final alert rules (group, canonical expression, labels,
// annotations, runbook URL), the usage index (who reads which field or metric, what the
// exporter must collect) and the labels an expression yields. Generators render a plan; lint
// reads it.
package plan

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuobs/gpuobs/internal/conventions"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/promql"
)

// Plan is everything derived from one catalog.
type Plan struct {
	Model *model.Model
	// Recorded are the recording rules, in evaluation order within each family.
	Recorded []Recorded
	// Alerts are the final alert rules, by name.
	Alerts map[string]Alert
	// RecordingGroups and AlertGroups are the rule groups as a rule file holds them, one per
	// family, sorted by name.
	RecordingGroups, AlertGroups []Group
	// Usage says who reads which metric and what the exporter must collect.
	Usage Usage
	// Labels tells which labels expressions over the catalog's metrics and rules yield.
	Labels *Labels
	// Layers places every recording rule (by recorded name) and alert (by name) in the shard
	// or the global layer of a sharded topology; nil in a single topology.
	Layers map[string]Layer
}

// Alert is one final alerting rule.
type Alert struct {
	Name string
	// Group is the name of the rule group the alert is in, and Interval its evaluation
	// interval ("" for the server's).
	Group, Interval string
	// Expr is the canonical expression, and Pretty the same pretty-printed.
	Expr, Pretty string
	// For and KeepFiringFor are the rule's for and keep_firing_for.
	For, KeepFiringFor string
	// Labels are the static labels: severity, team, family and the catalog's extras.
	Labels map[string]string
	// Annotations are summary, description (templates unexpanded) and runbook_url.
	Annotations map[string]string
	// Metrics are the metrics the alert reads, directly or through recording rules, sorted;
	// Fields the DCGM fields among them; Requires those without whose series it cannot fire
	// (what it reads only in "unless" or one side of "or" is not required).
	Metrics, Fields, Requires []string
}

// Group is a rule group as a Prometheus rule file holds it.
type Group struct {
	Name     string `yaml:"name"`
	Interval string `yaml:"interval,omitempty"`
	// QueryOffset makes the group read as of that long before its evaluation time (the global
	// layer's, topology.globalQueryOffset).
	QueryOffset string `yaml:"query_offset,omitempty"`
	Rules       []Rule `yaml:"rules"`
}

// Rule is a rule as a Prometheus rule file holds it, its expression pretty-printed.
type Rule struct {
	Record        string            `yaml:"record,omitempty"`
	Alert         string            `yaml:"alert,omitempty"`
	Expr          string            `yaml:"expr"`
	For           string            `yaml:"for,omitempty"`
	KeepFiringFor string            `yaml:"keep_firing_for,omitempty"`
	Labels        map[string]string `yaml:"labels,omitempty"`
	Annotations   map[string]string `yaml:"annotations,omitempty"`
	// Comments are written above the rule, one per line.
	Comments []string `yaml:"-"`
}

// Build derives the plan of a validated catalog.
func Build(m *model.Model) (*Plan, error) {
	recorded, err := recordingRules(m)
	if err != nil {
		return nil, err
	}
	p := &Plan{Model: m, Recorded: recorded, Labels: newRecordedLabels(m, recorded)}
	if err := identities(m, p.Labels); err != nil {
		return nil, err
	}
	rs, err := reads(m, recorded)
	if err != nil {
		return nil, err
	}
	var readBy map[string][]string
	p.Usage, readBy = usage(m, rs)
	if err := errors.Join(append([]error{checkMetricsKnown(m, recorded, readBy)}, checkBucketBounds(m, rs)...)...); err != nil {
		return nil, err
	}
	if p.RecordingGroups, err = recordingGroups(m, recorded); err != nil {
		return nil, err
	}
	if p.Alerts, err = alerts(m, recorded); err != nil {
		return nil, err
	}
	p.AlertGroups = alertGroups(p.Alerts)
	if err := errors.Join(checkLabelMismatchTargets(p)...); err != nil {
		return nil, err
	}
	if p.Layers, err = placement(m, recorded, p.Alerts); err != nil {
		return nil, err
	}
	return p, nil
}

// recordingRules derives the recording rules, in evaluation order within each family, with
// canonical expressions.
func recordingRules(m *model.Model) ([]Recorded, error) {
	read, err := readByRulesAndPanels(m)
	if err != nil {
		return nil, err
	}
	var recorded []Recorded
	for _, s := range Signals(m) {
		_, perGPU := read[conventions.RecordName(conventions.LevelGPU, s.Name, s.operation(s.gpuAggregation(), m.Recording.RateWindow))]
		recorded = append(recorded, signalRules(m, s, perGPU)...)
	}
	recorded = append(recorded, allocationRules(m)...)
	// Catalog records last: they build on the derived rules of their group.
	for _, key := range dependencyOrder(m.Records) {
		r := m.Records[key]
		family, interval := m.Recording.SectionGroup(r.Family, r.Section)
		recorded = append(recorded, Recorded{
			Name: r.Record, Labels: r.Labels, Expr: r.Expr, Family: family, Interval: interval,
			Level: strings.SplitN(r.Record, ":", 2)[0], FromCatalog: true, Comments: r.Comments,
		})
	}
	recorded = append(recorded, retentionRules(m, recorded)...)
	seen := map[string]bool{}
	for i, r := range recorded {
		id := r.Name + fmt.Sprint(r.Labels)
		if seen[id] && r.FromCatalog {
			return nil, fmt.Errorf("records: %s%v is a recording rule gpuobs already derives from the fields (or another record with the same labels); rename the record or drop it", r.Name, r.Labels)
		}
		if seen[id] {
			return nil, fmt.Errorf("recording rule %s%v is generated twice", r.Name, r.Labels)
		}
		seen[id] = true
		canonical, err := promql.Canonical(r.Expr)
		if err != nil {
			return nil, fmt.Errorf("recording rule %s: invalid PromQL: %w", r.Name, err)
		}
		recorded[i].Expr = canonical
		if recorded[i].Parsed, err = promql.Parse(canonical); err != nil {
			return nil, fmt.Errorf("recording rule %s: %w", r.Name, err)
		}
	}
	if err := refuseDerivable(recorded); err != nil {
		return nil, err
	}
	return recorded, nil
}

// refuseDerivable refuses catalog records that repeat a rule gpuobs derives under another
// name: the same expression, or the same rollup (operation, grouping in any order, selector)
// of a field or derived record. The rule of the two engines: Go derives what follows from a
// field's semantics (each signal's GPU, node, namespace, cluster and fleet rollups, the GPU
// inventory, retention tiers); the catalog declares what needs knowledge of its own (joins
// with kube-state-metrics or serving metrics, thresholds, SLIs, cost). Retention tiers are
// left out: they copy the catalog's own records over time, and an SLI may average the same
// record over its window under the SLO's names.
func refuseDerivable(recorded []Recorded) error {
	derived := map[string]string{}
	for _, r := range recorded {
		if _, ok := derived[rollupShape(r)]; !ok && !r.FromCatalog && r.TierOf == "" {
			derived[rollupShape(r)] = r.Name
		}
	}
	var problems []error
	for _, r := range recorded {
		if name, ok := derived[rollupShape(r)]; ok && r.FromCatalog {
			problems = append(problems, fmt.Errorf("records.%s: %s is what gpuobs already derives from the field's semantics as %s; read %s instead of declaring it again", r.Name, r.Expr, name, name))
		}
	}
	return errors.Join(problems...)
}

// rollupShape is a rule's expression with an aggregation's grouping sorted, so that two ways
// of writing one rollup compare equal.
func rollupShape(r Recorded) string {
	n := r.Parsed
	if n.Kind != promql.Aggregate || len(n.Args) != 1 || n.Args[0].Kind != promql.Selector || n.Args[0].Range != 0 {
		return r.Expr
	}
	var matchers []string
	for _, m := range n.Args[0].Matchers {
		matchers = append(matchers, m.Name+m.Type+strconv.Quote(m.Value))
	}
	slices.Sort(matchers)
	return fmt.Sprintf("%s %t %v (%s%v)", n.Name, n.Without, slices.Sorted(slices.Values(n.Grouping)), n.Args[0].Name, matchers)
}

// dependencyOrder lists catalog records by key, except that every record comes after the
// records it reads: a rule group evaluates in order, so a rule reading a later rule would see
// its previous evaluation.
func dependencyOrder(records map[string]model.Record) []string {
	byMetric := map[string][]string{}
	for _, key := range model.SortedKeys(records) {
		byMetric[records[key].Record] = append(byMetric[records[key].Record], key)
	}
	var out []string
	placed := map[string]bool{}
	var place func(key string)
	place = func(key string) {
		if placed[key] {
			return
		}
		placed[key] = true
		reads, _ := promql.MetricNames(records[key].Expr)
		sort.Strings(reads)
		for _, metric := range reads {
			for _, k := range byMetric[metric] {
				place(k)
			}
		}
		out = append(out, key)
	}
	for _, key := range model.SortedKeys(records) {
		place(key)
	}
	return out
}

// readByRulesAndPanels maps every metric that alert and catalog record expressions and
// dashboard panels read to the first expression (by catalog path) that reads it: per-GPU rules
// are recorded only for what these read (a panel keeps its per-GPU record when the alert that
// also read it is removed).
func readByRulesAndPanels(m *model.Model) (map[string]string, error) {
	read := map[string]string{}
	note := func(path, expr string) error {
		used, err := promql.MetricNames(expr)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for _, u := range used {
			if _, ok := read[u]; !ok {
				read[u] = path
			}
		}
		return nil
	}
	for _, name := range model.SortedKeys(m.Alerts) {
		if err := note("alerts."+name+".expr", m.Alerts[name].Expr); err != nil {
			return nil, err
		}
	}
	for _, key := range model.SortedKeys(m.Records) {
		if err := note("records."+key+".expr", m.Records[key].Expr); err != nil {
			return nil, err
		}
	}
	for _, name := range model.SortedKeys(m.Dashboards) {
		for _, r := range m.Dashboards[name].Rows {
			for _, panel := range r.Panels {
				for _, q := range panel.Queries {
					if err := note("dashboards."+name+" panel "+panel.Title, promql.FillGrafanaVariables(q.Expr)); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	return read, nil
}

// GroupName names the rule group of a family; kind is recording or alerts.
func GroupName(family, kind string) string { return "gpuobs-" + family + "-" + kind }

func recordingGroups(m *model.Model, recorded []Recorded) ([]Group, error) {
	byFamily := map[string][]Rule{}
	interval := map[string]string{}
	family := map[string]string{}
	for _, r := range recorded {
		family[r.Name] = r.Family
	}
	for _, r := range recorded {
		interval[r.Family] = cmp.Or(r.Interval, m.Recording.Interval)
		expr, err := promql.Pretty(r.Expr)
		if err != nil {
			return nil, fmt.Errorf("recording rule %s: %w", r.Name, err)
		}
		byFamily[r.Family] = append(byFamily[r.Family], Rule{Record: r.Name, Expr: expr, Labels: r.Labels, Comments: withOtherGroups(r, family)})
	}
	var out []Group
	for _, family := range model.SortedKeys(byFamily) {
		out = append(out, Group{Name: GroupName(family, "recording"), Interval: interval[family], Rules: byFamily[family]})
	}
	return out, nil
}

// pintDependency is the comment that tells pint a rule reads a record of another group on
// purpose (its rule/dependency check).
const pintDependency = "pint disable rule/dependency"

// withOtherGroups is a recording rule's comments, with, where it reads records that another
// group records and its comments do not say why, a line that names them and pint's
// rule/dependency check disabled: groups evaluate on their own schedules, so such a read is at
// most one evaluation interval behind.
func withOtherGroups(r Recorded, family map[string]string) []string {
	if slices.Contains(r.Comments, pintDependency) {
		return r.Comments
	}
	var others []string
	promql.Walk(r.Parsed, func(n *promql.Node, _ []*promql.Node) {
		if f, ok := family[n.Name]; ok && n.Kind == promql.Selector && f != r.Family && !slices.Contains(others, n.Name) {
			others = append(others, n.Name)
		}
	})
	if len(others) == 0 {
		return r.Comments
	}
	slices.Sort(others)
	return append(slices.Clone(r.Comments), "Reads "+strings.Join(others, ", ")+", recorded by another group: at most one evaluation interval behind.", pintDependency)
}

// alerts derives the final alert rules.
func alerts(m *model.Model, recorded []Recorded) (map[string]Alert, error) {
	reads := newReader(recorded)
	out := map[string]Alert{}
	for _, name := range model.SortedKeys(m.Alerts) {
		a := m.Alerts[name]
		expr, err := promql.Canonical(a.Expr)
		if err != nil {
			return nil, fmt.Errorf("alerts.%s.expr: %w", name, err)
		}
		pretty, err := promql.Pretty(expr)
		if err != nil {
			return nil, fmt.Errorf("alerts.%s.expr: %w", name, err)
		}
		metrics, err := reads.reads(a.Expr)
		if err != nil {
			return nil, fmt.Errorf("alerts.%s.expr: %w", name, err)
		}
		requires, err := reads.requires(a.Expr)
		if err != nil {
			return nil, fmt.Errorf("alerts.%s.expr: %w", name, err)
		}
		labels := map[string]string{"severity": string(a.Severity), m.Labels.Team: a.Team, "family": a.Family}
		for k, v := range a.Labels {
			labels[k] = v
		}
		family, interval := m.Recording.SectionGroup(a.Family, a.Section)
		out[name] = Alert{
			Name:          name,
			Group:         GroupName(family, "alerts"),
			Interval:      interval,
			Expr:          expr,
			Pretty:        pretty,
			For:           a.For,
			KeepFiringFor: a.KeepFiringFor,
			Labels:        labels,
			Annotations:   map[string]string{"summary": a.Summary, "description": shardLabelFromExternal(m, a.Description), "runbook_url": m.RunbookURL(name)},
			Metrics:       metrics,
			Requires:      requires,
			Fields:        dcgmFields(m, metrics),
		}
	}
	return out, nil
}

// shardLabelFromExternal makes a template read the external label (the shard label, or a
// cluster named only by the external labels) from the external labels where the series lack
// it: Prometheus expands annotations before it adds its external labels, so $labels.cluster
// is empty there (while a sharded fleet's global layer has it on the series).
func shardLabelFromExternal(m *model.Model, text string) string {
	l := m.ExternalLabel()
	if l == "" {
		return text
	}
	ref := regexp.MustCompile(`\$labels\.` + regexp.QuoteMeta(l) + `\b`)
	return ref.ReplaceAllLiteralString(text, "(or $labels."+l+" $externalLabels."+l+")")
}

func alertGroups(alerts map[string]Alert) []Group {
	byGroup := map[string][]Rule{}
	interval := map[string]string{}
	for _, name := range model.SortedKeys(alerts) {
		a := alerts[name]
		byGroup[a.Group] = append(byGroup[a.Group], Rule{Alert: name, Expr: a.Pretty, For: a.For, KeepFiringFor: a.KeepFiringFor, Labels: a.Labels, Annotations: a.Annotations})
		interval[a.Group] = a.Interval
	}
	var out []Group
	for _, name := range model.SortedKeys(byGroup) {
		out = append(out, Group{Name: name, Interval: interval[name], Rules: byGroup[name]})
	}
	return out
}

// RuleComments lists the comments of every rule of the groups, in file order.
func RuleComments(groups []Group) [][]string {
	var out [][]string
	for _, g := range groups {
		for _, r := range g.Rules {
			out = append(out, r.Comments)
		}
	}
	return out
}
