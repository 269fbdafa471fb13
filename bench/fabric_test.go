//go:build bench

package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpuobs/gpuobs/internal/catalog"
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/promql/ruleeval"
	"github.com/gpuobs/gpuobs/internal/synth"
)

// fabricFanouts are the NCCL Inspector fan-outs the fabric benchmark runs at: the series one
// rank writes per metric, as communicators × collectives × message sizes. Plain data-parallel
// training writes a few (one communicator), the catalog's default 24 stands for 3D
// parallelism, and a mixture-of-experts job's all-to-all moves many message sizes.
var fabricFanouts = []struct {
	name   string
	fanout map[string]int
}{
	{"fanout=6", map[string]int{"comm_name": 1, "collective": 2, "message_size": 3}},
	{"fanout=24", map[string]int{"comm_name": 4, "collective": 2, "message_size": 3}},
	{"fanout=96", map[string]int{"comm_name": 4, "collective": 2, "message_size": 12}},
}

// trainingFabric is the embedded catalog with its InfiniBand and NCCL Inspector sections on,
// the inspector's metrics at fanout.
func trainingFabric(fanout map[string]int) string {
	set := fmt.Sprintf("{ fanout: { comm_name: %d, collective: %d, message_size: %d } }", fanout["comm_name"], fanout["collective"], fanout["message_size"])
	return "(import 'gpuobs.libsonnet') + { enabled+: { infiniband: true, nccl: true }, metrics+: { " +
		"nccl_collective_exec_time_microseconds+: " + set + ", nccl_bus_bandwidth_gbs+: " + set + " } }\n"
}

// BenchmarkTrainingFabricEvaluation measures what the infiniband and nccl sections add to
// rule evaluation, at each of fabricFanouts: over one store holding the fleet (10,240 GPUs by
// default) and its training fabric (every node's InfiniBand ports, every pod's NCCL Inspector
// series at the fan-out, the pods' training-job owners), the embedded catalog's rules and the
// same catalog's with both sections on are evaluated in turn, sequentially, in one loop. It
// reports what the sections add in seconds an evaluation against one plain read of an
// inspector metric over the same store (read-multiple), per inspector series (µs), and the
// share of its interval the slowest group of the sections' rules takes.
func BenchmarkTrainingFabricEvaluation(b *testing.B) {
	core := planOf(b, "")
	gpus := fleet(benchGPUs(b))
	for _, f := range fabricFanouts {
		b.Run(f.name, func(b *testing.B) { benchmarkFabric(b, core, gpus, f.fanout) })
	}
}

// benchmarkFabric is BenchmarkTrainingFabricEvaluation at one fan-out.
func benchmarkFabric(b *testing.B, core *plan.Plan, gpus []synth.GPU, fanout map[string]int) {
	config := filepath.Join(b.TempDir(), "gpuobs.jsonnet")
	if err := os.WriteFile(config, []byte(trainingFabric(fanout)), 0o644); err != nil {
		b.Fatal(err)
	}
	sections := planOf(b, config)

	store, _, loadTime := fleetStore(b, sections, gpus)
	begin := time.Now()
	if err := loadFabric(store, sections.Model, gpus, readNames(b, sections), 0, sampleStep, sampleCount); err != nil {
		b.Fatal(err)
	}
	fabricLoad := time.Since(begin)

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
	// One plain read of an inspector metric: the floor any rule over the ranks pays.
	read := `count(nccl_collective_exec_time_microseconds{job="` + nodeExporterJob + `"})`
	ranks, err := store.Instant(read, at)
	if err != nil || len(ranks) != 1 {
		b.Fatalf("%s = %v, %v", read, ranks, err)
	}
	inspectorSeries := 2 * ranks[0].Value // the execution time and the bus bandwidth

	var spent [3]time.Duration
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
		t0 := time.Now()
		if _, err := store.Instant(read, at); err != nil {
			b.Fatal(err)
		}
		spent[2] += time.Since(t0)
	}
	perEvaluation := func(i int) float64 { return spent[i].Seconds() / float64(b.N) }
	added := perEvaluation(1) - perEvaluation(0)
	b.ReportMetric(added, "added-s/eval")
	b.ReportMetric(perEvaluation(2), "plain-read-s")
	b.ReportMetric(added/perEvaluation(2), "added/plain-read")
	b.ReportMetric(added*1e6/inspectorSeries, "added-µs/inspector-series")
	b.ReportMetric(last.SlowestGroupShare, "slowest-group/interval")
	b.ReportMetric(perEvaluation(1)/perEvaluation(0), "sections/core")
	b.ReportMetric(inspectorSeries, "inspector-series")
	b.Logf("%d GPUs, fleet loaded in %s, fabric in %s; slowest group %s (%s); the sections' slowest rules: %v",
		len(gpus), loadTime.Round(time.Second), fabricLoad.Round(time.Second), last.SlowestGroup, last.SlowestGroupDuration.Round(time.Millisecond), last.Slowest)
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
