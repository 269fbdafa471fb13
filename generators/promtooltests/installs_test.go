package promtooltests_test

import (
	"fmt"
	"github.com/gpuobs/gpuobs/internal/testutil"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gpuobs/gpuobs/internal/cli"
	"github.com/gpuobs/gpuobs/internal/conventions"
	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

// TestRealInstallsReplayedHealthy replays scrapes in the shapes real installs send
// (testdata/scrapes: written for gpuobs after public texts) as a healthy fleet for three
// hours, with kube-state-metrics listing the node, and asks promtool which of the generated
// alerts fire, for the installs that need a setting of the catalog: the exporter down, the
// cluster as an external label, an exporter upgrade that renames the host label, GKE's
// managed exporter. A catalog that says how the fleet is installed raises none; the embedded
// catalog on the same install raises what its picture of the world gets wrong, and says so.
func TestRealInstallsReplayedHealthy(t *testing.T) {
	testutil.Long(t)
	t.Parallel()
	for _, c := range []struct {
		name, catalog string
		replay        replay
		want          []string
	}{
		{
			// The GPU Operator's ServiceMonitor names the job nvidia-dcgm-exporter, and its
			// exporter runs the stock counter set: both are said, once per cluster.
			name: "GPU Operator, catalog that says so", replay: replay{scrape: "operator-l4.prom", target: operatorTarget},
			catalog: "exporter+: { job: 'nvidia-dcgm-exporter', extraCounters: [] }",
		},
		{
			// Its exporter goes down: the embedded catalog watches another job, so the
			// outage reads as a GPU gone, and the availability SLO pages (the job ticket
			// fired for the hours before, and resolves with the series).
			name: "GPU Operator exporter down, embedded catalog", replay: replay{scrape: "operator-l4.prom", target: operatorTarget, down: true},
			want: []string{"GPUSeriesMissing", "SLOGPUAvailabilityFastBurn", "SLOGPUAvailabilitySlowBurn"},
		},
		{
			name: "GPU Operator exporter down, catalog that says so", replay: replay{scrape: "operator-l4.prom", target: operatorTarget, down: true},
			catalog: "exporter+: { job: 'nvidia-dcgm-exporter', extraCounters: [] }",
			want:    []string{"DCGMExporterDown"},
		},
		{
			// GKE's managed DCGM metrics: another job, a fixed field set, no counter file.
			name: "GKE managed exporter, embedded catalog", replay: replay{scrape: "gke-managed-l4.prom", target: scrapeTarget{job: "gke-managed-dcgm-exporter"}},
			want: []string{"DCGMExporterJobMismatch", "DCGMExporterStockCounterSet"},
		},
		{
			name: "GKE managed exporter, catalog that says so", replay: replay{scrape: "gke-managed-l4.prom", target: scrapeTarget{job: "gke-managed-dcgm-exporter"}},
			catalog: "exporter+: { managed: 'gke' }",
		},
		{
			// kube-prometheus-stack's usual setup: the cluster's name only as an external
			// label. Every exporter reads as one whose series lack a label.
			name: "cluster as an external label, catalog without it", replay: replay{scrape: "operator-l4.prom", target: operatorTarget, external: true},
			catalog: "exporter+: { job: 'nvidia-dcgm-exporter', extraCounters: [] }",
			want:    []string{"DCGMExporterLabelMismatch"},
		},
		{
			name: "cluster as an external label, catalog that says so", replay: replay{scrape: "operator-l4.prom", target: operatorTarget, external: true},
			catalog: "exporter+: { job: 'nvidia-dcgm-exporter', extraCounters: [] }, topology+: { clusterExternal: true }",
		},
		{
			// An exporter upgrade renames the host label: the mismatch ticket, and the tickets
			// the plan derives a mismatch makes fire for every GPU or node (which it silences),
			// and nothing else (checked below against plan.AbsentByExporterLabels).
			name: "exporter upgrade renames the host label", replay: replay{scrape: "operator-l4.prom", target: operatorTarget, renamed: true},
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
			r := c.replay
			r.cluster = "prod"
			firing, _ := firingOnReplay(t, dir, r)
			var got []string
			for _, alerts := range firing {
				got = append(got, alerts...)
			}
			if got = slices.Compact(slices.Sorted(slices.Values(got))); !slices.Equal(got, c.want) {
				t.Errorf("alerts firing: %v, want %v", got, c.want)
			}
			if r.renamed {
				p := plantest.Plan(t, config)
				if derived := append([]string{p.Model.Alertmanager.Inhibit.LabelMismatch}, p.AbsentByExporterLabels()...); !slices.Equal(slices.Sorted(slices.Values(derived)), c.want) {
					t.Errorf("the plan derives %v as what a label mismatch makes fire, the replay fires %v", derived, c.want)
				}
			}
		})
	}
}

