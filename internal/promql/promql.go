// Package promql is gpuobs' only door to Prometheus' PromQL parser, rule-file format and
// template engine: their Go API changes between minor versions, so it is kept in one place.
package promql

import (
	"errors"
	"io"
	"log/slog"
	"sort"
	"strings"
	"text/template/parse"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
)

// newParser reads every construct Prometheus 3 has, experimental ones included: whether the
// target server runs with the flags they need is the catalog's prometheus.enableFeatures,
// which validation and lint hold each expression to (Node.Needs).
func newParser() parser.Parser {
	return parser.NewParser(parser.Options{EnableExperimentalFunctions: true, EnableBinopFillModifiers: true})
}

// Canonical parses a PromQL expression and returns it in Prometheus' canonical form.
// The error carries the parse position (line:col).
func Canonical(expr string) (string, error) {
	e, err := parseExpr(expr)
	if err != nil {
		return "", err
	}
	return e.String(), nil
}

// MetricNames returns the sorted, distinct metric names that an expression selects.
func MetricNames(expr string) ([]string, error) {
	e, err := parseExpr(expr)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	parser.Inspect(e, func(node parser.Node, _ []parser.Node) error {
		if vs, ok := node.(*parser.VectorSelector); ok {
			name := vs.Name
			if name == "" {
				for _, m := range vs.LabelMatchers {
					if m.Name == model.MetricNameLabel {
						name = m.Value
					}
				}
			}
			if name != "" {
				seen[name] = true
			}
		}
		return nil
	})
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}

// ValidateRuleFile checks a rule file the way Prometheus loads it: strict YAML, valid
// expressions, names, labels and annotation templates.
func ValidateRuleFile(content []byte) []error {
	_, errs := parseRuleFile(content)
	return errs
}

// RuleFileCheck names CheckRuleFile's check where its passes are remembered (kept.Memo).
const RuleFileCheck = "Prometheus' rule-file loader"

// CheckRuleFile is ValidateRuleFile with its problems as one error, nil for none.
func CheckRuleFile(content []byte) error { return errors.Join(ValidateRuleFile(content)...) }

// parseRuleFile loads a rule file as Prometheus does, its log discarded.
func parseRuleFile(content []byte) (*rulefmt.RuleGroups, []error) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	return rulefmt.Parse(content, false, model.LegacyValidation, newParser(), logger)
}

// RecordNames lists the recording rules of a rule file, in file order; a file Prometheus
// would not load lists none.
func RecordNames(content []byte) []string {
	groups, errs := parseRuleFile(content)
	if len(errs) > 0 {
		return nil
	}
	var names []string
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			if r.Record != "" {
				names = append(names, r.Record)
			}
		}
	}
	return names
}

// ParseDuration parses a Prometheus duration such as 5m or 1h30m.
func ParseDuration(s string) (model.Duration, error) { return model.ParseDuration(s) }

// IsValidLabelName reports whether name is a valid (legacy charset) label name.
func IsValidLabelName(name string) bool { return model.LegacyValidation.IsValidLabelName(name) }

// IsValidMetricName reports whether name is a metric name by the legacy scheme
// ([a-zA-Z_:][a-zA-Z0-9_:]*), the one the Prometheus Operator validates PrometheusRules with.
func IsValidMetricName(name string) bool { return model.LegacyValidation.IsValidMetricName(name) }

// Pretty parses an expression and prints it in Prometheus' multi-line canonical layout.
func Pretty(expr string) (string, error) {
	e, err := parseExpr(expr)
	if err != nil {
		return "", err
	}
	return parser.Prettify(e), nil
}

// TemplateLabels returns the label names an alert template reads from $labels (or .Labels):
// $labels.name, .Labels.name and index $labels "name". The template is parsed with Go's
// template parser, with the variables Prometheus defines; functions are not resolved.
func TemplateLabels(text string) ([]string, error) {
	if !strings.Contains(text, "{{") {
		return nil, nil // no action: nothing read, nothing that can fail to parse
	}
	trees, err := parseTemplate(alertTemplateDefs + text)
	if err != nil {
		return nil, err
	}
	r := labelReads{seen: map[string]bool{}}
	for _, tree := range trees {
		r.walk(tree.Root)
	}
	sort.Strings(r.names)
	return r.names, nil
}

// labelReads collects the label names a template's nodes read from $labels or .Labels.
type labelReads struct {
	seen  map[string]bool
	names []string
	// rebound is set inside the body of a range or with, where dot is the element (a sample
	// of {{ range query "..." }}), not the alert: .Labels there are the element's.
	rebound bool
}

func (r *labelReads) add(name string) {
	if !r.seen[name] {
		r.seen[name] = true
		r.names = append(r.names, name)
	}
}

func (r *labelReads) walk(n parse.Node) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n != nil {
			for _, c := range n.Nodes {
				r.walk(c)
			}
		}
	case *parse.ActionNode:
		r.walk(n.Pipe)
	case *parse.PipeNode:
		if n != nil {
			for _, c := range n.Cmds {
				r.walk(c)
			}
		}
	case *parse.CommandNode:
		r.command(n)
	case *parse.VariableNode:
		if len(n.Ident) >= 2 && n.Ident[0] == "$labels" {
			r.add(n.Ident[1])
		}
		if len(n.Ident) >= 3 && n.Ident[0] == "$" && n.Ident[1] == "Labels" {
			r.add(n.Ident[2]) // $.Labels.x: the alert's, wherever dot is
		}
	case *parse.FieldNode:
		if len(n.Ident) >= 2 && n.Ident[0] == "Labels" && !r.rebound {
			r.add(n.Ident[1])
		}
	case *parse.IfNode:
		r.branches(n.Pipe, n.List, n.ElseList, false)
	case *parse.RangeNode:
		r.branches(n.Pipe, n.List, n.ElseList, true)
	case *parse.WithNode:
		r.branches(n.Pipe, n.List, n.ElseList, true)
	}
}

// branches reads an if, range or with: its pipe and else branch with dot as it is, its body
// with dot rebound to the element when rebinds.
func (r *labelReads) branches(pipe *parse.PipeNode, list, elseList *parse.ListNode, rebinds bool) {
	r.walk(pipe)
	outer := r.rebound
	r.rebound = outer || rebinds
	r.walk(list)
	r.rebound = outer
	r.walk(elseList)
}

// command reads a command's arguments, and index $labels "name".
func (r *labelReads) command(n *parse.CommandNode) {
	for i, a := range n.Args {
		if id, ok := a.(*parse.IdentifierNode); ok && id.Ident == "index" && i+2 < len(n.Args) {
			if v, ok := n.Args[i+1].(*parse.VariableNode); ok && len(v.Ident) == 1 && v.Ident[0] == "$labels" {
				if s, ok := n.Args[i+2].(*parse.StringNode); ok {
					r.add(s.Text)
				}
			}
		}
		r.walk(a)
	}
}

// FormatDuration writes d as Prometheus writes durations (5m, 1h30m).
func FormatDuration(d time.Duration) string { return model.Duration(d).String() }
