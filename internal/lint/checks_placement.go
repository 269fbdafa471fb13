package lint

import (
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/source"
)

type placementGlobalRaw struct{}

func (placementGlobalRaw) Name() string { return "placement/global-raw-series" }
func (placementGlobalRaw) Doc() string {
	return "rules of the global layer (a directory named global, or --global) that read raw series instead of the shards' records"
}
func (placementGlobalRaw) Run(in *Inputs, report func(Problem)) {
	in.ruleSelectors(func(f *source.File, e *source.Expr, n *promql.Node) {
		if in.Analysis.Layer(f) == plan.Global && n.Name != "" && in.Analysis.Raw(n.Name) && !plan.Builtin(n.Name) {
			report(at(f, e, n, Warning, "the global layer reads the raw series %s: it pulls every shard's series through the querier on each evaluation, and a shard that does not answer leaves a partial result; record it per shard (by the shard's external label) and read the record", n.Name))
		}
	})
}

type placementShardReadsGlobal struct{}

func (placementShardReadsGlobal) Name() string { return "placement/shard-reads-global" }
func (placementShardReadsGlobal) Doc() string {
	return "rules of a shard (a directory named shard) that read a record only the global layer produces"
}
func (placementShardReadsGlobal) Run(in *Inputs, report func(Problem)) {
	in.ruleSelectors(func(f *source.File, e *source.Expr, n *promql.Node) {
		if in.Analysis.Layer(f) == plan.Shard && n.Name != "" && in.Analysis.RecordedGlobally(n.Name) {
			report(at(f, e, n, Error, "%s is recorded by the global layer, which a shard never sees: this rule evaluates to nothing; run it in the global layer", n.Name))
		}
	})
}

// ruleSelectors calls fn for every metric selector of every rule expression.
func (in *Inputs) ruleSelectors(fn func(f *source.File, e *source.Expr, n *promql.Node)) {
	in.Exprs(func(f *source.File, r *source.Rule, _ *source.Query, e *source.Expr) {
		if r == nil {
			return
		}
		promql.Walk(e.Node, func(n *promql.Node, _ []*promql.Node) {
			if n.Kind == promql.Selector {
				fn(f, e, n)
			}
		})
	})
}