// everyInstall is a scrape of each install the fixtures hold (written for gpuobs in the
// shapes of public texts: GPU Operator, the Helm chart, plain scrape jobs, vGPU guests, MIG
// under exporters 2.x to 4.x), each as its scrape target gives it, and the alerts the
// embedded catalog, with no setting, rightly raises there: the job self-check where the
// target's job is not the catalog's (the GPU Operator's), the counter-set self-check where
// the text shows none of the counter file's fields (the stock set, or a text cut to a few
// families), the label self-check where the exporter names its host label hostname (4.x), the
// price self-check where a GPU's SKU is not in the price table (RTX and A30 boards), and the
// idle ticket where the text shows a pod holding its GPU idle (for the replay's three hours).
var everyInstall = []struct {
	scrape string
	target scrapeTarget
	want   []string
}{
	{"operator-l4.prom", operatorTarget, []string{"DCGMExporterJobMismatch", "DCGMExporterStockCounterSet"}},
	{"operator-t4-lines.prom", operatorTarget, []string{"DCGMExporterJobMismatch", "DCGMExporterStockCounterSet"}},
	{"operator-t4-cut.prom", operatorTarget, []string{"DCGMExporterJobMismatch", "DCGMExporterStockCounterSet"}},
	{"operator-rtx4000ada-pod.prom", operatorTarget, []string{"DCGMExporterJobMismatch", "DCGMExporterStockCounterSet", "GPUAllocatedIdle", "GPUCostUnpriced"}},
	{"operator-h100-sampled.prom", operatorTarget, []string{"DCGMExporterJobMismatch", "DCGMExporterStockCounterSet"}},
	{"helm-l40s.prom", helmTarget, []string{"DCGMExporterStockCounterSet"}},
	{"grid-guest.prom", operatorTarget, []string{"DCGMExporterJobMismatch", "DCGMExporterStockCounterSet"}},
	{"grid-guest-10c.prom", operatorTarget, []string{"DCGMExporterJobMismatch", "DCGMExporterStockCounterSet"}},
	{"mig-a100-2x.prom", plainTarget, []string{"DCGMExporterStockCounterSet"}},
	{"mig-a800-3x.prom", plainTarget, []string{"DCGMExporterStockCounterSet"}},
	{"mig-a30-cut.prom", plainTarget, []string{"DCGMExporterStockCounterSet"}},
	{"mig-a30-rtx2000-4x.prom", helmTarget, []string{"DCGMExporterLabelMismatch", "DCGMExporterStockCounterSet", "GPUCostUnpriced"}},
}

// TestEveryInstallReplayedQuiet replays every install's scrape, each on its cluster, for three
// hours, with the scrape target's labels winning and not (honorLabels false and true), on the
// embedded catalog with no setting: it raises nothing but the self-checks each install
// earns, and the record of which pod holds which GPU names exactly the pods the exporter
// attributes GPUs to, never the exporter's own.
func TestEveryInstallReplayedQuiet(t *testing.T) {
	testutil.Long(t)
	t.Parallel()
	for _, targetLabelsWin := range []bool{false, true} {
		t.Run(fmt.Sprintf("honorLabels %t", !targetLabelsWin), func(t *testing.T) {
			t.Parallel()
			dir := generateInto(t, "")
			var replays []replay
			for _, in := range everyInstall {
				replays = append(replays, replay{scrape: in.scrape, cluster: strings.TrimSuffix(in.scrape, ".prom"), target: in.target, targetLabelsWin: targetLabelsWin})
			}
			firing, held := firingOnReplay(t, dir, replays...)
			for _, in := range everyInstall {
				cluster := strings.TrimSuffix(in.scrape, ".prom")
				if got := firing[cluster]; !slices.Equal(got, in.want) {
					t.Errorf("%s: alerts firing %v, want %v", in.scrape, got, in.want)
				}
				delete(firing, cluster)
			}
			if len(firing) > 0 {
				t.Errorf("alerts firing elsewhere: %v", firing)
			}
			if held != "" {
				t.Errorf("the record of which pod holds which GPU is not the scrapes' attribution:\n%s", held)
			}
		})
	}
}

