//go:build bench

package bench

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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
	build(b, bin, "../cmd/gpuobs")
	var peak, peakAnon int64
	for b.Loop() {
		cmd := exec.Command(bin, "backtest", "--data", data, "--allow-missing", "--base", "..", "..")
		cmd.Stderr = os.Stderr
		cmd.Stdout = io.Discard
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		anon := sampleAnonymousMemory(cmd.Process.Pid)
		if err := cmd.Wait(); err != nil {
			b.Fatalf("gpuobs backtest: %v", err)
		}
		peakAnon = max(peakAnon, <-anon)
		if usage, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			peak = max(peak, usage.Maxrss)
		}
	}
	perRun := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(perRun.Seconds(), "s/backtest")
	b.ReportMetric(float64(hours*60)/perRun.Seconds(), "data-min/s")
	b.ReportMetric(float64(len(gpus)), "GPUs")
	b.ReportMetric(float64(peak)/1024, "peak-RSS-MiB")
	b.ReportMetric(float64(peakAnon)/1024, "peak-anon-MiB")
}

// sampleAnonymousMemory reads a process' anonymous resident memory (RssAnon, KiB) every
// second until it exits, then sends the highest seen. The peak RSS also counts the pages of
// the TSDB files the process has mapped and read, which the kernel reclaims as it needs to;
// the anonymous part is what the process holds.
func sampleAnonymousMemory(pid int) <-chan int64 {
	out := make(chan int64, 1)
	go func() {
		var peak int64
		// The file is gone once the process has exited and been waited for.
		for status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil; status, err = os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)) {
			for _, line := range strings.Split(string(status), "\n") {
				if rest, ok := strings.CutPrefix(line, "RssAnon:"); ok {
					kib, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
					peak = max(peak, kib)
				}
			}
			time.Sleep(time.Second)
		}
		out <- peak
	}()
	return out
}

// writeFleetBlocks records the fleet's series, one sample a minute for the given minutes, and
// writes them as blocks into dir as a Prometheus snapshot holds them: half a day at a time, as
// the store takes a series' samples only within half its one-day block of its newest sample
// (and writing holds half a day in memory).
func writeFleetBlocks(b *testing.B, p *plan.Plan, gpus []synth.GPU, dir string, minutes int) {
	b.Helper()
	fields := usedFields(b, p)
	const halfDay = 12 * 60
	for first := 0; first < minutes; first += halfDay {
		store, err := ruleeval.OpenStore(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		start := int64(first) * time.Minute.Milliseconds()
		if err := load(store, p.Model, gpus, fields, start, time.Minute.Milliseconds(), first, min(halfDay, minutes-first)); err != nil {
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
