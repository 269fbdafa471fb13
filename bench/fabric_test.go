package bench

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpuobs/gpuobs/internal/catalog"
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/promql/ruleeval"
)

// trainingFabric switches on the embedded catalog's InfiniBand and NCCL Inspector sections.
const trainingFabric = "(import 'gpuobs.libsonnet') + { enabled+: { infiniband: true, nccl: true } }\n"

// BenchmarkTrainingFabricEvaluation measures what the infiniband and nccl sections add to
// rule evaluation: over one store holding the fleet (10,240 GPUs by default) and its training
// fabric (every node's InfiniBand ports, every pod's NCCL Inspector series at the catalog's
// fan-out, the pods' training-job owners), the embedded catalog's rules and the same catalog's
// with both sections on are evaluated in turn, sequentially, in one loop. It reports each one's
// ms/rule and their ratio (sections/core), which holds on any machine.
func BenchmarkTrainingFabricEvaluation(b *testing.B) {
	core := planOf(b, "")
	config := filepath.Join(b.TempDir(), "gpuobs.jsonnet")
	if err := os.WriteFile(config, []byte(trainingFabric), 0o644); err != nil {
		b.Fatal(err)
	}
	sections := planOf(b, config)

	gpus := fleet(benchGPUs(b))
	store, _, loadTime := fleetStore(b, sections, gpus)
	begin := time.Now()
	if err := loadFabric(store, sections.Model, gpus, readNames(b, sections), 0, sampleStep, sampleCount); err != nil {
		b.Fatal(err)
	}
	fabricLoad := time.Since(begin)
	series := store.SeriesCount()

	at := evalAt
	evaluators := map[string]*ruleeval.Evaluator{}
	for name, p := range map[string]*plan.Plan{"core": core, "sections": sections} {
		var files []string
		for _, layer := range ruleFiles(b, p) {
			files = append(files, layer...)
		}
		ev, err := store.LoadRuleFiles(files...)
		if err != nil {
			b.Fatal(err)
		}
		at = at.Add(time.Second)
		if first := ev.Evaluate(at, false); len(first.Failed) > 0 {
			b.Fatalf("%s rules failed: %v", name, first.Failed)
		}
		evaluators[name] = ev
	}
	// The sections' rules see multi-node jobs and their ranks: the fabric is exercised.
	for _, q := range []string{"count(node_job:training_gpus:count)", `count(ALERTS{alertname="GPUNcclStragglerRank"})`} {
		got, err := store.Instant(q, at)
		if err != nil || len(got) != 1 || got[0].Value == 0 {
			b.Fatalf("%s = %v, %v: the training fabric is not exercised", q, got, err)
		}
	}

	var spent [2]time.Duration
	var last ruleeval.Evaluation
	for b.Loop() {
		for i, name := range []string{"core", "sections"} {
			at = at.Add(time.Second)
			t0 := time.Now()
			if last = evaluators[name].Evaluate(at, false); len(last.Failed) > 0 {
				b.Fatalf("%s rules failed: %v", name, last.Failed)
			}
			spent[i] += time.Since(t0)
		}
	}
	perRule := func(i int, ev *ruleeval.Evaluator) float64 {
		return float64(spent[i].Microseconds()) / 1000 / float64(b.N) / float64(ev.Rules())
	}
	coreMs, sectionsMs := perRule(0, evaluators["core"]), perRule(1, evaluators["sections"])
	b.ReportMetric(coreMs, "core-ms/rule")
	b.ReportMetric(sectionsMs, "sections-ms/rule")
	b.ReportMetric(sectionsMs/coreMs, "sections/core")
	b.ReportMetric(float64(evaluators["core"].Rules()), "core-rules")
	b.ReportMetric(float64(evaluators["sections"].Rules()), "sections-rules")
	b.ReportMetric(float64(series), "series")
	b.Logf("%d GPUs, fleet loaded in %s, fabric in %s; the sections' slowest rules: %v", len(gpus), loadTime.Round(time.Second), fabricLoad.Round(time.Second), last.Slowest)
}

// readNames are the metrics a plan's rules read, by name.
func readNames(b *testing.B, p *plan.Plan) map[string]bool {
	b.Helper()
	read := map[string]bool{}
	for _, e := range p.RuleExprs() {
		names, err := promql.MetricNames(e)
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range names {
			read[n] = true
		}
	}
	return read
}

// planOf loads a catalog (the embedded one when config is "") and builds its plan.
func planOf(b *testing.B, config string) *plan.Plan {
	b.Helper()
	m, err := catalog.Load(catalog.Options{ConfigPath: config})
	if err != nil {
		b.Fatal(err)
	}
	p, err := plan.Build(m)
	if err != nil {
		b.Fatal(err)
	}
	return p
}