// TestEveryInstallReplayedQuietOnItsInitCatalog: the catalog gpuobs init --from-scrape writes
// from each install's scrape shows every dashboard panel whose inputs the scrape holds, and
// raises nothing on the same scrape, replayed as its target gives it, with the target's labels
// winning and not, but the self-checks of what a text cannot
// tell (the job Prometheus gives the target; a text cut to a few families shows no counter
// set), an SKU the price table lacks and a pod that holds its GPU idle for the replay's three
// hours.
func TestEveryInstallReplayedQuietOnItsInitCatalog(t *testing.T) {
	testutil.Long(t)
	t.Parallel()
	for _, in := range everyInstall {
		t.Run(in.scrape, func(t *testing.T) {
			t.Parallel()
			config := filepath.Join(t.TempDir(), "gpuobs.jsonnet")
			var stderr strings.Builder
			if rc := cli.Run([]string{"init", "--from-scrape", filepath.Join("testdata/scrapes", in.scrape), "-f", config}, cli.Options{Stdout: io.Discard, Stderr: &stderr}); rc != cli.ExitOK {
				t.Fatalf("gpuobs init --from-scrape: exit %d\n%s", rc, stderr.String())
			}
			// A text a curl saved does not show the job Prometheus gives its target.
			var want []string
			if in.target.job != "dcgm-exporter" {
				want = append(want, "DCGMExporterJobMismatch")
			}
			for _, a := range in.want {
				if slices.Contains([]string{"GPUAllocatedIdle", "GPUCostUnpriced"}, a) || a == "DCGMExporterStockCounterSet" && slices.Contains(cutTexts, in.scrape) {
					want = append(want, a)
				}
			}
			for _, targetLabelsWin := range []bool{false, true} {
				dir := generateInto(t, config)
				firing, held := firingOnReplay(t, dir, replay{scrape: in.scrape, cluster: "prod", target: in.target, targetLabelsWin: targetLabelsWin})
				if got := firing["prod"]; !slices.Equal(got, want) || len(firing) > 1 || len(firing) == 1 && got == nil {
					t.Errorf("honorLabels %t: alerts firing %v, want %v", !targetLabelsWin, firing, want)
				}
				if held != "" {
					t.Errorf("honorLabels %t: the record of which pod holds which GPU is not the scrape's attribution:\n%s", !targetLabelsWin, held)
				}
			}
			// Every panel shows what the install sends (TestEveryPanelShowsWhatItsInputsHold).
			for _, problem := range panelsOnReplay(t, config, []replay{{scrape: in.scrape, cluster: "prod", target: in.target, targetLabelsWin: true}}) {
				t.Error(problem)
			}
		})
	}
}

// cutTexts are the scrapes cut to a few families: they do not tell the counter set.
var cutTexts = []string{"operator-h100-sampled.prom", "mig-a30-cut.prom", "mig-a30-rtx2000-4x.prom"}

// operatorJob is the job of the GPU Operator's ServiceMonitor.
const operatorJob = "nvidia-dcgm-exporter"

// scrapeTarget is how Prometheus scrapes an exporter: the job and the target's own labels that
// the ServiceMonitor adds (the exporter's pod, its service and port), none for a plain scrape
// job.
type scrapeTarget struct {
	job    string
	labels map[string]string
}

var (
	// The GPU Operator's ServiceMonitor: job nvidia-dcgm-exporter, the exporter's pod in
	// gpu-operator.
	operatorTarget = scrapeTarget{operatorJob, map[string]string{"namespace": "gpu-operator", "pod": "nvidia-dcgm-exporter-x7k2p",
		"container": "nvidia-dcgm-exporter", "service": "nvidia-dcgm-exporter", "endpoint": "gpu-metrics"}}
	// The dcgm-exporter Helm chart's ServiceMonitor.
	helmTarget = scrapeTarget{"dcgm-exporter", map[string]string{"namespace": "monitoring", "pod": "dcgm-exporter-8kq2w",
		"container": "exporter", "service": "dcgm-exporter", "endpoint": "metrics"}}
	// A static or file_sd scrape job: no target labels but job and instance.
	plainTarget = scrapeTarget{job: "dcgm-exporter"}
)

