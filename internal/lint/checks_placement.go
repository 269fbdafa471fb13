package lint

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/source"
)

// layerOf is the layer a file's rules run in on a sharded fleet: global under a directory
// named global or a path given as global (--global), shard under a directory named shard,
// none otherwise (a single Prometheus, or not said).
func (in *Inputs) layerOf(f *source.File) plan.Layer {
	clean := filepath.ToSlash(filepath.Clean(f.Path))
	for _, g := range in.GlobalPaths {
		g = filepath.ToSlash(filepath.Clean(g))
		if g == "." || clean == g || strings.HasPrefix(clean, strings.TrimSuffix(g, "/")+"/") {
			return plan.Global
		}
	}
	dirs := strings.Split(filepath.ToSlash(filepath.Dir(f.Path)), "/")
	switch {
	case slices.Contains(dirs, string(plan.Global)):
		return plan.Global
	case slices.Contains(dirs, string(plan.Shard)):
		return plan.Shard
	}
	return ""
}

// recordedGlobally reports whether every rule recording a metric runs in the global layer:
// rules of global files, and the catalog's global records when it is sharded.
func (in *Inputs) recordedGlobally(metric string) bool {
	rules := in.recorded[metric]
	for _, r := range rules {
		global := in.layers[metric] == plan.Global
		if r.File != nil {
			global = in.layerOf(r.File) == plan.Global
		}
		if !global {
			return false
		}
	}
	return len(rules) > 0
}

// raw reports whether a metric is a scraped series rather than a record: no rule in the inputs
// or the catalog records it, and it is a field or metric the catalog knows or has no colon
// (recorded names have one: level:metric:operation; vLLM's own names have one too).
func (in *Inputs) raw(metric string) bool {
	if _, recorded := in.recorded[metric]; recorded {
		return false
	}
	_, field := in.Model.Fields[metric]
	_, known := in.Model.Metrics[metric]
	_, histogram := in.Model.HistogramSeries(metric)
	return field || known || histogram || !strings.Contains(metric, ":")
}

type placementGlobalRaw struct{}

func (placementGlobalRaw) Name() string { return "placement/global-raw-series" }
func (placementGlobalRaw) Doc() string {
	return "rules of the global layer (a directory named global, or --global) that read raw series instead of the shards' records"
}
func (placementGlobalRaw) Run(in *Inputs, report func(Problem)) {
	in.ruleSelectors(func(f *source.File, e *source.Expr, n *promql.Node) {
		if in.layerOf(f) == plan.Global && n.Name != "" && in.raw(n.Name) && !plan.Builtin(n.Name) {
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
		if in.layerOf(f) == plan.Shard && n.Name != "" && in.recordedGlobally(n.Name) {
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
