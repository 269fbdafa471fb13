package replay

import (
	"container/heap"

	"github.com/prometheus/prometheus/rules"

	"github.com/gpuobs/gpuobs/internal/promql/rulegraph"
)

// evaluated is a rule with its group and what the rule graph knows of it.
type evaluated struct {
	group *rules.Group
	rule  rules.Rule
	node  rulegraph.Rule
}

// graphOf indexes evaluated rules in the rule graph, by their index in all.
func graphOf(all []evaluated) rulegraph.Graph {
	nodes := make([]rulegraph.Rule, len(all))
	for i, e := range all {
		nodes[i] = e.node
	}
	return rulegraph.New(nodes)
}

// nodeOf is what the rule graph knows of a rule.
func nodeOf(rule rules.Rule) rulegraph.Rule {
	_, alert := rule.(*rules.AlertingRule)
	return rulegraph.Rule{Name: rule.Name(), Alert: alert, Labels: rule.Labels(), Reads: rulegraph.Selectors(rule.Query())}
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
			e := evaluated{group: g, rule: rule, node: nodeOf(rule)}
			byGroup[i] = append(byGroup[i], e)
			all = append(all, e)
			groupOf = append(groupOf, i)
		}
	}
	// readers[j] are the groups that read group j; waiting[i] counts the unplaced groups
	// group i reads.
	graph := graphOf(all)
	readers := make([][]int, len(groups))
	waiting := make([]int, len(groups))
	reads := make([]map[int]bool, len(groups))
	for k, e := range all {
		i := groupOf[k]
		for _, w := range graph.ReadBy(e.node.Reads) {
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

// alertsAndTheirInputs keeps, in order, the alerting rules and the records they read,
// directly or through other records: a record no alert reads cannot change what fires.
func alertsAndTheirInputs(all []evaluated) []evaluated {
	graph := graphOf(all)
	needed := graph.Inputs(graph.Alerts())
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
	graph := graphOf(order)
	for i, reader := range order {
		if read := graph.ReadBy(reader.node.Reads); len(read) > 0 && read[len(read)-1] >= i {
			return true
		}
	}
	return false
}
