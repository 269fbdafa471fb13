package bench

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// BenchmarkGenerateProcess runs gpuobs generate as a user does, one process per run, and
// reports the CPU it costs (user + system, from the kernel, the catalog's child evaluator
// included): on the embedded catalog and on the init starter (a team's catalog file), each
// cold (an empty evaluation cache: Jsonnet evaluates the catalog) and warm (the catalog
// unchanged since the last run). With GPUOBS_BENCH_MIXIN naming a checkout of
// kubernetes-mixin with its vendor/ directory, the same loop evaluates its alerts, rules and
// dashboards with go-jsonnet's own command, for a ratio measured side by side.
func BenchmarkGenerateProcess(b *testing.B) {
	dir := b.TempDir()
	bin, jsonnet := filepath.Join(dir, "gpuobs"), filepath.Join(dir, "jsonnet")
	build(b, bin, "../cmd/gpuobs")
	starter := filepath.Join(dir, "gpuobs.jsonnet")
	run(b, exec.Command(bin, "init", "-f", starter))
	mixin := os.Getenv("GPUOBS_BENCH_MIXIN")
	if mixin != "" {
		build(b, jsonnet, "github.com/google/go-jsonnet/cmd/jsonnet")
	}
	generate := func(cache string, args ...string) *exec.Cmd {
		cmd := exec.Command(bin, append([]string{"generate", "-o", b.TempDir()}, args...)...)
		cmd.Env = append(os.Environ(), "GPUOBS_CACHE="+cache)
		return cmd
	}
	// The warm runs find the catalogs evaluated before the loop: every one of them is a hit.
	warm := b.TempDir()
	run(b, generate(warm))
	run(b, generate(warm, "-c", starter))
	var embeddedCold, embeddedWarm, ownCold, ownWarm, mixinCPU time.Duration
	for b.Loop() {
		embeddedCold += run(b, generate(b.TempDir()))
		embeddedWarm += run(b, generate(warm))
		ownCold += run(b, generate(b.TempDir(), "-c", starter))
		ownWarm += run(b, generate(warm, "-c", starter))
		if mixin != "" {
			for _, part := range []string{"prometheusAlerts", "prometheusRules", "grafanaDashboards"} {
				cmd := exec.Command(jsonnet, "-J", "vendor", "-e", `(import "mixin.libsonnet").`+part)
				cmd.Dir = mixin
				mixinCPU += run(b, cmd)
			}
		}
	}
	perRun := func(d time.Duration) float64 { return d.Seconds() / float64(b.N) }
	b.ReportMetric(perRun(embeddedCold), "embedded-cold-cpu-s")
	b.ReportMetric(perRun(embeddedWarm), "embedded-warm-cpu-s")
	b.ReportMetric(perRun(ownCold), "own-cold-cpu-s")
	b.ReportMetric(perRun(ownWarm), "own-warm-cpu-s")
	if mixin != "" {
		b.ReportMetric(perRun(mixinCPU), "kubernetes-mixin-cpu-s")
		b.ReportMetric(float64(mixinCPU)/float64(ownWarm), "mixin/own-warm")
		b.ReportMetric(float64(mixinCPU)/float64(ownCold), "mixin/own-cold")
	}
}

// build compiles a Go command into bin.
func build(b *testing.B, bin, pkg string) {
	b.Helper()
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		b.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
}

// run runs cmd to its end and returns the CPU it and its children used.
func run(b *testing.B, cmd *exec.Cmd) time.Duration {
	b.Helper()
	_, usage := execute(b, cmd)
	return time.Duration(usage.Utime.Nano() + usage.Stime.Nano())
}

// execute runs cmd to its end and returns its wall time and resource usage; the exit statuses
// in findings report findings (promtool's 1, gpuobs lint's 3), not a failure.
func execute(b *testing.B, cmd *exec.Cmd, findings ...int) (time.Duration, *syscall.Rusage) {
	b.Helper()
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil && !slices.Contains(findings, cmd.ProcessState.ExitCode()) {
		b.Fatalf("%s: %v", cmd, err)
	}
	usage, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		b.Fatal("no resource usage")
	}
	return wall, usage
}