// replay is how a scrape is replayed: its cluster, how its target is scraped, whether the
// target's labels win over the exporter's (honorLabels: false: the exporter's pod labels
// arrive as exported_*), whether the target is down for the last 30 minutes, whether the
// cluster is an external label instead of a series label, and whether the exporter sends its
// host label under another name for the last hour.
type replay struct {
	scrape, cluster         string
	target                  scrapeTarget
	targetLabelsWin         bool
	down, external, renamed bool
	// server marks a model server's scrape: on no node of its own.
	server bool
}

// replayHours is how long a scrape is replayed: three hours (a renamed host label's run
// evaluates at 2h, while the last hour still holds the old labels, and at 3h).
const replayHours = 3

// firingOnReplay writes one promtool test that replays scrapes, each on its own cluster, for
// three hours, as Prometheus stores them (the exporter's labels, cluster, job, instance and the
// target's labels added), with each node listed by kube-state-metrics, and returns the alerts
// of the generated rules that fire at its end (and at 2h for a renamed host label), by
// cluster, and whether the record of which pod holds which GPU names exactly the pods the
// scrapes attribute (with the records' output where not).
func firingOnReplay(t *testing.T, dir string, replays ...replay) (map[string][]string, string) {
	t.Helper()
	group := map[string]any{"name": "replay", "interval": "1m"}
	var input []map[string]string
	var exprs []map[string]any
	for i, r := range replays {
		series, held := replaySeries(t, r, i)
		input = append(input, series...)
		if r.external {
			group["external_labels"] = map[string]string{"cluster": r.cluster}
		}
		if !r.renamed && !r.external {
			exprs = append(exprs, map[string]any{"expr": `group by (UUID, namespace, pod) (` + conventions.GPUInfo + `{cluster="` + r.cluster + `"})`,
				"eval_time": fmt.Sprintf("%dh", replayHours), "exp_samples": held})
		}
	}
	slices.SortFunc(input, func(a, b map[string]string) int { return strings.Compare(a["series"], b["series"]) })
	rules, alerts := generatedRules(t, dir)
	var checks []map[string]any
	for _, a := range alerts {
		for _, at := range []string{"2h", fmt.Sprintf("%dh", replayHours)} {
			checks = append(checks, map[string]any{"eval_time": at, "alertname": a, "exp_alerts": []any{}})
		}
	}
	group["input_series"], group["alert_rule_test"], group["promql_expr_test"] = input, checks, exprs
	test := map[string]any{"rule_files": rules, "evaluation_interval": "1m", "group_eval_order": groupEvalOrder(t, dir), "tests": []any{group}}
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
	// Each failed alert test is a block: its name and time, then the labels of every alert
	// that fired.
	firing := map[string][]string{}
	for _, block := range strings.Split(out, "alertname: ")[1:] {
		m := regexp.MustCompile(`^(\w+), time: (\d+)h`).FindStringSubmatch(block)
		if m == nil || m[2] != strconv.Itoa(replayHours) && !(m[2] == "2" && slices.ContainsFunc(replays, func(r replay) bool { return r.renamed })) {
			continue
		}
		for _, labels := range regexp.MustCompile(`Labels:\{(.*)\}`).FindAllStringSubmatch(block, -1) {
			cluster := ""
			if c := regexp.MustCompile(`\bcluster="([^"]*)"`).FindStringSubmatch(labels[1]); c != nil {
				cluster = c[1]
			}
			if !slices.Contains(firing[cluster], m[1]) {
				firing[cluster] = append(firing[cluster], m[1])
			}
		}
	}
	for c := range firing {
		slices.Sort(firing[c])
	}
	held := ""
	if i := strings.Index(out, "expr: \"group by (UUID, namespace, pod)"); i >= 0 {
		held = out[i:]
	}
	return firing, held
}

