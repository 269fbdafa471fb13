// Package analysis is what lint knows of the PromQL it reads and of the catalog, below its
// checks: which rules record a metric, which labels an expression yields, whether it reads GPU
// metrics, the unit of its values, how many series it projects to at the fleet's size, what
// kind of metric a name is, and in which layer of a sharded fleet a rule runs. It answers;
// the checks in internal/lint decide what is a problem.
package analysis

import (
	"strings"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/promql/labelflow"
	"github.com/gpuobs/gpuobs/internal/source"
)

// Analysis answers questions about expressions over a catalog and the rule files read with
// it. It remembers answers, so one Analysis serves one goroutine.
type Analysis struct {
	model *model.Model
	// recorded maps recorded metric names to the rules recording them: the files' when they
	// record the name, else the rules the catalog generates (known even when only dashboards
	// are read). Several rules may record one name with different static labels.
	recorded map[string][]*source.Rule
	// labels resolves the labels of expressions over the catalog and the recorded rules.
	labels *plan.Labels
	// gpuMemo remembers which recorded metrics derive from GPU metrics.
	gpuMemo map[string]bool
	// layers places the catalog's records when it is sharded.
	layers map[string]plan.Layer
	// GlobalPaths are rule files (or directories of them) the global layer of a sharded fleet
	// evaluates, besides those under a directory named global.
	GlobalPaths []string
}

// New analyses files against a catalog's plan.
func New(p *plan.Plan, files []*source.File) *Analysis {
	a := &Analysis{model: p.Model, recorded: map[string][]*source.Rule{}, gpuMemo: map[string]bool{}, layers: p.Layers}
	for _, f := range files {
		for _, r := range f.Rules {
			if r.Record != "" {
				a.recorded[r.Record] = append(a.recorded[r.Record], r)
			}
		}
	}
	fromFiles := map[string]bool{}
	for name := range a.recorded {
		fromFiles[name] = true
	}
	for _, r := range p.Recorded {
		if !fromFiles[r.Name] {
			a.recorded[r.Name] = append(a.recorded[r.Name], &source.Rule{Record: r.Name, Labels: r.Labels, Expr: source.ParsedExpr(r.Expr, r.Parsed)})
		}
	}
	sources := map[string][]plan.Source{}
	for name, rules := range a.recorded {
		for _, r := range rules {
			sources[name] = append(sources[name], plan.Source{Expr: r.Expr.Node, Labels: r.Labels})
		}
	}
	a.labels = plan.NewLabels(p.Model, sources).WithTargetLabels()
	return a
}

// Recorded reports whether a rule of the files, or of the catalog, records a metric.
func (a *Analysis) Recorded(metric string) bool { return len(a.recorded[metric]) > 0 }

// Labels are the labels of the series an expression produces.
func (a *Analysis) Labels(n *promql.Node) labelflow.Set { return a.labels.Of(n) }

// DCGMLooking reports whether a metric name looks like dcgm-exporter's: its DCGM_ fields and
// own metrics, or the lower-case names of --use-old-namespace.
func DCGMLooking(name string) bool {
	return strings.HasPrefix(name, "DCGM_") || strings.HasPrefix(name, "dcgm_")
}

// GPURelated reports whether an expression reads a catalog field, a DCGM-looking metric, or a
// metric a rule records from one: what the GPU checks (cardinality, MIG, units) apply to.
func (a *Analysis) GPURelated(n *promql.Node) bool {
	found := false
	promql.Walk(n, func(c *promql.Node, _ []*promql.Node) {
		found = found || (c.Kind == promql.Selector && a.gpuMetric(c.Name))
	})
	return found
}

// FansOut reports whether an expression reads a metric whose catalog entry declares a
// fan-out (metrics.<name>.fanout): series per entity of the hierarchy, which the cardinality
// budget projects like a GPU's.
func (a *Analysis) FansOut(n *promql.Node) bool {
	found := false
	promql.Walk(n, func(c *promql.Node, _ []*promql.Node) {
		found = found || (c.Kind == promql.Selector && len(a.model.Metrics[c.Name].Fanout) > 0)
	})
	return found
}

// gpuMetric reports whether a metric is a catalog field, DCGM-looking, or recorded from one.
func (a *Analysis) gpuMetric(name string) bool {
	if _, field := a.model.Fields[name]; field || DCGMLooking(name) {
		return true
	}
	if v, ok := a.gpuMemo[name]; ok {
		return v
	}
	a.gpuMemo[name] = false // breaks cycles
	for _, r := range a.recorded[name] {
		if r.Expr.Node != nil && a.GPURelated(r.Expr.Node) {
			a.gpuMemo[name] = true
			break
		}
	}
	return a.gpuMemo[name]
}

// Known reports whether a metric is a catalog field or metric, a histogram series of one,
// recorded by a rule, or written by Prometheus itself.
func (a *Analysis) Known(metric string) bool {
	return a.inCatalog(metric) || a.Recorded(metric) || plan.Builtin(metric)
}

// Raw reports whether a metric is a scraped series rather than a record: no rule of the files
// or the catalog records it, and it is a field or metric the catalog knows or has no colon
// (recorded names have one: level:metric:operation; vLLM's own names have one too).
func (a *Analysis) Raw(metric string) bool {
	return !a.Recorded(metric) && (a.inCatalog(metric) || !strings.Contains(metric, ":"))
}

// inCatalog reports whether a metric is a catalog field or metric, or a histogram series of one.
func (a *Analysis) inCatalog(metric string) bool {
	_, field := a.model.Fields[metric]
	_, known := a.model.Metrics[metric]
	_, histogram := a.model.HistogramSeries(metric)
	return field || known || histogram
}

// Kind is what the catalog says of a metric: how its values behave (Real: counter, gauge,
// bitmask, ...), the type its exporter declares, and their unit. Real is "" when the catalog
// does not know the metric.
type Kind struct {
	Real     model.Kind
	Declared string
	Unit     string
}

// KindOf is a metric's kind, from the catalog's fields, metrics and histograms.
func (a *Analysis) KindOf(metric string) Kind {
	if f, ok := a.model.Fields[metric]; ok {
		return Kind{Real: f.Kind, Declared: f.Type, Unit: f.Unit}
	}
	if mt, ok := a.model.Metrics[metric]; ok && (mt.Type == "counter" || mt.Type == "gauge") {
		return Kind{Real: model.Kind(mt.Type), Declared: mt.Type}
	}
	if _, ok := a.model.HistogramSeries(metric); ok {
		return Kind{Real: model.KindCounter, Declared: string(model.KindCounter)}
	}
	return Kind{}
}
