package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/gpuobs/gpuobs/internal/catalog"
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/promql/ruleeval"
	"github.com/gpuobs/gpuobs/internal/synth"
)

// BenchmarkBacktest runs gpuobs backtest (the built binary, in its own process) on the
// checked-in rules, base and head side by side as for a pull request, over TSDB blocks of a
// fleet (GPUOBS_BACKTEST_GPUS, 1,000 by default) recorded for GPUOBS_BACKTEST_HOURS (a week by
// default) at one sample a minute. It reports the time per backtest, minutes of data replayed
// per second, and the backtest process' peak resident memory. With GPUOBS_BACKTEST_DATA set,
// the blocks are written there once and reused.
func BenchmarkBacktest(b *testing.B) {
	m, err := catalog.Load(catalog.Options{})
	if err != nil {
		b.Fatal(err)
	}
	p, err := plan.Build(m)
	if err != nil {
		b.Fatal(err)
	}
	gpus := fleet(envInt(b, "GPUOBS_BACKTEST_GPUS", 1000))
	hours := envInt(b, "GPUOBS_BACKTEST_HOURS", 7*24)
	data := os.Getenv("GPUOBS_BACKTEST_DATA")
	if data == "" {
		data = b.TempDir()
	}
	if entries, _ := os.ReadDir(data); len(entries) == 0 {
		begin := time.Now()
		writeFleetBlocks(b, p, gpus, data, hours*60)
		b.Logf("%d GPUs, %d hours written as blocks in %s", len(gpus), hours, time.Since(begin).Round(time.Second))
	}
	bin := filepath.Join(b.TempDir(), "gpuobs")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/gpuobs").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	var peak int64
	for b.Loop() {
		cmd := exec.Command(bin, "backtest", "--data", data, "--allow-missing", "--base", "..", "..")
		cmd.Stderr = os.Stderr
		if out, err := cmd.Output(); err != nil {
			b.Fatalf("gpuobs backtest: %v\n%s", err, out)
		}
		if usage, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			peak = max(peak, usage.Maxrss)
		}
	}
	perRun := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(perRun.Seconds(), "s/backtest")
	b.ReportMetric(float64(hours*60)/perRun.Seconds(), "data-min/s")
	b.ReportMetric(float64(len(gpus)), "GPUs")
	b.ReportMetric(float64(peak)/1024, "peak-RSS-MiB")
}

// writeFleetBlocks records the fleet's series, one sample a minute for the given minutes, and
// writes them as blocks into dir as a Prometheus snapshot holds them: a day at a time, so that
// writing holds one day in memory.
func writeFleetBlocks(b *testing.B, p *plan.Plan, gpus []synth.GPU, dir string, minutes int) {
	b.Helper()
	fields := usedFields(b, p)
	const day = 24 * 60
	for first := 0; first < minutes; first += day {
		store, err := ruleeval.OpenStore(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		start := int64(first) * time.Minute.Milliseconds()
		if err := load(store, p.Model, gpus, fields, start, time.Minute.Milliseconds(), first, min(day, minutes-first)); err != nil {
			b.Fatal(err)
		}
		if err := store.Snapshot(dir); err != nil {
			b.Fatal(err)
		}
		if err := store.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
