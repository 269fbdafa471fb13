package lint

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/source"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

func loadPlan(t testing.TB) *plan.Plan {
	t.Helper()
	return plantest.Plan(t, "")
}

// rules wraps rule items (YAML, indented as list items) in a rule file.
func rules(items string) string {
	return "groups:\n  - name: test\n    rules:\n" + items
}

// generated is a rule file as gpuobs writes it, with its header: gpuobs' conventions apply.
func generated(items string) string { return "# " + output.Header + "\n" + rules(items) }

// dashboard is a minimal dashboard with one panel per query, tagged with a level.
func dashboard(level string, queries ...string) string {
	var panels []string
	for i, q := range queries {
		panels = append(panels, `{"title": "p`+string(rune('a'+i))+`", "targets": [{"expr": "`+strings.ReplaceAll(q, `"`, `\"`)+`"}]}`)
	}
	return `{"title": "t", "uid": "u", "tags": ["` + level + `"], "panels": [` + strings.Join(panels, ", ") + `]}`
}

type checkCase struct {
	check        Check
	fires, quiet map[string]string // path -> content
}

func cases() []checkCase {
	return []checkCase{
		{placementGlobalRaw{},
			// The global layer sums raw series of every shard; kube-state-metrics' too.
			map[string]string{"thanos/global/r.yaml": rules("      - record: fleet:power:sum\n        expr: sum(DCGM_FI_DEV_POWER_USAGE)\n      - record: fleet:x:sum\n        expr: sum(kube_node_info)\n")},
			// Records the shards produce (in the inputs, or named level:metric:operation), and
			// raw series read in a shard's or an unplaced file.
			map[string]string{
				"thanos/global/r.yaml": rules("      - record: fleet:power:sum\n        expr: sum(cluster:power:sum)\n      - record: fleet:y:sum\n        expr: sum(cluster:dcgm_sm_active:avg)\n"),
				"prom/shard/r.yaml":    rules("      - record: cluster:power:sum\n        expr: sum by (cluster) (max by (cluster, Hostname, gpu, UUID) (DCGM_FI_DEV_POWER_USAGE))\n"),
				"r.yaml":               rules("      - record: fleet:power:sum\n        expr: sum(max by (cluster, Hostname, gpu, UUID) (DCGM_FI_DEV_POWER_USAGE))\n"),
			}},
		{placementShardReadsGlobal{},
			map[string]string{
				"thanos/global/r.yaml": rules("      - record: fleet:power:sum\n        expr: sum(cluster:power:sum)\n"),
				"prom/shard/r.yaml":    rules("      - record: cluster:power:sum\n        expr: sum by (cluster) (node:power:sum)\n      - alert: GPUFleetPowerShare\n        expr: cluster:power:sum / on () group_left () fleet:power:sum > 0.5\n"),
			},
			map[string]string{
				"thanos/global/r.yaml": rules("      - record: fleet:power:sum\n        expr: sum(cluster:power:sum)\n      - alert: GPUFleetPowerShare\n        expr: cluster:power:sum / on () group_left () fleet:power:sum > 0.5\n"),
				"prom/shard/r.yaml":    rules("      - record: cluster:power:sum\n        expr: sum by (cluster) (node:power:sum)\n"),
			}},
		{promqlSyntax{},
			map[string]string{"r.yaml": rules("      - record: node:x:sum\n        expr: sum(\n")},
			map[string]string{"r.yaml": rules("      - record: node:x:sum\n        expr: sum by (cluster, Hostname) (DCGM_FI_DEV_FB_USED)\n")}},
		{promqlCounter{},
			map[string]string{"r.yaml": rules("      - record: node:x:sum\n        expr: sum by (cluster, Hostname) (rate(DCGM_FI_DEV_RETIRED_PENDING[5m]))\n" +
				// An alert on the raw total of a counter, even through max.
				"      - alert: GPUDbe\n        expr: max by (cluster, UUID) (DCGM_FI_DEV_ECC_DBE_VOL_TOTAL) > 0\n" +
				// Counters outside the catalog, by their name: a lifetime ratio.
				"      - record: job:cache_hit:ratio\n        expr: sum(cache_hits_total) / sum(cache_queries_total)\n")},
			map[string]string{"r.yaml": rules("      - record: node:x:rate5m\n        expr: sum by (cluster, Hostname) (max by (cluster, Hostname, gpu, UUID) (rate(DCGM_FI_DEV_PCIE_REPLAY_COUNTER[5m])))\n" +
				// The per-GPU counter recorded as the largest of the GPU's series is still a counter.
				"      - record: gpu:x:max\n        expr: max by (cluster, Hostname, gpu, UUID) (DCGM_FI_DEV_PCIE_REPLAY_COUNTER)\n" +
				// Retired pages and remapped rows are the board's lifetime counts (InfoROM): the raw
				// value is how many it has, and their increase is how many it gained.
				"      - alert: GPURetiredPages\n        expr: DCGM_FI_DEV_RETIRED_DBE + DCGM_FI_DEV_RETIRED_SBE > 60\n      - alert: GPURowsRemapped\n        expr: DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS > 0 or increase(DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS[1h]) > 0\n" +
				// Counters outside the catalog read as counters: rates divided, a raw restart count
				// compared, a recorded _total rule read raw.
				"      - record: job:cache_hit:ratio_rate5m\n        expr: sum(rate(cache_hits_total[5m])) / sum(rate(cache_queries_total[5m]))\n" +
				"      - alert: PodRestarts\n        expr: kube_pod_container_status_restarts_total > 5\n" +
				"      - record: job:requests:total\n        expr: sum(increase(requests_total[1d]))\n" +
				"      - record: job:x:ratio\n        expr: job:requests:total / 2\n" +
				// delta() on a gauge (on a _total name it is an info: TestCountersByTheirName).
				"      - alert: HotterFast\n        expr: delta(gpu_temperature_celsius[10m]) > 20\n")}},
		{promqlUnknownMetric{},
			// A typo of a field anywhere; any unknown metric in gpuobs' output.
			map[string]string{"r.yaml": rules("      - record: node:x:sum\n        expr: sum by (cluster, Hostname) (DCGM_FI_DEV_FB_USD)\n"),
				"g.yaml": generated("      - record: node:x:sum\n        expr: sum by (cluster, Hostname) (gpu_memory_used_bytes)\n")},
			// Another team's metrics are theirs to know.
			map[string]string{"r.yaml": rules("      - record: node:x:sum\n        expr: sum by (cluster, Hostname) (DCGM_FI_DEV_FB_USED)\n      - record: cluster:x:sum\n        expr: sum by (cluster) (node:x:sum)\n" +
				"      - record: instance:node_memory_MemAvailable_bytes:sum\n        expr: sum by (instance) (node_memory_MemAvailable_bytes)\n")}},
		{promqlMIGDoubleCount{},
			map[string]string{"r.yaml": rules("      - record: node:power:sum\n        expr: sum by (cluster, Hostname) (DCGM_FI_DEV_POWER_USAGE)\n")},
			map[string]string{"r.yaml": rules("      - record: node:power:sum\n        expr: sum by (cluster, Hostname) (max by (cluster, Hostname, gpu, UUID) (DCGM_FI_DEV_POWER_USAGE))\n      - record: namespace:power:sum\n        expr: sum by (cluster, namespace) (DCGM_FI_DEV_POWER_USAGE{GPU_I_ID=\"\"})\n" +
				// Counting driver versions, GPUs without a bad one (the right side of unless only
				// filters), and MIG instances on purpose (grouped by GPU_I_ID).
				"      - record: cluster:drivers:count\n        expr: count by (cluster) (group by (cluster, DCGM_FI_DRIVER_VERSION) (DCGM_FI_DEV_GPU_TEMP))\n" +
				"      - record: cluster:healthy:count\n        expr: count by (cluster) (group by (cluster, UUID) (DCGM_FI_DEV_GPU_TEMP) unless on (cluster, UUID) DCGM_FI_DEV_XID_ERRORS == 48)\n" +
				"      - record: gpu:instances:count\n        expr: count by (cluster, UUID) (group by (cluster, UUID, GPU_I_ID) (DCGM_FI_DEV_GPU_TEMP))\n")}},
		{exporterNotCollected{},
			map[string]string{"r.yaml": rules("      - record: node:x:avg\n        expr: avg by (cluster, Hostname) (DCGM_FI_PROF_SM_OCCUPANCY)\n" +
				// A real DCGM field the catalog does not know.
				"      - record: node:y:avg\n        expr: avg by (cluster, Hostname) (DCGM_FI_DEV_VIDEO_CLOCK)\n")},
			map[string]string{"r.yaml": rules("      - record: node:x:avg\n        expr: avg by (cluster, Hostname) (DCGM_FI_PROF_SM_ACTIVE)\n")}},
		{unitsMismatch{},
			map[string]string{"d.json": dashboard("L3", "DCGM_FI_DEV_FB_USED + DCGM_FI_PROF_PCIE_RX_BYTES", "DCGM_FI_DEV_GPU_UTIL < 0.05")},
			map[string]string{"d.json": dashboard("L3", "DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_GPU_UTIL < 5")}},
		{cardinalityBudget{},
			map[string]string{"d.json": dashboard("L1", "avg by (UUID) (DCGM_FI_PROF_SM_ACTIVE)")},
			map[string]string{"d.json": dashboard("L1", "cluster:dcgm_sm_active:avg"), "r.yaml": rules("      - record: gpu:x:max\n        expr: max by (cluster, Hostname, gpu, UUID) (DCGM_FI_DEV_GPU_TEMP)\n"),
				// topk bounds the series; a pinned namespace holds a share of a cluster's GPUs.
				"top.json": dashboard("L1", "topk(10, avg by (UUID) (DCGM_FI_PROF_SM_ACTIVE))"),
				"ns.json":  dashboard("L4", `DCGM_FI_PROF_SM_ACTIVE{cluster="$cluster", namespace="$namespace", pod=~"$pod"}`)}},
		{cardinalityBudget{},
			// A literal scrape job pins nothing: every GPU of the fleet is still in scope.
			map[string]string{"d.json": dashboard("L4", `max by (Hostname, gpu) (DCGM_FI_PROF_SM_ACTIVE{job="dcgm-exporter"})`)},
			// A textbox picking one job id scopes the panel to one workload; a record that
			// only renames a per-GPU field adds no series of its own to project.
			map[string]string{"d.json": `{"title": "t", "uid": "u", "tags": ["L4"], "templating": {"list": [{"name": "job", "type": "textbox", "query": ""}]}, "panels": [{"title": "p", "targets": [{"expr": "max by (Hostname, gpu) (DCGM_FI_PROF_SM_ACTIVE{label_job_name=~\"$job\"})"}]}]}`,
				"r.yaml": rules("      - record: accelerator_temperature_celsius\n        expr: DCGM_FI_DEV_GPU_TEMP\n")}},
		{cardinalityLabel{},
			map[string]string{"r.yaml": rules("      - record: fleet:x:sum\n        expr: sum by (pod_uid) (DCGM_FI_DEV_FB_USED)\n" +
				// An alert that keeps a label new with every event opens a new alert each time.
				"      - alert: PodErrors\n        expr: sum by (namespace, pod, err_msg) (rate(app_errors_total[5m])) > 0\n")},
			// An alert over kube-state-metrics' pod series keeps the pod's uid: one per pod, like
			// pod, and an alert is no recorded series.
			map[string]string{"r.yaml": rules("      - record: fleet:x:sum\n        expr: sum(DCGM_FI_DEV_FB_USED)\n" +
				"      - alert: PodNotReady\n        expr: max by (namespace, pod, uid) (kube_pod_status_ready{condition=\"false\"}) == 1\n        for: 15m\n")}},
		{alertsSeverity{},
			map[string]string{"r.yaml": generated("      - alert: GPUX\n        expr: up == 0\n        labels: {severity: page}\n")},
			map[string]string{"r.yaml": generated("      - alert: GPUX\n        expr: up == 0\n        labels: {severity: critical}\n")}},
		{alertsAnnotations{},
			map[string]string{"r.yaml": generated("      - alert: GPUX\n        expr: up == 0\n        annotations: {summary: down}\n")},
			map[string]string{"r.yaml": generated("      - alert: GPUX\n        expr: up == 0\n        annotations: {summary: down, description: d, runbook_url: 'https://r/x'}\n")}},
		{alertsFor{},
			map[string]string{"r.yaml": rules("      - alert: GPUHot\n        expr: max by (UUID) (DCGM_FI_DEV_GPU_TEMP) > 85\n")},
			map[string]string{"r.yaml": rules("      - alert: GPUHot\n        expr: max by (UUID) (DCGM_FI_DEV_GPU_TEMP) > 85\n        for: 15m\n      - alert: GPURemap\n        expr: DCGM_FI_DEV_ROW_REMAP_FAILURE > 0\n")}},
		{alertsTemplateLabels{},
			map[string]string{"r.yaml": rules("      - alert: GPUHot\n        expr: max by (cluster) (DCGM_FI_DEV_GPU_TEMP) > 85\n        annotations:\n          description: 'GPU {{ $labels.UUID }}'\n")},
			map[string]string{"r.yaml": rules("      - alert: GPUHot\n        expr: max by (cluster, UUID) (DCGM_FI_DEV_GPU_TEMP) > 85\n        annotations:\n          description: 'GPU {{ $labels.UUID }} at {{ $value }}'\n")}},
		{namingRecord{},
			map[string]string{"r.yaml": generated("      - record: gpu_power\n        expr: sum(up)\n")},
			map[string]string{"r.yaml": generated("      - record: fleet:up:sum\n        expr: sum(up)\n")}},
		{namingUnit{},
			map[string]string{"r.yaml": rules("      - record: node:dcgm_fb_used_bytes:sum\n        expr: sum by (cluster, Hostname) (DCGM_FI_DEV_FB_USED)\n"),
				"d.json": strings.Replace(dashboard("L3", "DCGM_FI_DEV_FB_USED"), `"targets"`, `"fieldConfig": {"defaults": {"unit": "bytes"}}, "targets"`, 1)},
			map[string]string{"r.yaml": rules("      - record: node:dcgm_fb_used_bytes:sum\n        expr: sum by (cluster, Hostname) (DCGM_FI_DEV_FB_USED) * 1048576\n      - record: node:dcgm_fb_used_mebibytes:sum\n        expr: sum by (cluster, Hostname) (DCGM_FI_DEV_FB_USED)\n"),
				"d.json": strings.Replace(dashboard("L3", "DCGM_FI_DEV_FB_USED"), `"targets"`, `"fieldConfig": {"defaults": {"unit": "mbytes"}}, "targets"`, 1)}},
		{alertsLastEventState{},
			map[string]string{"r.yaml": rules("      - alert: GPUXid\n        expr: max by (cluster, Hostname, gpu) (DCGM_FI_DEV_XID_ERRORS) > 0\n        for: 5m\n")},
			// A new event (changes), and gpuobs' own form: the value against its own past.
			map[string]string{"r.yaml": rules("      - alert: GPUXid\n        expr: changes(DCGM_FI_DEV_XID_ERRORS[10m]) > 0\n" +
				"      - alert: GPUXidNew\n        expr: DCGM_FI_DEV_XID_ERRORS > 0 unless DCGM_FI_DEV_XID_ERRORS == last_over_time(DCGM_FI_DEV_XID_ERRORS[30m] offset 10m)\n")}},
		{alertsValueInLabel{},
			map[string]string{"r.yaml": rules("      - alert: GPUHot\n        expr: DCGM_FI_DEV_GPU_TEMP > 85\n        for: 5m\n        labels:\n          temperature: '{{ $value }}'\n")},
			map[string]string{"r.yaml": rules("      - alert: GPUHot\n        expr: DCGM_FI_DEV_GPU_TEMP > 85\n        for: 5m\n        labels:\n          severity: warning\n        annotations:\n          description: 'at {{ $value }} C'\n")}},
		{groupsInterval{},
			map[string]string{"r.yaml": "groups:\n  - name: gpu\n    interval: 1x\n    rules: []\n  - name: gpu\n    rules: []\n"},
			map[string]string{"r.yaml": "groups:\n  - name: gpu\n    interval: 30s\n    rules: []\n  - name: gpu-slow\n    interval: 5m\n    rules: []\n"}},
		{groupsDuplicateRule{},
			map[string]string{"r.yaml": rules("      - record: node:power:sum\n        expr: sum by (cluster, Hostname) (DCGM_FI_DEV_POWER_USAGE)\n      - record: node:power:sum\n        expr: sum by (cluster, Hostname)  (DCGM_FI_DEV_POWER_USAGE)\n")},
			// One record from two sources, told apart by a label.
			map[string]string{"r.yaml": rules("      - record: node:power:sum\n        expr: sum by (cluster, Hostname) (DCGM_FI_DEV_POWER_USAGE)\n        labels: {source: dcgm}\n      - record: node:power:sum\n        expr: sum by (cluster, Hostname) (node_power_watts)\n        labels: {source: bmc}\n")}},
		{unitsMismatch{},
			// A clock in MHz against a literal in Hz.
			map[string]string{"r.yaml": rules("      - alert: GPUClockLow\n        expr: DCGM_FI_DEV_SM_CLOCK < 1.0e9\n        for: 10m\n")},
			map[string]string{"r.yaml": rules("      - alert: GPUClockLow\n        expr: DCGM_FI_DEV_SM_CLOCK < 1000\n        for: 10m\n")}},
		{namingUnit{},
			// The unit in the operation part of the name.
			map[string]string{"r.yaml": rules("      - record: node:dcgm_fb_used:bytes\n        expr: sum by (cluster, Hostname) (DCGM_FI_DEV_FB_USED)\n")},
			map[string]string{"r.yaml": rules("      - record: node:dcgm_fb_used:bytes\n        expr: sum by (cluster, Hostname) (DCGM_FI_DEV_FB_USED) * 1048576\n")}},
		{promqlMIGDoubleCount{},
			map[string]string{"r.yaml": rules("      - record: cluster:power:sum\n        expr: sum by (cluster) (DCGM_FI_DEV_POWER_USAGE)\n")},
			// DCGM reports the PCIe and NVLink byte rates for whole GPUs only (N/A on MIG
			// instances): summing them counts each GPU once.
			map[string]string{"r.yaml": rules("      - record: cluster:pcie_tx:sum\n        expr: sum by (cluster) (DCGM_FI_PROF_PCIE_TX_BYTES)\n      - record: cluster:nvlink_rx:sum\n        expr: sum by (cluster) (DCGM_FI_PROF_NVLINK_RX_BYTES)\n")}},
		{promqlFeature{},
			// Prometheus 3's experimental aggregation and fill modifier, on a server the
			// catalog says runs without the flags.
			map[string]string{"r.yaml": rules("      - record: cluster:dcgm_gpu_temp:limit\n        expr: limitk by (cluster) (3, DCGM_FI_DEV_GPU_TEMP)\n      - record: cluster:x:ratio\n        expr: cluster:a:sum / on (cluster) fill(0) cluster:b:sum\n")},
			map[string]string{"r.yaml": rules("      - record: cluster:dcgm_gpu_temp:top\n        expr: topk by (cluster) (3, DCGM_FI_DEV_GPU_TEMP)\n")}},
		{promqlFloatLabel{},
			map[string]string{"r.yaml": rules("      - alert: SLOLatency\n        expr: sum(rate(vllm:e2e_request_latency_seconds_bucket{le=\"1\"}[5m])) / sum(rate(vllm:e2e_request_latency_seconds_count[5m])) < 0.9\n        for: 10m\n")},
			// Both spellings, a fraction, +Inf.
			map[string]string{"r.yaml": rules("      - alert: SLOLatency\n        expr: sum(rate(vllm:e2e_request_latency_seconds_bucket{le=~\"1(\\\\.0)?\"}[5m])) + sum(rate(vllm:e2e_request_latency_seconds_bucket{le=\"0.5\"}[5m])) + sum(rate(vllm:e2e_request_latency_seconds_bucket{le=\"+Inf\"}[5m])) < 0.9\n        for: 10m\n")}},
		{promqlBucketBound{},
			// vLLM's time-to-first-token ladder has 0.25 and 0.5, not 0.4.
			map[string]string{"r.yaml": rules("      - alert: SLOLatency\n        expr: sum(rate(vllm:time_to_first_token_seconds_bucket{le=\"0.4\"}[5m])) / sum(rate(vllm:time_to_first_token_seconds_count[5m])) < 0.99\n        for: 10m\n")},
			// A bound in both spellings, +Inf, a dashboard variable, a histogram without a known ladder.
			map[string]string{"r.yaml": rules("      - alert: SLOLatency\n        expr: sum(rate(vllm:time_to_first_token_seconds_bucket{le=~\"0.5\"}[5m])) + sum(rate(vllm:time_to_first_token_seconds_bucket{le=~\"1|1\\\\.0\"}[5m])) + sum(rate(vllm:time_to_first_token_seconds_bucket{le=\"+Inf\"}[5m])) + sum(rate(my_latency_seconds_bucket{le=\"0.4\"}[5m])) < 0.99\n        for: 10m\n"),
				"d.json": dashboard("L4", `sum(rate(vllm:time_to_first_token_seconds_bucket{le=~"$threshold"}[5m]))`)}},
		{promqlHistogramForm{},
			// The embedded catalog's servers keep vLLM's histograms classic: the bare name has no
			// series.
			map[string]string{"r.yaml": rules("      - record: model:ttft:p99\n        expr: histogram_quantile(0.99, sum by (model_name) (rate(vllm:time_to_first_token_seconds[5m])))\n")},
			map[string]string{"r.yaml": rules("      - record: model:ttft:p99\n        expr: histogram_quantile(0.99, sum by (model_name, le) (rate(vllm:time_to_first_token_seconds_bucket[5m])))\n")}},
		{namingLegacyNames{},
			map[string]string{"op.yaml": "apiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nmetadata: {name: gpu}\nspec:\n  groups:\n    - name: gpu\n      rules:\n        - record: gpu.temperature.celsius\n          expr: max by (\"k8s.cluster\") ({\"dcgm.gpu.temp\"})\n          labels: {\"team.name\": infra}\n"},
			// The same UTF-8 names in a plain rule file (Prometheus 3 reads them), legacy names in
			// a PrometheusRule.
			map[string]string{"plain.yaml": rules("      - record: gpu.temperature.celsius\n        expr: max by (\"k8s.cluster\") ({\"dcgm.gpu.temp\"})\n"),
				"op.yaml": "apiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nmetadata: {name: gpu}\nspec:\n  groups:\n    - name: gpu\n      rules:\n        - record: cluster:dcgm_gpu_temp:max\n          expr: max by (cluster) (DCGM_FI_DEV_GPU_TEMP)\n"}},
		{namingAlert{},
			map[string]string{"r.yaml": generated("      - alert: gpu_down\n        expr: up == 0\n")},
			map[string]string{"r.yaml": generated("      - alert: DCGMExporterDown\n        expr: up == 0\n")}},
	}
}