// replaySeries are a replayed scrape's input series, and the samples the record of which pod
// holds which GPU must have on its cluster: one per GPU and pod the scrape attributes, one
// without pod labels per GPU nothing holds.
func replaySeries(t *testing.T, r replay, index int) ([]map[string]string, []map[string]any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata/scrapes", r.scrape))
	if err != nil {
		t.Fatal(err)
	}
	samples, err := promql.ParseExposition(data)
	if err != nil {
		t.Fatal(err)
	}
	minutes := 60 * replayHours
	span := fmt.Sprintf("+0x%d", minutes)
	steps, upValues := span, "1"+span
	if r.down {
		steps, upValues = fmt.Sprintf("+0x%d _x30", minutes-30), fmt.Sprintf("1+0x%d 0+0x30", minutes-30)
	}
	var input []map[string]string
	// Prometheus adds cluster by relabeling, or holds it as an external label.
	add := func(metric, values string, labelSets ...map[string]string) {
		labels := map[string]string{}
		if !r.external {
			labels["cluster"] = r.cluster
		}
		for _, l := range labelSets {
			for k, v := range l {
				labels[k] = v
			}
		}
		// Prometheus stores no label with an empty value (pod_uid="").
		maps.DeleteFunc(labels, func(_, v string) bool { return v == "" })
		input = append(input, map[string]string{"series": selector(metric, labels), "values": values})
	}
	target := map[string]string{"job": r.target.job, "instance": fmt.Sprintf("10.0.%d.7:9400", index)}
	maps.Copy(target, r.target.labels)
	host, gpus := "", map[string]bool{}
	held := map[string]map[string]string{}
	for _, s := range samples {
		host, gpus[s.Labels["gpu"]] = s.Labels["Hostname"]+s.Labels["hostname"], true
		value := strconv.FormatFloat(s.Value, 'g', -1, 64)
		labels := scraped(s.Labels, target, r.targetLabelsWin)
		if s.Metric == "DCGM_FI_DEV_GPU_TEMP" || s.Metric == "DCGM_FI_DEV_FB_FREE" {
			owner := map[string]string{"UUID": s.Labels["UUID"]}
			if s.Labels["pod"] != "" {
				owner["namespace"], owner["pod"] = s.Labels["namespace"], s.Labels["pod"]
			}
			held[selector("", owner)] = owner
		}
		if !r.renamed {
			add(s.Metric, value+steps, labels)
			continue
		}
		renamed := maps.Clone(labels)
		renamed["node_name"] = renamed["Hostname"]
		delete(renamed, "Hostname")
		add(s.Metric, value+"+0x90 _x90", labels)
		add(s.Metric, "_x91 "+value+"+0x89", renamed)
	}
	add("up", upValues, target)
	if r.server {
		return input, nil
	}
	ksm := map[string]string{"job": "kube-state-metrics", "instance": "kube-state-metrics:8080"}
	capacity := map[string]string{"node": host, "resource": "nvidia_com_gpu", "unit": "integer"}
	add("up", "1"+span, ksm)
	add("kube_node_info", "1"+span, ksm, map[string]string{"node": host})
	add("kube_node_status_capacity", strconv.Itoa(len(gpus))+span, ksm, capacity)
	add("kube_node_status_allocatable", strconv.Itoa(len(gpus))+span, ksm, capacity)
	var want []map[string]any
	for _, key := range slices.Sorted(maps.Keys(held)) {
		want = append(want, map[string]any{"labels": "{" + strings.TrimPrefix(key, "{"), "value": 1})
	}
	return input, want
}

// scraped are the labels Prometheus stores for a series the exporter sends with labels,
// scraped from target: the exporter's win where targetLabelsWin is false (honorLabels: true),
// else the target's, and a label of the exporter's they override is kept as exported_<name>.
func scraped(exporter, target map[string]string, targetLabelsWin bool) map[string]string {
	out := maps.Clone(exporter)
	for k, v := range target {
		old, sent := out[k]
		switch {
		case !sent || old == "":
			out[k] = v
		case targetLabelsWin:
			out["exported_"+k], out[k] = old, v
		}
	}
	return out
}

// groupEvalOrder is the order the generated tests of the tree in dir evaluate the rule groups
// in: a replay evaluates them so too.
func groupEvalOrder(t *testing.T, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, output.AlertTests))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Order []string `yaml:"group_eval_order"`
	}
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f.Order
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
