// Package rulegraph tells which rules of a set read which others: a selector reads a record
// by its name, an alert through ALERTS and ALERTS_FOR_STATE (by its alertname), when the
// rule's own labels meet the selector's matchers. Replay orders and trims the rules it
// evaluates with it; tests run each promtool test group on the rules it reads.
package rulegraph

import (
	"slices"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

// The series Prometheus writes for alerting rules.
const (
	alertsMetric         = "ALERTS"
	alertsForStateMetric = "ALERTS_FOR_STATE"
)

// Rule is what the graph knows of a rule: what it writes and what it reads.
type Rule struct {
	// Name is the record's name, or the alert's.
	Name string
	// Alert tells an alerting rule from a recording rule.
	Alert bool
	// Labels are the rule's own labels, which every series it writes carries.
	Labels labels.Labels
	// Reads are the rule's vector selectors.
	Reads []Selector
}

// Selector is one vector selector's matchers.
type Selector []*labels.Matcher

// NewRule is what the graph knows of a rule given by its parts: a record's or alert's name,
// its own labels and its expression.
func NewRule(name string, alert bool, own map[string]string, expr string) (Rule, error) {
	reads, err := SelectorsOf(expr)
	if err != nil {
		return Rule{}, err
	}
	return Rule{Name: name, Alert: alert, Labels: labels.FromMap(own), Reads: reads}, nil
}

// Selectors lists an expression's vector selectors.
func Selectors(expr parser.Expr) []Selector {
	var out []Selector
	parser.Inspect(expr, func(node parser.Node, _ []parser.Node) error {
		if sel, ok := node.(*parser.VectorSelector); ok {
			out = append(out, sel.LabelMatchers)
		}
		return nil
	})
	return out
}

// SelectorsOf parses a query, experimental constructs included, and lists its vector
// selectors.
func SelectorsOf(query string) ([]Selector, error) {
	expr, err := parser.NewParser(parser.Options{EnableExperimentalFunctions: true, EnableBinopFillModifiers: true}).ParseExpr(query)
	if err != nil {
		return nil, err
	}
	return Selectors(expr), nil
}

// Matcher is the selector's matcher of a label, nil when it has none.
func (s Selector) Matcher(label string) *labels.Matcher {
	if i := slices.IndexFunc(s, func(m *labels.Matcher) bool { return m.Name == label }); i >= 0 {
		return s[i]
	}
	return nil
}

// MaySelect tells whether one of the selectors may select a series written in Prometheus'
// notation (name{label="value"}, as promtool's input series are): true when the notation
// cannot be read.
func MaySelect(selectors []Selector, series string) bool {
	ls, err := parser.NewParser(parser.Options{}).ParseMetric(series)
	if err != nil {
		return true
	}
	return slices.ContainsFunc(selectors, func(s Selector) bool {
		for _, m := range s {
			if !m.Matches(ls.Get(m.Name)) {
				return false
			}
		}
		return true
	})
}

// Reads tells whether the selector may select a series that w writes: a record by its name,
// an alert through ALERTS and ALERTS_FOR_STATE (with its alertname), either only if the
// rule's own labels meet the matchers. A selector that names no metric may read anything.
func (s Selector) Reads(w Rule) bool {
	name := s.Matcher(model.MetricNameLabel)
	if name == nil {
		return true
	}
	written := w.Labels
	if w.Alert {
		if !name.Matches(alertsMetric) && !name.Matches(alertsForStateMetric) {
			return false
		}
		written = labels.NewBuilder(written).Set(labels.AlertName, w.Name).Labels()
	} else if !name.Matches(w.Name) {
		return false
	}
	for _, m := range s {
		if m.Name != model.MetricNameLabel && written.Has(m.Name) && !m.Matches(written.Get(m.Name)) {
			return false
		}
	}
	return true
}

// Graph indexes rules by what their series are named (a record by its name, an alert by its
// alertname in ALERTS), so that finding the rules another reads looks up its selectors'
// names, not every rule: it stays linear in the rules and what they read.
type Graph struct {
	rules    []Rule
	every    []int // 0..len(rules)-1, what a selector without a metric name may read
	byRecord map[string][]int
	byAlert  map[string][]int
	alerts   []int
}

// New indexes rules; the graph refers to them by their index.
func New(rules []Rule) Graph {
	g := Graph{rules: rules, byRecord: map[string][]int{}, byAlert: map[string][]int{}}
	for i, w := range rules {
		g.every = append(g.every, i)
		if w.Alert {
			g.byAlert[w.Name] = append(g.byAlert[w.Name], i)
			g.alerts = append(g.alerts, i)
		} else {
			g.byRecord[w.Name] = append(g.byRecord[w.Name], i)
		}
	}
	return g
}

// Alerts are the indexes of the alerting rules, in order.
func (g Graph) Alerts() []int { return g.alerts }

// Alert are the indexes of the alerting rules of a name.
func (g Graph) Alert(name string) []int { return g.byAlert[name] }

// ReadBy lists, in order and once each, the indexes of the rules whose series the selectors
// may read.
func (g Graph) ReadBy(reads []Selector) []int {
	var out []int
	for _, s := range reads {
		out = append(out, g.ReadBySelector(s)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ReadBySelector lists the indexes of the rules whose series one selector may read.
func (g Graph) ReadBySelector(s Selector) []int {
	var out []int
	for _, i := range g.candidates(s) {
		if s.Reads(g.rules[i]) {
			out = append(out, i)
		}
	}
	return out
}

// candidates are the rules a selector may read by its metric name: those of that name, or
// every rule when the selector names none or by a pattern.
func (g Graph) candidates(s Selector) []int {
	name := s.Matcher(model.MetricNameLabel)
	if name == nil || name.Type != labels.MatchEqual {
		return g.every
	}
	out := g.byRecord[name.Value]
	if name.Value == alertsMetric || name.Value == alertsForStateMetric {
		if a := s.Matcher(labels.AlertName); a != nil && a.Type == labels.MatchEqual {
			return append(slices.Clone(out), g.byAlert[a.Value]...)
		}
		return append(slices.Clone(out), g.alerts...)
	}
	return out
}

// Inputs marks the given rules and every rule they read, directly or through others.
func (g Graph) Inputs(roots []int) []bool {
	needed := make([]bool, len(g.rules))
	queue := slices.Clone(roots)
	for _, i := range queue {
		needed[i] = true
	}
	for len(queue) > 0 {
		reader := g.rules[queue[0]]
		queue = queue[1:]
		for _, j := range g.ReadBy(reader.Reads) {
			if !needed[j] {
				needed[j] = true
				queue = append(queue, j)
			}
		}
	}
	return needed
}