func runCheck(t *testing.T, p *plan.Plan, c Check, files map[string]string) []Problem {
	t.Helper()
	var in []*source.File
	for _, path := range model.SortedKeys(files) {
		in = append(in, source.ReadFile(path, []byte(files[path])))
	}
	return Run(NewInputs(p, in), []Check{c})
}

// TestPolicyWhereConfigured: gpuobs' conventions hold its own output; another team's rules are
// held only to the conventions the catalog's lint.policy names.
func TestPolicyWhereConfigured(t *testing.T) {
	p := loadPlan(t)
	theirs := rules("      - alert: watchdog\n        expr: vector(1)\n        labels: {severity: none}\n        annotations: {runbook: 'https://r/w'}\n" +
		"      - record: apiserver_request:burnrate1h\n        expr: sum(up)\n")
	policy := []Check{alertsSeverity{}, alertsAnnotations{}, namingRecord{}, namingAlert{}}
	run := func() []Problem {
		var out []Problem
		for _, c := range policy {
			out = append(out, runCheck(t, p, c, map[string]string{"r.yaml": theirs})...)
		}
		return out
	}
	if got := run(); len(got) != 0 {
		t.Errorf("gpuobs' conventions applied to another team's rules: %+v", got)
	}
	p.Model.Lint.Policy = model.LintPolicy{Severities: []string{"critical", "warning"}, Annotations: []string{"runbook", "summary"}, RecordNames: `^[a-z_]+:[a-z0-9_]+:[a-z0-9]+$`, AlertNames: `^[A-Z]`}
	got := map[string]bool{}
	for _, pr := range run() {
		got[pr.Check] = true
	}
	for _, c := range policy {
		if !got[c.Name()] {
			t.Errorf("lint.policy set, %s does not apply it", c.Name())
		}
	}
}

