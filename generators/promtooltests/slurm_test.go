package promtooltests_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/promql/ruleeval"
	"github.com/gpuobs/gpuobs/internal/synth"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

// kubernetesRead finds a read of a Kubernetes series (kube-state-metrics' kube_*, not gpuobs'
// own records such as cluster:kube_gpu_allocatable:sum) or a kubectl command.
var kubernetesRead = regexp.MustCompile(`(^|[^:a-z_])kube_[a-z_]+|kubectl`)

// TestSlurmReadsNoKubernetes: a Slurm fleet runs no kube-state-metrics and no kubectl, so
// nothing gpuobs generates for it (rules, dashboards, runbooks, Alertmanager) reads a kube_*
// series or tells anyone to run kubectl; on the plain Slurm catalog and on a lab's own (labels
// and teams renamed, other sources, sections off). Left out: the generated promtool tests (a
// shared case may feed a series nobody reads) and docs/catalog.md, whose metric table lists
// every series lint knows.
func TestSlurmReadsNoKubernetes(t *testing.T) {
	for _, config := range []string{"testdata/slurm.jsonnet", "testdata/slurm-adopter.jsonnet"} {
		t.Run(filepath.Base(config), func(t *testing.T) {
			dir := generateInto(t, config)
			found := 0
			err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() || skipped(mustRel(t, dir, path)) {
					return err
				}
				b, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				for i, line := range strings.Split(string(b), "\n") {
					if m := kubernetesRead.FindString(line); m != "" {
						found++
						t.Errorf("%s:%d reads %q on a Slurm fleet", mustRel(t, dir, path), i+1, strings.TrimLeft(m, " ({,"))
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if found == 0 && !strings.Contains(readAll(t, filepath.Join(dir, "rules", "alerts.yaml")), "slurm_node_gpus") {
				t.Error("the Slurm catalog's alerts read no slurm_node_gpus: the check would pass on nothing")
			}
		})
	}
}

func skipped(rel string) bool {
	rel = filepath.ToSlash(rel)
	return strings.HasPrefix(rel, "tests/") || rel == "docs/catalog.md"
}

func mustRel(t *testing.T, base, path string) string {
	t.Helper()
	rel, err := filepath.Rel(base, path)
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

func readAll(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSlurmNodeNamesMapToHosts: a lab whose Slurm names its nodes by their full name while the
// exporter sends the short host name (slurm.hostFromNode in slurm-adopter.jsonnet) gets its
// lost GPU, and the node records, on the exporter's host: Prometheus' own engine evaluates the
// generated rules over a node Slurm lends two GPUs on, one of which reports.
func TestSlurmNodeNamesMapToHosts(t *testing.T) {
	const config = "testdata/slurm-adopter.jsonnet"
	p, err := plantest.Load(config)
	if err != nil {
		t.Fatal(err)
	}
	m := p.Model
	dir := generateInto(t, config)
	store, err := ruleeval.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	const step, samples = int64(60_000), 11
	at := time.UnixMilli(step * (samples - 1))
	gpu := synth.GPU{Cluster: "prod", Host: "gpu-017", Instance: "10.0.0.17:9400", Model: synth.ModelName}
	one := func(int) float64 { return 1 }
	for _, e := range gpu.SeriesOf(m, m.Exporter.HealthFields[0]) {
		if err := store.AddSeries(m.Exporter.HealthFields[0], e.Labels, 0, step, samples, func(int) float64 { return 60 }); err != nil {
			t.Fatal(err)
		}
	}
	lent := map[string]string{m.Labels.Cluster: "prod", "job": m.Slurm.Job, m.Slurm.NodeLabel: "gpu-017.cluster.lab.example"}
	if err := store.AddSeries("slurm_node_gpus", lent, 0, step, samples, func(int) float64 { return 2 }); err != nil {
		t.Fatal(err)
	}
	if err := store.AddSeries("up", gpu.UpLabels(m), 0, step, samples, one); err != nil {
		t.Fatal(err)
	}
	if err := store.Commit(); err != nil {
		t.Fatal(err)
	}
	ev, err := store.LoadRuleFiles(filepath.Join(dir, output.RecordingRules), filepath.Join(dir, output.AlertRules))
	if err != nil {
		t.Fatal(err)
	}
	if got := ev.Evaluate(at, false); len(got.Failed) > 0 {
		t.Fatalf("rules failed: %v", got.Failed)
	}
	got, err := store.Instant(p.Alerts["GPUSlurmNodeGPUsMissing"].Expr, at)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Labels[m.Labels.Host] != "gpu-017" || got[0].Value != 1 {
		t.Errorf("GPUSlurmNodeGPUsMissing over a node Slurm names gpu-017.cluster.lab.example = %v, want one GPU missing on host gpu-017", got)
	}
	// The node records name the node as the exporter does: L2 drills from them to L3's host.
	lentByNode, err := store.Instant("node:kube_gpu_allocatable:sum", at)
	if err != nil {
		t.Fatal(err)
	}
	if len(lentByNode) != 1 || lentByNode[0].Labels[m.Labels.Node] != "gpu-017" || lentByNode[0].Value != 2 {
		t.Errorf("node:kube_gpu_allocatable:sum = %v, want 2 GPUs on node gpu-017", lentByNode)
	}
}
