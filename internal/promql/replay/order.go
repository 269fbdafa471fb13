package replay

import (
	"container/heap"
	"slices"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/prometheus/prometheus/rules"
)

// evaluated is a rule with its group and the matchers of each of its selectors.
type evaluated struct {
	group *rules.Group
	rule  rules.Rule
	reads []selector
}

// selector is one vector selector's matchers.
type selector []*labels.Matcher

// matcher is the selector's matcher of a label, nil when it has none.
func (s selector) matcher(label string) *labels.Matcher {
	if i := slices.IndexFunc(s, func(m *labels.Matcher) bool { return m.Name == label }); i >= 0 {
		return s[i]
	}
	return nil
}

// reads tells whether the selector may select a series that w writes: a record by its name,
// an alert through ALERTS and ALERTS_FOR_STATE (with its alertname), either only if the
// rule's own labels, which every series it writes carries, meet the matchers. A selector
// that names no metric may read anything.
func (s selector) reads(w evaluated) bool {
	name := s.matcher(model.MetricNameLabel)
	if name == nil {
		return true
	}
	written := w.rule.Labels()
	if _, ok := w.rule.(*rules.AlertingRule); ok {
		if !name.Matches(alertsMetric) && !name.Matches(alertsForStateMetric) {
			return false
		}
		written = labels.NewBuilder(written).Set(labels.AlertName, w.rule.Name()).Labels()
	} else if !name.Matches(w.rule.Name()) {
		return false
	}
	for _, m := range s {
		if m.Name != model.MetricNameLabel && written.Has(m.Name) && !m.Matches(written.Get(m.Name)) {
			return false
		}
	}
	return true
}

// writers indexes rules by what their series are named (a record by its name, an alert by
// its alertname in ALERTS), so that finding the rules another reads looks up its selectors'
// names, not every rule: ordering 3,000 groups stays linear in the rules and what they read.
type writers struct {
	all      []evaluated
	every    []int // 0..len(all)-1, what a selector without a metric name may read
	byRecord map[string][]int
	byAlert  map[string][]int
	alerts   []int
}

func indexWriters(all []evaluated) writers {
	ws := writers{all: all, byRecord: map[string][]int{}, byAlert: map[string][]int{}}
	for i, w := range all {
		ws.every = append(ws.every, i)
		if _, ok := w.rule.(*rules.AlertingRule); ok {
			ws.byAlert[w.rule.Name()] = append(ws.byAlert[w.rule.Name()], i)
			ws.alerts = append(ws.alerts, i)
		} else {
			ws.byRecord[w.rule.Name()] = append(ws.byRecord[w.rule.Name()], i)
		}
	}
	return ws
}