func TestEveryCheckHasCases(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range cases() {
		covered[c.check.Name()] = true
	}
	for _, c := range Checks() {
		if !covered[c.Name()] {
			t.Errorf("check %s has no fire/quiet case", c.Name())
		}
	}
}

func TestChecksFire(t *testing.T) {
	p := loadPlan(t)
	for _, c := range cases() {
		t.Run(c.check.Name(), func(t *testing.T) {
			got := runCheck(t, p, c.check, c.fires)
			if len(got) == 0 {
				t.Fatal("did not fire")
			}
			for _, p := range got {
				if p.Check != c.check.Name() || p.Pos.Line < 1 || p.Pos.Col < 1 || p.Message == "" {
					t.Errorf("malformed problem %+v", p)
				}
			}
		})
	}
}

func TestChecksStayQuiet(t *testing.T) {
	p := loadPlan(t)
	for _, c := range cases() {
		t.Run(c.check.Name(), func(t *testing.T) {
			if got := runCheck(t, p, c.check, c.quiet); len(got) > 0 {
				t.Errorf("fired on a good input: %+v", got)
			}
		})
	}
}

// brokenInputs are inputs no check may panic on.
var brokenInputs = map[string]string{
	"bad-yaml.yaml":     "groups: [\n  - name: x\n",
	"no-expr.yaml":      rules("      - record: node:x:sum\n"),
	"bad-promql.yaml":   rules("      - alert: X\n        expr: 'sum by (x (y'\n        annotations: {description: '{{ $labels.x'}\n"),
	"weird-types.yaml":  "groups:\n  - rules: 3\n  - name: x\n    rules: [1, 'a', {record: 7, expr: [1]}]\n",
	"operator.yaml":     "apiVersion: v1\nkind: PrometheusRule\nspec: {groups: null}\n---\nkind: ConfigMap\n---\n- 1\n",
	"empty.yaml":        "",
	"bad.json":          "{\"panels\": [",
	"array.json":        "[1, 2]",
	"weird-panels.json": `{"panels": [{"targets": 5}, {"targets": [{"expr": 3}, {"expr": "sum("}]}, {"panels": [{"targets": [{"expr": "absent(up{job=\"x\"})"}]}]}], "rows": [{"panels": null}]}`,
	"deep.yaml":         rules("      - record: node:x:sum\n        expr: " + strings.Repeat("(", 50) + "up" + strings.Repeat(")", 50) + " or label_replace(vector(1), \"a\", \"b\", \"c\", \"d\") or count_values(\"v\", up) or topk(3, up) or histogram_quantile(0.9, rate(x[5m]))\n"),
}

