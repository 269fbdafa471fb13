package bench

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpuobs/gpuobs/generators"
	"github.com/gpuobs/gpuobs/generators/rules"
	"github.com/gpuobs/gpuobs/internal/catalog"
	"github.com/gpuobs/gpuobs/internal/conventions"
	"github.com/gpuobs/gpuobs/internal/promql/ruleeval"
)

// BenchmarkGenerate measures gpuobs generate on the embedded catalog, Jsonnet evaluation
// included, and reports the cost per emitted rule.
func BenchmarkGenerate(b *testing.B) {
	rulesEmitted := 0
	for b.Loop() {
		m, err := catalog.Load(catalog.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := generators.Run(m, generators.Options{}); err != nil {
			b.Fatal(err)
		}
		if rulesEmitted == 0 {
			set, _ := rules.Build(m)
			rulesEmitted = len(set.Recorded) + len(set.Alerts)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rulesEmitted), "ns/rule")
	b.ReportMetric(float64(rulesEmitted), "rules")
}

// benchGPUs is the fleet size; GPUOBS_BENCH_GPUS overrides it.
func benchGPUs(b *testing.B) int {
	if v := os.Getenv("GPUOBS_BENCH_GPUS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatal(err)
		}
		return n
	}
	return 10240
}

// BenchmarkRuleEvaluation evaluates every generated rule group once, with Prometheus' own rule
// manager and engine, over 70 minutes of 30 s samples from a fleet shaped like
// dcgm-exporter's output (10,240 GPUs by default).
func BenchmarkRuleEvaluation(b *testing.B) {
	m, err := catalog.Load(catalog.Options{})
	if err != nil {
		b.Fatal(err)
	}
	set, err := rules.Build(m)
	if err != nil {
		b.Fatal(err)
	}
	var exprs []string
	for _, r := range set.Recorded {
		exprs = append(exprs, r.Expr)
	}
	for _, a := range m.Alerts {
		exprs = append(exprs, a.Expr)
	}
	fields, err := collectedFields(m, exprs)
	if err != nil {
		b.Fatal(err)
	}
	store, err := ruleeval.OpenStore(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	const step, samples = int64(30_000), 141 // 70 minutes at 30 s
	loadStart := time.Now()
	gpus := fleet(benchGPUs(b))
	if err := load(store, m, gpus, fields, 0, step, samples); err != nil {
		b.Fatal(err)
	}
	fleetSeries := store.SeriesCount()
	loadTime := time.Since(loadStart)

	ev, err := store.LoadRuleFiles(filepath.Join("..", rules.RecordingFile), filepath.Join("..", rules.AlertsFile))
	if err != nil {
		b.Fatal(err)
	}
	at := time.UnixMilli(step * (samples - 1))
	// Prometheus evaluates in steady state, where the recorded series exist already: the first
	// evaluation, which creates them, is not timed.
	first := ev.Evaluate(at, false)
	if len(first.Failed) > 0 {
		b.Fatalf("rules failed: %v", first.Failed)
	}
	gpuSeries, err := store.Query(`count(`+conventions.GPUInfo+`)`, at)
	if err != nil {
		b.Fatal(err)
	}
	if gpuSeries == "" || !strings.Contains(gpuSeries, strconv.Itoa(len(gpus)+len(gpus)/(gpusPerNode*migEvery)*gpusPerNode)) {
		b.Fatalf("count(%s) = %q: the rules did not record one series per GPU and MIG instance", conventions.GPUInfo, gpuSeries)
	}
	// Each evaluation is at a new timestamp, as in a running Prometheus (samples at a repeated
	// timestamp take the duplicate path); a second apart, the raw data is the same.
	next := at
	for _, mode := range []struct {
		name       string
		concurrent bool
	}{{"sequential", false}, {"concurrent", true}} {
		b.Run(mode.name, func(b *testing.B) {
			var last ruleeval.Evaluation
			for b.Loop() {
				next = next.Add(time.Second)
				last = ev.Evaluate(next, mode.concurrent)
			}
			if len(last.Failed) > 0 {
				b.Fatalf("rules failed: %v", last.Failed)
			}
			perEval := b.Elapsed() / time.Duration(b.N)
			b.ReportMetric(float64(perEval.Milliseconds()), "ms/eval")
			b.ReportMetric(float64(perEval.Microseconds())/1000/float64(ev.Rules()), "ms/rule")
			b.ReportMetric(float64(ev.Rules()), "rules")
			b.ReportMetric(float64(len(gpus)), "GPUs")
			b.ReportMetric(float64(fleetSeries), "series")
			b.Logf("%d fields a GPU, fleet loaded in %s; slowest rules: %v", len(fields), loadTime.Round(time.Second), last.Slowest)
		})
	}
}
