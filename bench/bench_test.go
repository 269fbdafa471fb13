//go:build bench

package bench

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpuobs/gpuobs/generators"
	"github.com/gpuobs/gpuobs/internal/catalog"
	"github.com/gpuobs/gpuobs/internal/conventions"
	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/promql/ruleeval"
	"github.com/gpuobs/gpuobs/internal/synth"
)

// BenchmarkGenerate measures gpuobs generate on the embedded catalog and reports, per emitted
// rule: the whole run (load, plan built once, every output rendered), its Jsonnet share (load:
// evaluation, decoding, validation), and the same outputs derived the way gpuobs did before the
// plan stage: each consumer (every generator, and the CLI's exporter check) deriving again.
// All three come from one loop, so their ratio holds on any machine.
func BenchmarkGenerate(b *testing.B) {
	rulesEmitted := 0
	var load, once, perOutput time.Duration
	for b.Loop() {
		t0 := time.Now()
		m, err := catalog.Load(catalog.Options{})
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		p, err := plan.Build(m)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := generators.Run(p, generators.Options{}); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		if err := derivedPerOutput(m); err != nil {
			b.Fatal(err)
		}
		load, once, perOutput = load+t1.Sub(t0), once+t2.Sub(t1), perOutput+time.Since(t2)
		rulesEmitted = len(p.Recorded) + len(p.Alerts)
	}
	perRule := func(d time.Duration) float64 {
		return float64(d.Microseconds()) / 1000 / float64(b.N) / float64(rulesEmitted)
	}
	b.ReportMetric(perRule(load+once), "ms/rule")
	b.ReportMetric(perRule(load), "jsonnet-ms/rule")
	b.ReportMetric(perRule(once), "plan-once-ms/rule")
	b.ReportMetric(perRule(perOutput), "per-output-ms/rule")
	b.ReportMetric(float64(perOutput)/float64(once), "per-output/once")
	b.ReportMetric(float64(rulesEmitted), "rules")
}