func TestChecksSurviveBrokenInput(t *testing.T) {
	p := loadPlan(t)
	for _, c := range Checks() {
		t.Run(c.Name(), func(t *testing.T) {
			runCheck(t, p, c, brokenInputs)
		})
	}
	var files []*source.File
	for _, p := range model.SortedKeys(brokenInputs) {
		files = append(files, source.ReadFile(p, []byte(brokenInputs[p])))
	}
	problems := Run(NewInputs(p, files), Checks())
	read := 0
	for _, p := range problems {
		if p.Check == ReadCheck {
			read++
		}
	}
	// A JSON list is not a dashboard: nothing to read, skipped, not an error.
	if read != 2 {
		t.Errorf("want the 2 unreadable files (bad YAML, bad JSON) reported, got %d", read)
	}
}

// TestUnitsComeFromTheCatalog: the units a name's suffix and a panel's Grafana unit claim are
// the catalog's (units), not a table of lint's own: a team that names MiB records _mebibytes
// and no longer claims bytes by _bytes is held to that. On the adopter's catalog (labels
// renamed).
func TestUnitsComeFromTheCatalog(t *testing.T) {
	p := plantest.Plan(t, "../testutil/plantest/testdata/adopter.jsonnet")
	files := map[string]string{
		"r.yaml": rules("      - record: node:dcgm_fb_used_bytes:sum\n        expr: sum by (k8s_cluster, node) (DCGM_FI_DEV_FB_USED)\n" +
			"      - record: node:dcgm_power_mebibytes:sum\n        expr: sum by (k8s_cluster, node) (DCGM_FI_DEV_POWER_USAGE)\n"),
	}
	fired := func() []string {
		var out []string
		for _, pr := range runCheck(t, p, namingUnit{}, files) {
			out = append(out, pr.Message)
		}
		return out
	}
	if got := fired(); len(got) != 1 || !strings.Contains(got[0], "node:dcgm_fb_used_bytes:sum claims bytes but holds MiB") {
		t.Fatalf("with the embedded units: %q, want the _bytes record only", got)
	}
	mib, bytes := p.Model.Units["MiB"], p.Model.Units["bytes"]
	mib.Suffix, bytes.Suffix = "_mebibytes", ""
	p.Model.Units["MiB"], p.Model.Units["bytes"] = mib, bytes
	if got := fired(); len(got) != 1 || !strings.Contains(got[0], "node:dcgm_power_mebibytes:sum claims MiB but holds watts") {
		t.Errorf("with the team's units: %q, want the _mebibytes record only", got)
	}
}

