package promtooltests_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

// TestRealInstallsReplayedHealthy replays scrapes in the shapes real installs send
// (testdata/scrapes: written for gpuobs after public texts) as a healthy fleet for two hours,
// with kube-state-metrics listing the node, and asks promtool which of the generated alerts
// fire. A catalog that says how the fleet is installed raises none; the embedded catalog on
// the same install raises what its picture of the world gets wrong, and says so.
func TestRealInstallsReplayedHealthy(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, scrape, job, catalog string
		// down: the exporter stops being scraped for the last 30 minutes; external: the
		// cluster is an external label of the cluster's Prometheus, not on the series;
		// renamed: an exporter upgrade renames the host label for the last hour.
		down, external, renamed bool
		want                    []string
	}{
		{
			// A vGPU guest sends no temperature: the embedded catalog counts its GPU by it,
			// so the availability SLO reads it as down and pages, and its node as one
			// without an exporter.
			name: "vGPU guest, embedded catalog", scrape: "grid-guest.prom", job: "dcgm-exporter",
			want: []string{"DCGMExporterMissingOnNode", "SLOGPUAvailabilityFastBurn", "SLOGPUAvailabilitySlowBurn"},
		},
		{
			name: "vGPU guest, catalog that says so", scrape: "grid-guest.prom", job: "dcgm-exporter",
			catalog: "exporter+: { vgpuGuests: true, extraCounters: [] }",
		},
		{
			// The GPU Operator's ServiceMonitor names the job nvidia-dcgm-exporter, and its
			// exporter runs the stock counter set: both are said, once per cluster.
			name: "GPU Operator, embedded catalog", scrape: "operator-l4.prom", job: operatorJob,
			want: []string{"DCGMExporterJobMismatch", "DCGMExporterStockCounterSet"},
		},
		{
			name: "GPU Operator, catalog that says so", scrape: "operator-l4.prom", job: operatorJob,
			catalog: "exporter+: { job: 'nvidia-dcgm-exporter', extraCounters: [] }",
		},
		{
			// Its exporter goes down: the embedded catalog watches another job, so the
			// outage reads as a GPU gone, and the availability SLO pages (the job ticket
			// fired for the hour and a half before, and resolves with the series).
			name: "GPU Operator exporter down, embedded catalog", scrape: "operator-l4.prom", job: operatorJob, down: true,
			want: []string{"GPUSeriesMissing", "SLOGPUAvailabilityFastBurn", "SLOGPUAvailabilitySlowBurn"},
		},
		{
			name: "GPU Operator exporter down, catalog that says so", scrape: "operator-l4.prom", job: operatorJob, down: true,
			catalog: "exporter+: { job: 'nvidia-dcgm-exporter', extraCounters: [] }",
			want:    []string{"DCGMExporterDown"},
		},
		{
			// GKE's managed DCGM metrics: another job, a fixed field set, no counter file.
			name: "GKE managed exporter, embedded catalog", scrape: "gke-managed-l4.prom", job: "gke-managed-dcgm-exporter",
			want: []string{"DCGMExporterJobMismatch", "DCGMExporterStockCounterSet"},
		},
		{
			name: "GKE managed exporter, catalog that says so", scrape: "gke-managed-l4.prom", job: "gke-managed-dcgm-exporter",
			catalog: "exporter+: { managed: 'gke' }",
		},
		{
			// kube-prometheus-stack's usual setup: the cluster's name only as an external
			// label. Every exporter reads as one whose series lack a label.
			name: "cluster as an external label, catalog without it", scrape: "operator-l4.prom", job: operatorJob, external: true,
			catalog: "exporter+: { job: 'nvidia-dcgm-exporter', extraCounters: [] }",
			want:    []string{"DCGMExporterLabelMismatch"},
		},
		{
			name: "cluster as an external label, catalog that says so", scrape: "operator-l4.prom", job: operatorJob, external: true,
			catalog: "exporter+: { job: 'nvidia-dcgm-exporter', extraCounters: [] }, topology+: { clusterExternal: true }",
		},
		{
			// An exporter upgrade renames the host label: the mismatch ticket, and the tickets
			// the plan derives a mismatch makes fire for every GPU or node (which it silences),
			// and nothing else (checked below against plan.AbsentByExporterLabels).
			name: "exporter upgrade renames the host label", scrape: "operator-l4.prom", job: operatorJob, renamed: true,
			catalog: "exporter+: { job: 'nvidia-dcgm-exporter', extraCounters: [] }",
			want:    []string{"DCGMExporterLabelMismatch", "DCGMExporterMissingOnNode", "GPUSeriesMissing"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			config := ""
			if c.catalog != "" {
				config = filepath.Join(t.TempDir(), "gpuobs.jsonnet")
				if err := os.WriteFile(config, []byte("(import 'gpuobs.libsonnet') { "+c.catalog+" }\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			dir := generateInto(t, config)
			if got := firingOnReplay(t, dir, filepath.Join("testdata/scrapes", c.scrape), replay{job: c.job, down: c.down, external: c.external, renamed: c.renamed}); !slices.Equal(got, c.want) {
				t.Errorf("alerts firing: %v, want %v", got, c.want)
			}
			if c.renamed {
				p := plantest.Plan(t, config)
				if derived := append([]string{p.Model.Alertmanager.Inhibit.LabelMismatch}, p.AbsentByExporterLabels()...); !slices.Equal(slices.Sorted(slices.Values(derived)), c.want) {
					t.Errorf("the plan derives %v as what a label mismatch makes fire, the replay fires %v", derived, c.want)
				}
			}
		})
	}
}

// operatorJob is the job of the GPU Operator's ServiceMonitor.
const operatorJob = "nvidia-dcgm-exporter"

// replay is how a scrape is replayed: the exporter's job, whether its target is down for the
// last 30 minutes, whether the cluster is an external label instead of a series label, and
// whether the exporter sends its host label under another name for the last hour.
type replay struct {
	job                     string
	down, external, renamed bool
}

// firingOnReplay writes a promtool test that replays a scrape for two hours (three for a
// renamed host label), as Prometheus stores it (the exporter's labels, cluster, job and
// instance added), with the node listed by kube-state-metrics, and returns the alerts of the
// generated rules that fire at its end (or at 2h and 3h for a renamed host label).
func firingOnReplay(t *testing.T, dir, scrape string, r replay) []string {
	t.Helper()
	data, err := os.ReadFile(scrape)
	if err != nil {
		t.Fatal(err)
	}
	samples, err := promql.ParseExposition(data)
	if err != nil {
		t.Fatal(err)
	}
	// Two hours of one-minute samples: the exporter's series, and its up series. A renamed
	// host label is replayed for three: the rename at 90 minutes, then evaluated at 2h (the
	// past hour still holds the old labels) and 3h (it no longer does).
	minutes, evalTimes := 120, []string{"2h"}
	if r.renamed {
		minutes, evalTimes = 180, []string{"2h", "3h"}
	}
	span := fmt.Sprintf("+0x%d", minutes)
	steps, upValues := span, "1"+span
	if r.down {
		steps, upValues = "+0x90 _x30", "1+0x90 0+0x30"
	}
	// Prometheus adds cluster by relabeling, or holds it as an external label.
	group := map[string]any{"name": "replay", "interval": "1m"}
	var input []map[string]string
	add := func(metric, values string, labelSets ...map[string]string) {
		labels := map[string]string{"cluster": "prod"}
		if r.external {
			group["external_labels"] = map[string]string{"cluster": "prod"}
			delete(labels, "cluster")
		}
		for _, l := range labelSets {
			for k, v := range l {
				labels[k] = v
			}
		}
		input = append(input, map[string]string{"series": selector(metric, labels), "values": values})
	}
	target := map[string]string{"job": r.job, "instance": "10.0.0.7:9400"}
	if r.job == operatorJob {
		// The GPU Operator's ServiceMonitor scrapes with honorLabels: true: its target's own
		// pod labels fill in where the exporter sends none, on every GPU no pod holds.
		maps.Copy(target, map[string]string{"namespace": "gpu-operator", "pod": "nvidia-dcgm-exporter-x7k2p",
			"container": "nvidia-dcgm-exporter", "service": "nvidia-dcgm-exporter", "endpoint": "gpu-metrics"})
	}
	host, gpus := "", map[string]bool{}
	for _, s := range samples {
		host, gpus[s.Labels["gpu"]] = s.Labels["Hostname"]+s.Labels["hostname"], true
		value := strconv.FormatFloat(s.Value, 'g', -1, 64)
		if !r.renamed {
			add(s.Metric, value+steps, target, s.Labels)
			continue
		}
		renamed := maps.Clone(s.Labels)
		renamed["node_name"] = renamed["Hostname"]
		delete(renamed, "Hostname")
		add(s.Metric, value+"+0x90 _x90", target, s.Labels)
		add(s.Metric, "_x91 "+value+"+0x89", target, renamed)
	}
	add("up", upValues, target)
	ksm := map[string]string{"job": "kube-state-metrics", "instance": "kube-state-metrics:8080"}
	capacity := map[string]string{"node": host, "resource": "nvidia_com_gpu", "unit": "integer"}
	add("up", "1"+span, ksm)
	add("kube_node_info", "1"+span, ksm, map[string]string{"node": host})
	add("kube_node_status_capacity", strconv.Itoa(len(gpus))+span, ksm, capacity)
	add("kube_node_status_allocatable", strconv.Itoa(len(gpus))+span, ksm, capacity)
	slices.SortFunc(input, func(a, b map[string]string) int { return strings.Compare(a["series"], b["series"]) })

	rules, alerts := generatedRules(t, dir)
	var checks []map[string]any
	for _, a := range alerts {
		for _, at := range evalTimes {
			checks = append(checks, map[string]any{"eval_time": at, "alertname": a, "exp_alerts": []any{}})
		}
	}
	group["input_series"], group["alert_rule_test"] = input, checks
	test := map[string]any{
		"rule_files":          rules,
		"evaluation_interval": "1m",
		"tests":               []any{group},
	}
	b, err := yaml.Marshal(test)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "replay.test.yaml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := promtoolTest(t, dir, "replay.test.yaml", nil)
	if err != nil && !strings.Contains(out, "FAILED") {
		t.Fatalf("promtool: %v\n%s", err, out)
	}
	var firing []string
	for _, m := range regexp.MustCompile(`(?m)^\s+alertname: (\w+), time: [23]h`).FindAllStringSubmatch(out, -1) {
		firing = append(firing, m[1])
	}
	slices.Sort(firing)
	return slices.Compact(firing)
}

// selector writes a series as promtool's input reads it.
func selector(name string, labels map[string]string) string {
	var pairs []string
	for k, v := range labels {
		pairs = append(pairs, k+"="+strconv.Quote(v))
	}
	slices.Sort(pairs)
	return name + "{" + strings.Join(pairs, ", ") + "}"
}

// generatedRules are the rule files of the generated output (relative to it) and the alerts
// they hold.
func generatedRules(t *testing.T, dir string) ([]string, []string) {
	t.Helper()
	var files, alerts []string
	for _, name := range []string{"rules/recording.yaml", "rules/alerts.yaml", "rules/slos.yaml"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, name)
		for _, m := range regexp.MustCompile(`(?m)^\s+- alert: (\S+)$`).FindAllSubmatch(b, -1) {
			alerts = append(alerts, string(m[1]))
		}
	}
	slices.Sort(alerts)
	return files, slices.Compact(alerts)
}
