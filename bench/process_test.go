//go:build bench

package bench

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
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
			cmd := exec.Command(jsonnet, "-J", "vendor", "-e", mixinSnippet)
			cmd.Dir = mixin
			mixinCPU += run(b, cmd)
		}
	}
	perRun := func(d time.Duration) float64 { return d.Seconds() / float64(b.N) }
	b.ReportMetric(perRun(embeddedCold), "embedded-cold-cpu-s")
	b.ReportMetric(perRun(embeddedWarm), "embedded-warm-cpu-s")
	b.ReportMetric(perRun(ownCold), "own-cold-cpu-s")
	b.ReportMetric(perRun(ownWarm), "own-warm-cpu-s")
	if mixin != "" {
		// Per item: a rule or a panel, what both generate (gpuobs' runbooks, tests and counter
		// file come on top).
		mixinItems, ownItems := float64(mixinRules+mixinPanels), float64(items(b, bin, starter))
		perItem := func(own time.Duration) float64 {
			return (mixinCPU.Seconds() / mixinItems) / (own.Seconds() / ownItems)
		}
		b.ReportMetric(perRun(mixinCPU), "kubernetes-mixin-cpu-s")
		b.ReportMetric(perItem(ownWarm), "mixin/own-warm-per-item")
		b.ReportMetric(perItem(ownCold), "mixin/own-cold-per-item")
		b.ReportMetric(perItem(embeddedCold), "mixin/embedded-cold-per-item")
	}
}

// mixinSnippet evaluates kubernetes-mixin's alerts, rules and dashboards in one process, as a
// team's CI renders them; mixinRules and mixinPanels count what it yields at aa38e2b (65 alerts
// and 71 records; 254 panels in 23 dashboards).
const (
	mixinSnippet = `local m = import "mixin.libsonnet"; { alerts: m.prometheusAlerts, rules: m.prometheusRules, dashboards: m.grafanaDashboards }`
	mixinRules   = 136
	mixinPanels  = 254
)

// ruleLine starts a rule in a rule file.
var ruleLine = regexp.MustCompile(`(?m)^\s*- (alert|record): `)

// items counts the rules and dashboard panels gpuobs generates from a catalog.
func items(b *testing.B, bin, catalog string) int {
	b.Helper()
	out := b.TempDir()
	run(b, exec.Command(bin, "generate", "-c", catalog, "-o", out))
	n := 0
	for _, pattern := range []string{"rules/*.yaml", "dashboards/*.json"} {
		files, err := filepath.Glob(filepath.Join(out, pattern))
		if err != nil {
			b.Fatal(err)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			if strings.HasSuffix(f, ".yaml") {
				n += len(ruleLine.FindAllIndex(data, -1))
			} else {
				n += strings.Count(string(data), `"gridPos"`) - strings.Count(string(data), `"type": "row"`)
			}
		}
	}
	return n
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