// TestFeaturesTheServerRuns: Prometheus 3's experimental PromQL is not a syntax error; with
// the flag in prometheus.enableFeatures it is accepted, without it promql/feature names the
// flag. On the adopter's catalog too.
func TestFeaturesTheServerRuns(t *testing.T) {
	file := map[string]string{"r.yaml": rules("      - record: cluster:dcgm_gpu_temp:limit\n        expr: limitk by (k8s_cluster) (3, DCGM_FI_DEV_GPU_TEMP)\n      - record: x\n        expr: info(up)\n")}
	for _, config := range []string{"", "../testutil/plantest/testdata/adopter.jsonnet"} {
		p := plantest.Plan(t, config)
		if got := runCheck(t, p, promqlSyntax{}, file); len(got) != 0 {
			t.Errorf("%s: Prometheus 3 PromQL read as a syntax error: %+v", config, got)
		}
		if got := runCheck(t, p, promqlFeature{}, file); len(got) != 2 || !strings.Contains(got[0].Message, "--enable-feature=promql-experimental-functions") {
			t.Errorf("%s: without the flag: %+v", config, got)
		}
		p.Model.Prometheus.EnableFeatures = []string{"promql-experimental-functions"}
		if got := runCheck(t, p, promqlFeature{}, file); len(got) != 0 {
			t.Errorf("%s: with the flag: %+v", config, got)
		}
	}
}