// derivedPerOutput renders every output the way gpuobs did before the plan stage: each
// generator, run concurrently as generators.Run does, derives for itself, and the CLI derives
// once more for its exporter warning.
func derivedPerOutput(m *model.Model) error {
	all := generators.All(generators.Options{})
	errs := make([]error, len(all)+1)
	var wg sync.WaitGroup
	for i, g := range all {
		wg.Go(func() {
			p, err := plan.Build(m)
			if err == nil {
				_, err = g.Generate(p)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	p, err := plan.Build(m)
	if err == nil {
		p.Missing()
	}
	errs[len(all)] = err
	return errors.Join(errs...)
}

// benchGPUs is the fleet size; GPUOBS_BENCH_GPUS overrides it.
func benchGPUs(b *testing.B) int { return envInt(b, "GPUOBS_BENCH_GPUS", 10240) }

// envInt reads a whole number from the environment, or def when it is not set.
func envInt(b *testing.B, name string, def int) int {
	b.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		b.Fatalf("%s: %v", name, err)
	}
	return n
}

// BenchmarkRuleEvaluation evaluates every generated rule group once, with Prometheus' own rule
// manager and engine, over 70 minutes of 30 s samples from a fleet shaped like
// dcgm-exporter's output (10,240 GPUs by default), under each scheduler side by side:
// Kubernetes (kube-state-metrics) and Slurm (hpc_job and slurmctld's counts).
func BenchmarkRuleEvaluation(b *testing.B) {
	for _, scheduler := range []model.Scheduler{model.SchedulerKubernetes, model.SchedulerSlurm} {
		b.Run(string(scheduler), func(b *testing.B) { ruleEvaluation(b, scheduler) })
	}
}

// ruleEvaluation runs BenchmarkRuleEvaluation on the embedded catalog under a scheduler: on
// Slurm, the same fleet's GPUs held by Slurm jobs (hpc_job), with slurmctld's node counts in
// place of kube-state-metrics. Besides ms/eval it reports the CPU-time of one evaluation per
// input series (µs/series), which stays comparable across fleet sizes.
func ruleEvaluation(b *testing.B, scheduler model.Scheduler) {
	p, ruleFiles := schedulerCatalog(b, scheduler)
	gpus := fleet(benchGPUs(b))
	if scheduler == model.SchedulerSlurm {
		slurmJobs(gpus)
	}
	store, fields, loadTime := fleetStore(b, p, gpus)
	fleetSeries := store.SeriesCount()
	ev, err := store.LoadRuleFiles(ruleFiles...)
	if err != nil {
		b.Fatal(err)
	}
	first := ev.Evaluate(evalAt, false)
	if len(first.Failed) > 0 {
		b.Fatalf("rules failed: %v", first.Failed)
	}
	gpuSeries, err := store.Query(`count(`+conventions.GPUInfo+`)`, evalAt)
	if err != nil {
		b.Fatal(err)
	}
	if gpuSeries == "" || !strings.Contains(gpuSeries, strconv.Itoa(len(gpus)+len(gpus)/(gpusPerNode*migEvery)*gpusPerNode)) {
		b.Fatalf("count(%s) = %q: the rules did not record one series per GPU and MIG instance", conventions.GPUInfo, gpuSeries)
	}
	next := evalAt
	for _, mode := range []struct {
		name       string
		concurrent bool
	}{{"sequential", false}, {"concurrent", true}} {
		b.Run(mode.name, func(b *testing.B) {
			last := steadyState(b, ev, &next, mode.concurrent)
			b.ReportMetric(float64(len(gpus)), "GPUs")
			b.ReportMetric(float64(fleetSeries), "series")
			b.ReportMetric(float64((b.Elapsed()/time.Duration(b.N)).Nanoseconds())/1000/float64(fleetSeries), "µs/series")
			b.Logf("%d fields a GPU, fleet loaded in %s; slowest rules: %v", len(fields), loadTime.Round(time.Second), last.Slowest)
		})
	}
}

// schedulerCatalog is the plan of the embedded catalog under a scheduler, and its rule files:
// the repository's own for Kubernetes, generated into a temporary directory for Slurm.
func schedulerCatalog(b *testing.B, scheduler model.Scheduler) (*plan.Plan, []string) {
	b.Helper()
	if scheduler == model.SchedulerKubernetes {
		return planOf(b, ""), []string{filepath.Join("..", output.RecordingRules), filepath.Join("..", output.AlertRules)}
	}
	dir := b.TempDir()
	config := filepath.Join(dir, "gpuobs.jsonnet")
	if err := os.WriteFile(config, []byte("(import 'gpuobs.libsonnet') { scheduler: '"+string(scheduler)+"' }\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	p := planOf(b, config)
	files, managed, err := generators.Run(p, generators.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if err := emit.Write(dir, files, managed); err != nil {
		b.Fatal(err)
	}
	return p, []string{filepath.Join(dir, output.RecordingRules), filepath.Join(dir, output.AlertRules)}
}

// The fleet's samples: 70 minutes at 30 s; rules are evaluated at the last sample.
const (
	sampleStep, sampleCount = int64(30_000), 141
)

var evalAt = time.UnixMilli(sampleStep * (sampleCount - 1))

// fleetStore loads a TSDB with the GPUs' series: the exporter's default counter set plus every
// field the plan's rules read, and kube-state-metrics' series.
func fleetStore(b *testing.B, p *plan.Plan, gpus []synth.GPU) (*ruleeval.Store, []string, time.Duration) {
	b.Helper()
	fields := usedFields(b, p)
	store := openStore(b)
	begin := time.Now()
	if err := load(store, p.Model, gpus, fields, 0, sampleStep, 0, sampleCount); err != nil {
		b.Fatal(err)
	}
	return store, fields, time.Since(begin)
}

// usedFields are the fields a fleet's GPUs send: the exporter's default counter set plus
// every field the plan's rules read.
func usedFields(b *testing.B, p *plan.Plan) []string {
	b.Helper()
	fields, err := collectedFields(p.Model, p.RuleExprs())
	if err != nil {
		b.Fatal(err)
	}
	return fields
}

// openStore opens an empty TSDB, closed when the benchmark ends.
func openStore(b *testing.B) *ruleeval.Store {
	b.Helper()
	store, err := ruleeval.OpenStore(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := store.Close(); err != nil {
			b.Error(err)
		}
	})
	return store
}

// steadyState times evaluations of every group as Prometheus runs them in steady state, where
// the recorded series exist already (the caller evaluated once): each at a new timestamp (a
// repeated one takes the duplicate path), a second apart, so the raw data is the same. It
// reports ms/eval, ms/rule and rules, and returns the last evaluation.
func steadyState(b *testing.B, ev *ruleeval.Evaluator, next *time.Time, concurrent bool) ruleeval.Evaluation {
	b.Helper()
	var last ruleeval.Evaluation
	for b.Loop() {
		*next = next.Add(time.Second)
		last = ev.Evaluate(*next, concurrent)
	}
	if len(last.Failed) > 0 {
		b.Fatalf("rules failed: %v", last.Failed)
	}
	perEval := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(perEval.Milliseconds()), "ms/eval")
	b.ReportMetric(float64(perEval.Microseconds())/1000/float64(ev.Rules()), "ms/rule")
	b.ReportMetric(float64(ev.Rules()), "rules")
	return last
}
