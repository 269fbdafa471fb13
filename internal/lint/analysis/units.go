package analysis

import (
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/promql"
)

// Unit is the unit of an expression's values, from the catalog's fields, or "" when unknown or
// scaled: a rate is in the rate unit the catalog gives its operand's unit (unit/s, or another
// unit: the rate of energy is power); sums, averages, extremes, roundings and comparisons keep
// their operand's unit; additions and set operations take the unit of the side that has one.
func (a *Analysis) Unit(n *promql.Node) string {
	switch n.Kind {
	case promql.Selector:
		if f, ok := a.model.Fields[n.Name]; ok && f.Kind != model.KindBitmask && f.Kind != model.KindLastEvent {
			return f.Unit
		}
	case promql.Call:
		switch n.Name {
		case "rate", "irate", "deriv":
			if u := a.Unit(n.Args[0]); u != "" {
				return a.model.RateUnit(u)
			}
		case "increase", "delta", "avg_over_time", "min_over_time", "max_over_time", "last_over_time", "quantile_over_time", "abs", "ceil", "floor", "round", "clamp", "clamp_min", "clamp_max":
			for _, arg := range n.Args {
				if arg.Kind == promql.Selector || arg.Kind == promql.Call || arg.Kind == promql.Aggregate || arg.Kind == promql.Subquery {
					return a.Unit(arg)
				}
			}
		}
	case promql.Aggregate:
		switch n.Name {
		case "sum", "avg", "min", "max", "topk", "bottomk", "quantile":
			return a.Unit(n.Args[len(n.Args)-1])
		}
	case promql.Subquery, promql.Unary:
		return a.Unit(n.Args[0])
	case promql.Binary:
		switch n.Name {
		case "+", "-", "and", "unless", "or":
			if u := a.Unit(n.Args[0]); u != "" {
				return u
			}
			return a.Unit(n.Args[1])
		}
		if promql.IsComparison(n.Name) {
			return a.Unit(n.Args[0])
		}
	}
	return ""
}