// TestHistogramFormFollowsTheServers: with prometheus.nativeHistograms the classic series of a
// catalog histogram are the ones that read nothing, and the bare name is right. On the
// adopter's catalog (whose servers keep native histograms) and on the embedded one switched.
func TestHistogramFormFollowsTheServers(t *testing.T) {
	classic := map[string]string{"r.yaml": rules("      - record: model:ttft:p99\n        expr: histogram_quantile(0.99, sum by (le) (rate(vllm:time_to_first_token_seconds_bucket[5m])))\n      - record: model:ttft:mean\n        expr: sum(rate(vllm:time_to_first_token_seconds_sum[5m])) / sum(rate(vllm:time_to_first_token_seconds_count[5m]))\n")}
	native := map[string]string{"r.yaml": rules("      - record: model:ttft:p99\n        expr: histogram_quantile(0.99, sum(rate(vllm:time_to_first_token_seconds[5m])))\n")}
	for _, config := range []string{"", "../testutil/plantest/testdata/adopter.jsonnet"} {
		p := plantest.Plan(t, config)
		p.Model.Prometheus.NativeHistograms = true
		if got := runCheck(t, p, promqlHistogramForm{}, classic); len(got) != 3 || !strings.Contains(got[0].Message, "histogram_quantile of rate(vllm:time_to_first_token_seconds[5m])") {
			t.Errorf("%s: classic series on native servers: %+v", config, got)
		}
		if got := runCheck(t, p, promqlHistogramForm{}, native); len(got) != 0 {
			t.Errorf("%s: the native histogram on native servers: %+v", config, got)
		}
		if got := runCheck(t, p, promqlUnknownMetric{}, native); len(got) != 0 {
			t.Errorf("%s: the native histogram called unknown: %+v", config, got)
		}
	}
}

// TestLastEventAdviceFollowsTheCatalog: the advice names the catalog's event window, and a
// placeholder when the catalog has none.
func TestLastEventAdviceFollowsTheCatalog(t *testing.T) {
	p := loadPlan(t)
	file := map[string]string{"r.yaml": rules("      - alert: GPUXid\n        expr: DCGM_FI_DEV_XID_ERRORS > 0\n        for: 5m\n")}
	for window, want := range map[string]string{"15m": "changes(DCGM_FI_DEV_XID_ERRORS[15m]) > 0", "": "changes(DCGM_FI_DEV_XID_ERRORS[<window>]) > 0"} {
		p.Model.Windows["event"] = window
		if got := runCheck(t, p, alertsLastEventState{}, file); len(got) != 1 || !strings.Contains(got[0].Message, want) {
			t.Errorf("windows.event %q: %+v, want %q", window, got, want)
		}
	}
}

// TestCounterMessagesSayWhatResetsThem: a raw DCGM counter counts since the exporter or the
// driver restarted; a server's own counter (vLLM's) since its process started, not since a
// driver reload.
func TestCounterMessagesSayWhatResetsThem(t *testing.T) {
	p := loadPlan(t)
	for expr, want := range map[string]string{
		"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL > 0":  "since the exporter or the GPU driver last restarted",
		"vllm:generation_tokens_total > 1e9": "since its process last started",
	} {
		got := runCheck(t, p, promqlCounter{}, map[string]string{"r.yaml": rules("      - alert: A\n        expr: " + expr + "\n")})
		if len(got) != 1 || !strings.Contains(got[0].Message, want) {
			t.Errorf("%s: %+v, want one warning saying %q", expr, got, want)
		}
	}
}

// TestRateOfEnergyIsPower: the per-second rate of a counter in joules (dcgm-exporter 4.9's
// energy) is in watts, as the catalog's units say: a panel showing it in watts and a record
// named for joules per second are right; a panel claiming joules is not. The embedded
// catalog's energy is in millijoules, whose rate needs scaling first.
func TestRateOfEnergyIsPower(t *testing.T) {
	p := plantest.Plan(t, "../../generators/promtooltests/testdata/exporter-4.9.jsonnet")
	panel := func(unit string) map[string]string {
		return map[string]string{"d.json": `{"title": "x", "panels": [{"type": "timeseries", "title": "Power from energy", "fieldConfig": {"defaults": {"unit": "` + unit + `"}}, "targets": [{"expr": "max by (UUID) (rate(DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION[5m]))"}]}]}`}
	}
	if got := runCheck(t, p, namingUnit{}, panel("watt")); len(got) != 0 {
		t.Errorf("watts: %+v", got)
	}
	if got := runCheck(t, p, namingUnit{}, panel("joule")); len(got) != 1 || !strings.Contains(got[0].Message, "claims joules but holds watts") {
		t.Errorf("joules: %+v", got)
	}
	record := map[string]string{"r.yaml": rules("      - record: gpu:dcgm_energy_joules:rate5m\n        expr: max by (UUID) (rate(DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION[5m]))\n")}
	if got := runCheck(t, p, namingUnit{}, record); len(got) != 0 {
		t.Errorf("a record of joules per second: %+v", got)
	}
}