// readBy lists, in order and once each, the indexes of the rules whose series e may read.
func (ws writers) readBy(e evaluated) []int {
	var out []int
	for _, s := range e.reads {
		for _, i := range ws.candidates(s) {
			if s.reads(ws.all[i]) {
				out = append(out, i)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// candidates are the rules a selector may read by its metric name: those of that name, or
// every rule when the selector names none or by a pattern.
func (ws writers) candidates(s selector) []int {
	name := s.matcher(model.MetricNameLabel)
	if name == nil || name.Type != labels.MatchEqual {
		return ws.every
	}
	out := ws.byRecord[name.Value]
	if name.Value == alertsMetric || name.Value == alertsForStateMetric {
		if a := s.matcher(labels.AlertName); a != nil && a.Type == labels.MatchEqual {
			return append(slices.Clone(out), ws.byAlert[a.Value]...)
		}
		return append(slices.Clone(out), ws.alerts...)
	}
	return out
}

// inDependencyOrder lists the groups' rules, each group after the groups whose records (or
// alerts, through ALERTS) it reads and otherwise as written, rules in a group as written; a
// cycle is broken at the group written first. Prometheus runs groups concurrently, each at
// its own offset, so there a rule reading another group's record sees it up to one interval
// late; replay takes the order in which it is never late, the same on every run.
func inDependencyOrder(groups []*rules.Group) []evaluated {
	var all []evaluated
	var groupOf []int
	byGroup := make([][]evaluated, len(groups))
	for i, g := range groups {
		for _, rule := range g.Rules() {
			e := evaluated{group: g, rule: rule, reads: selectors(rule.Query())}
			byGroup[i] = append(byGroup[i], e)
			all = append(all, e)
			groupOf = append(groupOf, i)
		}
	}
	// readers[j] are the groups that read group j; waiting[i] counts the unplaced groups
	// group i reads.
	ws := indexWriters(all)
	readers := make([][]int, len(groups))
	waiting := make([]int, len(groups))
	reads := make([]map[int]bool, len(groups))
	for k, e := range all {
		i := groupOf[k]
		for _, w := range ws.readBy(e) {
			if j := groupOf[w]; j != i && !reads[i][j] {
				if reads[i] == nil {
					reads[i] = map[int]bool{}
				}
				reads[i][j] = true
				readers[j] = append(readers[j], i)
				waiting[i]++
			}
		}
	}
	// Place, each time, the first group written whose inputs are placed; when none is, the
	// first unplaced group breaks a cycle.
	ready := &indexHeap{}
	for i := range groups {
		if waiting[i] == 0 {
			heap.Push(ready, i)
		}
	}
	placed := make([]bool, len(groups))
	var out []evaluated
	first := 0
	for range groups {
		next := -1
		for ready.Len() > 0 && next < 0 {
			if i := heap.Pop(ready).(int); !placed[i] {
				next = i
			}
		}
		for ; next < 0; first++ {
			if !placed[first] {
				next = first
			}
		}
		placed[next] = true
		out = append(out, byGroup[next]...)
		for _, r := range readers[next] {
			if waiting[r]--; waiting[r] == 0 && !placed[r] {
				heap.Push(ready, r)
			}
		}
	}
	return out
}

// indexHeap is a min-heap of group indexes.
type indexHeap []int

func (h indexHeap) Len() int           { return len(h) }
func (h indexHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h indexHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *indexHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *indexHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// selectors lists an expression's vector selectors.
func selectors(expr parser.Expr) []selector {
	var out []selector
	parser.Inspect(expr, func(node parser.Node, _ []parser.Node) error {
		if sel, ok := node.(*parser.VectorSelector); ok {
			out = append(out, sel.LabelMatchers)
		}
		return nil
	})
	return out
}

// alertsAndTheirInputs keeps, in order, the alerting rules and the records they read,
// directly or through other records: a record no alert reads cannot change what fires.
func alertsAndTheirInputs(all []evaluated) []evaluated {
	ws := indexWriters(all)
	needed := make([]bool, len(all))
	queue := slices.Clone(ws.alerts)
	for _, i := range queue {
		needed[i] = true
	}
	for len(queue) > 0 {
		reader := all[queue[0]]
		queue = queue[1:]
		for _, j := range ws.readBy(reader) {
			if !needed[j] {
				needed[j] = true
				queue = append(queue, j)
			}
		}
	}
	var out []evaluated
	for i, e := range all {
		if needed[i] {
			out = append(out, e)
		}
	}
	return out
}

// evaluationPlan is the rules replay evaluates, in order, and whether they can be evaluated a
// window of steps at a time.
func evaluationPlan(groups []*rules.Group) ([]evaluated, bool) {
	order := alertsAndTheirInputs(inDependencyOrder(groups))
	return order, !readsForward(order)
}

// readsForward tells whether a rule reads what the same rule or one evaluated after it
// writes.
func readsForward(order []evaluated) bool {
	ws := indexWriters(order)
	for i, reader := range order {
		if read := ws.readBy(reader); len(read) > 0 && read[len(read)-1] >= i {
			return true
		}
	}
	return false
}
