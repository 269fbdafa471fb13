// Package labelflow decides which labels the series of a PromQL expression carry: through
// aggregations, on/ignoring, group_left/group_right, set operators, label_replace/label_join
// and histogram_quantile. What a metric itself carries comes from a resolver the caller passes.
package labelflow

import (
	"sort"

	"github.com/gpuobs/gpuobs/internal/promql"
)

// Set is the set of labels an expression's series carry. Open means more labels may be there
// than listed (a metric whose labels are not known).
type Set struct {
	names map[string]bool
	Open  bool
}

// NewSet is a set of the named labels.
func NewSet(open bool, names ...string) Set {
	s := Set{names: map[string]bool{}, Open: open}
	for _, n := range names {
		s.names[n] = true
	}
	return s
}

// Has reports whether the series surely carry the label.
func (s Set) Has(name string) bool { return s.names[name] }

// MayHave reports whether the series may carry the label.
func (s Set) MayHave(name string) bool { return s.Open || s.names[name] }

// Sorted lists the labels surely carried, sorted.
func (s Set) Sorted() []string {
	out := make([]string, 0, len(s.names))
	for n := range s.names {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// With adds labels.
func (s Set) With(names ...string) Set {
	out := NewSet(s.Open, s.Sorted()...)
	for _, n := range names {
		out.names[n] = true
	}
	return out
}

// Without removes labels.
func (s Set) Without(names ...string) Set {
	out := NewSet(s.Open, s.Sorted()...)
	for _, n := range names {
		delete(out.names, n)
	}
	return out
}

// Union is the labels either set carries.
func (s Set) Union(o Set) Set {
	out := s.With(o.Sorted()...)
	out.Open = s.Open || o.Open
	return out
}

// Only keeps the named labels the series may carry, and closes the set.
func (s Set) Only(names ...string) Set {
	out := NewSet(false)
	for _, n := range names {
		if s.MayHave(n) {
			out.names[n] = true
		}
	}
	return out
}

// Resolver gives the labels of a metric's series by its name.
type Resolver func(metric string) Set

// Output is the labels of the series an expression produces, metrics resolved by resolve.
func Output(n *promql.Node, resolve Resolver) Set {
	switch n.Kind {
	case promql.Selector:
		return resolve(n.Name)
	case promql.Number, promql.String:
		return NewSet(false)
	case promql.Unary, promql.Subquery:
		return Output(n.Args[0], resolve)
	case promql.Aggregate:
		return aggregate(n, Output(n.Args[len(n.Args)-1], resolve))
	case promql.Call:
		return call(n, resolve)
	case promql.Binary:
		return binary(n, resolve)
	}
	return NewSet(true)
}

func aggregate(n *promql.Node, inner Set) Set {
	switch {
	case n.Name == "topk" || n.Name == "bottomk" || n.Name == "limitk" || n.Name == "limit_ratio":
		return inner
	case n.Without:
		return inner.Without(n.Grouping...)
	}
	out := NewSet(false, n.Grouping...)
	if n.Name == "count_values" && len(n.Args) > 1 && n.Args[0].Kind == promql.String {
		out = out.With(n.Args[0].Name)
	}
	return out
}

func call(n *promql.Node, resolve Resolver) Set {
	switch n.Name {
	case "label_replace", "label_join":
		out := Output(n.Args[0], resolve)
		if len(n.Args) > 1 && n.Args[1].Kind == promql.String {
			out = out.With(n.Args[1].Name)
		}
		return out
	case "histogram_quantile":
		return Output(n.Args[len(n.Args)-1], resolve).Without("le")
	case "absent", "absent_over_time":
		out := NewSet(false)
		promql.Walk(n, func(c *promql.Node, _ []*promql.Node) {
			for _, m := range c.Matchers {
				if c.Kind == promql.Selector && m.Type == "=" {
					out.names[m.Name] = true
				}
			}
		})
		return out
	case "time", "pi", "scalar", "vector":
		return NewSet(false)
	}
	for _, a := range n.Args {
		if a.Kind != promql.Number && a.Kind != promql.String {
			return Output(a, resolve)
		}
	}
	return NewSet(false)
}

func binary(n *promql.Node, resolve Resolver) Set {
	switch {
	case IsScalar(n.Args[0]):
		return Output(n.Args[1], resolve)
	case IsScalar(n.Args[1]):
		return Output(n.Args[0], resolve)
	}
	l := Output(n.Args[0], resolve)
	v := n.Vector()
	switch {
	case n.Name == "or":
		return l.Union(Output(n.Args[1], resolve))
	case n.Name == "and" || n.Name == "unless":
		return l
	case v.Card == "many-to-one":
		return l.With(v.Include...)
	case v.Card == "one-to-many":
		return Output(n.Args[1], resolve).With(v.Include...)
	case v.Matching && v.On:
		return l.Only(v.MatchOn...)
	case v.Matching:
		return l.Without(v.MatchOn...)
	}
	return l
}

// IsScalar reports whether an expression yields a scalar (literals and scalar functions).
func IsScalar(n *promql.Node) bool {
	switch n.Kind {
	case promql.Number:
		return true
	case promql.Unary:
		return IsScalar(n.Args[0])
	case promql.Call:
		return n.Name == "scalar" || n.Name == "time" || n.Name == "pi"
	case promql.Binary:
		return IsScalar(n.Args[0]) && IsScalar(n.Args[1])
	}
	return false
}