// TestFieldsRenamedBetweenVersions: dcgm-exporter 4.10 renamed the PCIe and NVLink byte
// rates. A rule reading the other version's name never sees data, and lint names the one
// the catalog's exporter sends, whichever side the catalog is on; a deployed counter file
// that lists a field by its old name is read as that field under the wrong name.
func TestFieldsRenamedBetweenVersions(t *testing.T) {
	panel := func(name string) map[string]string {
		return map[string]string{"d.json": dashboard("L3", "max by (UUID) ("+name+")")}
	}
	for _, c := range []struct {
		config, read, want string
	}{
		{"../../generators/promtooltests/testdata/exporter-4.9.jsonnet", "DCGM_FI_PROF_PCIE_TX_BYTES_PER_SECOND", "its name from dcgm-exporter 4.10 on; this catalog's exporter (exporter.version) sends it as DCGM_FI_PROF_PCIE_TX_BYTES"},
		{"../../generators/promtooltests/testdata/gb200.jsonnet", "DCGM_FI_PROF_NVLINK_RX_BYTES", "its name before dcgm-exporter 4.10 renamed it; this catalog's exporter (exporter.version) sends it as DCGM_FI_PROF_NVLINK_RX_BYTES_PER_SECOND"},
	} {
		p := plantest.Plan(t, c.config)
		if got := runCheck(t, p, exporterNotCollected{}, panel(c.read)); len(got) != 1 || !strings.Contains(got[0].Message, c.want) {
			t.Errorf("%s reading %s: %+v", filepath.Base(c.config), c.read, got)
		}
		if got := runCheck(t, p, exporterNotCollected{}, panel(p.Model.Exporter.FieldRenames["4.10"]["DCGM_FI_PROF_PCIE_RX_BYTES"])); filepath.Base(c.config) == "gb200.jsonnet" && len(got) != 0 {
			t.Errorf("the 4.10 catalog's own name: %+v", got)
		}
	}
	p := plantest.Plan(t, "../../generators/promtooltests/testdata/gb200.jsonnet")
	p.Model.Exporter.Deployed = map[string]bool{"DCGM_FI_DEV_GPU_TEMP": true, "DCGM_FI_PROF_PCIE_TX_BYTES": true}
	got := runCheck(t, p, exporterNotCollected{}, panel("DCGM_FI_PROF_PCIE_TX_BYTES_PER_SECOND"))
	if len(got) != 1 || !strings.Contains(got[0].Message, "holds it as DCGM_FI_PROF_PCIE_TX_BYTES, its name before dcgm-exporter 4.10 renamed it") {
		t.Errorf("a counter file with the old name: %+v", got)
	}
}

// TestBucketBoundsFollowTheServers: an le matcher off the ladder is an error on servers that
// keep classic histograms and not judged on native ones (histogram_fraction interpolates). On
// the embedded catalog and on the adopter's.
func TestBucketBoundsFollowTheServers(t *testing.T) {
	off := map[string]string{"r.yaml": rules("      - record: model:ttft:within_0_4\n        expr: sum(rate(vllm:time_to_first_token_seconds_bucket{le=~\"0.4\"}[5m])) / sum(rate(vllm:time_to_first_token_seconds_count[5m]))\n")}
	for _, config := range []string{"", "../testutil/plantest/testdata/adopter.jsonnet"} {
		p := plantest.Plan(t, config)
		p.Model.Prometheus.NativeHistograms = false
		if got := runCheck(t, p, promqlBucketBound{}, off); len(got) != 1 || !strings.Contains(got[0].Message, "the nearest bounds are 0.25, 0.5") {
			t.Errorf("%s: classic servers: %+v", config, got)
		}
		p.Model.Prometheus.NativeHistograms = true
		if got := runCheck(t, p, promqlBucketBound{}, off); len(got) != 0 {
			t.Errorf("%s: native servers: %+v", config, got)
		}
	}
}

// TestBucketSelectorsOfSeveralBounds: le=~"1|1.0" with its point unescaped also selects the
// bucket of 160 on vLLM's time-to-first-token ladder (as Go's and Rust's clients and
// Prometheus 2's text scrape spell it), so a sum over it counts those observations twice; the
// escaped form selects one bound.
func TestBucketSelectorsOfSeveralBounds(t *testing.T) {
	p := plantest.Plan(t, "")
	p.Model.Prometheus.NativeHistograms = false
	read := func(le string) map[string]string {
		return map[string]string{"r.yaml": rules("      - record: model:ttft:within_1\n        expr: sum(rate(vllm:time_to_first_token_seconds_bucket{le=~\"" + le + "\"}[5m]))\n")}
	}
	if got := runCheck(t, p, promqlBucketBound{}, read(`1|1.0`)); len(got) != 1 || !strings.Contains(got[0].Message, "together (1, 160)") {
		t.Errorf("an unescaped point: %+v", got)
	}
	if got := runCheck(t, p, promqlBucketBound{}, read(`1|1\\.0`)); len(got) != 0 {
		t.Errorf("an escaped point: %+v", got)
	}
}

// TestCountersByTheirName: a metric the catalog does not know that ends in _total is a counter
// by Prometheus' naming, and so are a histogram's _sum and _count read together: their raw
// values divided are a warning; delta() on a _total name is an info (an exporter may name a
// gauge so), and a gauge that ends in _count is not judged; on the embedded catalog and on the
// adopter's.
func TestCountersByTheirName(t *testing.T) {
	file := map[string]string{"r.yaml": rules("      - alert: EccErrors\n        expr: delta(gpu_ecc_correct_total[10m]) > 100\n" +
		"      - record: job:cache_hit:ratio\n        expr: sum(cache_hits_total) / sum(cache_queries_total)\n" +
		// A histogram's lifetime mean; a gauge that ends in _count divided alone is not judged.
		"      - record: job:tpot:mean\n        expr: avg(llm_time_per_output_token_seconds_sum) / avg(llm_time_per_output_token_seconds_count)\n" +
		"      - record: job:osd:ratio\n        expr: sum(storage_osd_up_count) / sum(storage_osd_count)\n")}
	for _, config := range []string{"", "../testutil/plantest/testdata/adopter.jsonnet"} {
		got := runCheck(t, plantest.Plan(t, config), promqlCounter{}, file)
		var messages []string
		for _, p := range got {
			messages = append(messages, p.Severity.String()+": "+p.Message)
		}
		all := strings.Join(messages, "\n")
		if len(got) != 5 || strings.Count(all, "warning: counter cache_") != 2 || strings.Count(all, "warning: counter llm_time_per_output_token_seconds_") != 2 ||
			!strings.Contains(all, "info: delta() on gpu_ecc_correct_total, a counter by its name") {
			t.Errorf("%s: %s", config, all)
		}
	}
}

// TestNCCLSeriesFanOut: NCCL Inspector's series fan out per rank by communicator, collective
// and message size (metrics.<name>.fanout); the budget projects a hand-written alert or panel
// that keeps them, though it reads no GPU field, and passes one that aggregates them away. On
// the training catalog and on a team's Grace Blackwell catalog (labels renamed, the rank's
// host label exported_node).
func TestNCCLSeriesFanOut(t *testing.T) {
	for _, c := range []struct{ config, cluster, rank string }{
		{"../testutil/plantest/testdata/training.jsonnet", "cluster", "node"},
		{"../testutil/plantest/testdata/adopter-gb200.jsonnet", "k8s_cluster", "exported_node"},
	} {
		p := plantest.Plan(t, c.config)
		by := func(labels ...string) string {
			return strings.Join(append([]string{c.cluster, c.rank, "gpu"}, labels...), ", ")
		}
		wide := map[string]string{
			"r.yaml": rules("      - alert: SlowCollective\n        expr: max by (" + by("comm_name", "collective", "message_size") + ") (nccl_bus_bandwidth_gbs) < 10\n"),
			"d.json": dashboard("L4", `nccl_bus_bandwidth_gbs{`+c.cluster+`="$cluster"}`),
		}
		got := runCheck(t, p, cardinalityBudget{}, wide)
		if len(got) != 2 || !strings.Contains(got[0].Message+got[1].Message, "SlowCollective: projected") {
			t.Errorf("%s: a rule and a panel keeping the communicators, collectives and sizes: %+v, want both over budget", c.config, got)
		}
		narrow := map[string]string{
			"r.yaml": rules("      - alert: SlowCollective\n        expr: max by (" + by("comm_name") + ") (nccl_bus_bandwidth_gbs) < 10\n"),
			"d.json": dashboard("L4", `max by (`+c.cluster+`, collective) (nccl_bus_bandwidth_gbs{`+c.cluster+`="$cluster"})`),
		}
		if got := runCheck(t, p, cardinalityBudget{}, narrow); len(got) != 0 {
			t.Errorf("%s: the fan-out aggregated away: %+v", c.config, got)
		}
	}
}

// TestAnExportedNamespaceScopesItsPods: a panel of one workload's GPUs keeps its namespace's
// pods, whether it picks the namespace where the exporter's label arrives or where a scrape
// whose target's labels win puts it (exported_namespace, honorLabels: false); the same panel
// without a pick is over the budget. On the embedded catalog and on the adopter's.
func TestAnExportedNamespaceScopesItsPods(t *testing.T) {
	for _, c := range []struct{ config, host, ns, exported string }{
		{"", "Hostname", "namespace", "exported_namespace"},
		{"../testutil/plantest/testdata/adopter.jsonnet", "node", "k8s_namespace", "exported_k8s_namespace"},
	} {
		p := plantest.Plan(t, c.config)
		for _, pick := range []string{c.ns, c.exported} {
			workload := map[string]string{"d.json": dashboard("L4", `max by (`+c.host+`, gpu) (DCGM_FI_PROF_SM_ACTIVE{`+pick+`="$namespace"})`)}
			if got := runCheck(t, p, cardinalityBudget{}, workload); len(got) != 0 {
				t.Errorf("%s: the workload's namespace picked by %s: %+v", c.config, pick, got)
			}
		}
		every := map[string]string{"d.json": dashboard("L4", `max by (`+c.host+`, gpu) (DCGM_FI_PROF_SM_ACTIVE)`)}
		if got := runCheck(t, p, cardinalityBudget{}, every); len(got) != 1 {
			t.Errorf("%s: no namespace picked: %+v, want the budget exceeded", c.config, got)
		}
	}
}

// TestANamespacePickedByAVariableScopesItsPods: a panel of one namespace, picked by a
// single-value query variable, by pod or container keeps that namespace's pods, whether or not
// it keeps the host; a multi-value pick by a regular expression scopes nothing. On the
// embedded catalog and on the adopter's.
func TestANamespacePickedByAVariableScopesItsPods(t *testing.T) {
	panel := func(multi string) map[string]string {
		return map[string]string{"d.json": `{"title": "t", "tags": ["L2"], "templating": {"list": [{"name": "namespace", "type": "query", "query": "label_values(DCGM_FI_DEV_GPU_UTIL, namespace)", "multi": ` + multi + `}]},
"panels": [{"title": "a", "targets": [{"expr": "sum by (pod) (DCGM_FI_DEV_FB_USED{namespace=\"$namespace\"})"}]}, {"title": "b", "targets": [{"expr": "sum by (container) (DCGM_FI_DEV_FB_USED{namespace=~\"$namespace\"})"}]}]}`}
	}
	for _, config := range []string{"", "../testutil/plantest/testdata/adopter.jsonnet"} {
		p := plantest.Plan(t, config)
		if config != "" {
			// The adopter's pod labels are its own; the panel names them.
			for k, v := range panel("false") {
				panel := strings.NewReplacer("by (pod)", "by (k8s_pod)", "by (container)", "by (k8s_container)", "namespace=", "k8s_namespace=").Replace(v)
				if got := runCheck(t, p, cardinalityBudget{}, map[string]string{k: panel}); len(got) != 0 {
					t.Errorf("%s: one namespace: %+v", config, got)
				}
			}
			continue
		}
		if got := runCheck(t, p, cardinalityBudget{}, panel("false")); len(got) != 0 {
			t.Errorf("one namespace: %+v", got)
		}
		// An equality matcher holds one value whatever the variable; a regular expression on a
		// multi-value variable holds any number.
		if got := runCheck(t, p, cardinalityBudget{}, panel("true")); len(got) != 1 || !strings.Contains(got[0].Message, `panel "b"`) {
			t.Errorf("namespaces picked by a multi-value variable: %+v, want the regular-expression panel over the budget", got)
		}
	}
}
