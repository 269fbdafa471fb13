package lint

import (
	"strings"
	"testing"
)

// TestCheckDetails pins behaviour beyond fire/quiet: which message, for which construct.
func TestCheckDetails(t *testing.T) {
	p := loadPlan(t)
	for _, c := range []struct {
		name  string
		check Check
		src   string
		want  []string // substrings of the messages, in order; none means quiet
	}{
		{"declared counter that is a flag", promqlCounter{},
			rules("      - record: node:x:sum\n        expr: sum by (cluster, Hostname) (increase(DCGM_FI_DEV_RETIRED_PENDING[1h]))\n"),
			[]string{"which is a flag (the exporter declares it a counter"}},
		{"gauge that is already a rate", promqlCounter{},
			rules("      - record: node:x:sum\n        expr: sum by (cluster, Hostname) (rate(DCGM_FI_PROF_PCIE_TX_BYTES[5m]))\n"),
			[]string{"already a per-second rate"}},
		{"last XID inside rate", promqlCounter{},
			rules("      - record: node:x:sum\n        expr: sum by (cluster, Hostname) (rate(DCGM_FI_DEV_XID_ERRORS[5m]))\n"),
			[]string{"which is a last-event"}},
		{"counter read without its value", promqlCounter{},
			rules("      - record: node:x:sum\n        expr: count by (cluster, Hostname) (DCGM_FI_DEV_ECC_DBE_VOL_TOTAL) and on (cluster) count_over_time(DCGM_FI_DEV_ECC_SBE_VOL_TOTAL[5m])\n"),
			nil},
		{"a typo of a field", promqlUnknownMetric{},
			rules("      - record: node:x:max\n        expr: max by (cluster, Hostname) (DCGM_FI_DEV_GPU_TMP)\n"),
			[]string{"unknown DCGM field DCGM_FI_DEV_GPU_TMP; did you mean DCGM_FI_DEV_GPU_TEMP?"}},
		{"a record gpuobs renamed", promqlUnknownMetric{},
			dashboard("L4", "model:vllm_generation_tokens:rate5m"),
			[]string{"model:vllm_generation_tokens:rate5m was renamed model:inference_generation_tokens:rate5m: read the new name"}},
		{"a former name the team's own rules still record", promqlUnknownMetric{},
			rules("      - record: model:vllm_goodput_tokens:rate5m\n        expr: sum(rate(vllm:generation_tokens_total[5m]))\n      - alert: LowGoodput\n        expr: model:vllm_goodput_tokens:rate5m < 10\n"),
			nil},
		{"a real field the catalog lacks", exporterNotCollected{},
			rules("      - record: node:x:max\n        expr: max by (cluster, Hostname) (DCGM_FI_DEV_VIDEO_CLOCK)\n"),
			[]string{"DCGM_FI_DEV_VIDEO_CLOCK is not a field of the catalog"}},
		{"another exporter's GPU metrics", promqlUnknownMetric{},
			rules("      - record: node:x:max\n        expr: max by (instance) (nvidia_smi_temperature_gpu)\n"),
			nil},
		{"per-GPU labels of another team's rules", cardinalityLabel{},
			rules("      - record: cluster:kube_pod_info:count\n        expr: count by (cluster, pod) (kube_pod_info)\n"),
			nil},
		{"a target label the catalog does not list", alertsTemplateLabels{},
			rules("      - alert: GPUX\n        expr: DCGM_FI_DEV_GPU_TEMP > 90\n        annotations: {description: '{{ $labels.kubernetes_node }}'}\n"),
			nil},
		{"a panel pinned to one GPU by a single-value variable", cardinalityBudget{},
			strings.Replace(dashboard("L5", `DCGM_FI_DEV_GPU_TEMP{UUID=~"$gpu"}`, `DCGM_FI_DEV_GPU_TEMP{Hostname="$node"}`), `"panels"`, `"templating": {"list": [{"name": "gpu", "type": "query"}, {"name": "node", "type": "query"}]}, "panels"`, 1),
			nil},
		{"a multi-value variable pins nothing", cardinalityBudget{},
			strings.Replace(dashboard("L5", `DCGM_FI_DEV_GPU_TEMP{UUID=~"$gpu"}`), `"panels"`, `"templating": {"list": [{"name": "gpu", "type": "query", "multi": true}]}, "panels"`, 1),
			[]string{"series at 100000 GPUs (the catalog's fleet)"}},
		{"unbounded label", cardinalityLabel{},
			rules("      - record: node:x:max\n        expr: max by (cluster, Hostname, request_id) (up)\n"),
			[]string{"keeps label request_id"}},
		{"label the next level drops", cardinalityLabel{},
			rules("      - record: node:x:sum\n        expr: sum by (cluster, Hostname, pod) (DCGM_FI_DEV_FB_USED)\n      - record: cluster:x:sum\n        expr: sum by (cluster) (node:x:sum)\n"),
			[]string{"node:x:sum keeps label pod, which every rule reading it drops"}},
		{"label a reader joins on", cardinalityLabel{},
			rules("      - record: node:x:sum\n        expr: sum by (cluster, Hostname, pod) (DCGM_FI_DEV_FB_USED)\n      - record: cluster:x:sum\n        expr: sum by (cluster) (DCGM_FI_DEV_POWER_USAGE * on (cluster, Hostname, pod) group_left () node:x:sum)\n"),
			nil},
		{"per-GPU label on an L2 dashboard", cardinalityLabel{},
			dashboard("L2", "max by (cluster, pci_bus_id) (DCGM_FI_DEV_GPU_TEMP)"),
			[]string{"per-GPU label pci_bus_id"}},
		{"pod label joined in", alertsTemplateLabels{},
			rules("      - alert: GPUX\n        expr: (gpu:dcgm_pcie_replay_counter:rate5m > 1) * on (cluster, Hostname, gpu, UUID) group_right () gpu_pod:dcgm_gpu_info:group\n        annotations: {description: '{{ $labels.pod }} on {{ $labels.UUID }}'}\n"),
			nil},
		{"label dropped by a join", alertsTemplateLabels{},
			rules("      - alert: GPUX\n        expr: gpu:dcgm_pcie_replay_counter:rate5m > on (cluster) group_left () cluster:dcgm_gpu_temp:max\n        annotations: {description: '{{ .Labels.pod }}'}\n"),
			[]string{"uses $labels.pod"}},
		{"index $labels and a conditional", alertsTemplateLabels{},
			rules("      - alert: GPUX\n        expr: max by (cluster) (DCGM_FI_DEV_GPU_TEMP) > 85\n        annotations: {description: '{{ if gt $value 90.0 }}{{ index $labels \"Hostname\" }}{{ end }} {{ $value | humanize }}'}\n"),
			[]string{"uses $labels.Hostname"}},
		{"broken template", alertsTemplateLabels{},
			rules("      - alert: GPUX\n        expr: max by (cluster) (DCGM_FI_DEV_GPU_TEMP) > 85\n        annotations: {description: '{{ $labels.cluster '}\n"),
			[]string{"not a valid template"}},
		{"label_replace adds a label", alertsTemplateLabels{},
			rules("      - alert: GPUX\n        expr: label_replace(max by (UUID) (DCGM_FI_DEV_GPU_TEMP), \"node\", \"$1\", \"UUID\", \"(.*)\") > 90\n        annotations: {description: '{{ $labels.node }}'}\n"),
			nil},
		{"MIG instances kept", promqlMIGDoubleCount{},
			rules("      - record: gpu:x:sum\n        expr: sum by (cluster, Hostname, UUID, GPU_I_ID) (DCGM_FI_DEV_POWER_USAGE)\n"),
			nil},
		{"power split by each instance's share", promqlMIGDoubleCount{},
			rules("      - record: namespace:power:sum\n        expr: sum by (cluster, namespace) (DCGM_FI_DEV_POWER_USAGE * on (cluster, UUID, GPU_I_ID, namespace, pod) group_left () gpu_pod:gpu_allocated:share)\n"),
			nil},
		{"power weighed per GPU, not per instance", promqlMIGDoubleCount{},
			rules("      - record: namespace:power:sum\n        expr: sum by (cluster, namespace) (DCGM_FI_DEV_POWER_USAGE * on (cluster, UUID) group_left () gpu:weight:ratio)\n"),
			[]string{"sum over DCGM_FI_DEV_POWER_USAGE"}},
		{"count of repeated series", promqlMIGDoubleCount{},
			rules("      - record: cluster:gpus:count\n        expr: count by (cluster) (DCGM_FI_DEV_GPU_TEMP)\n"),
			[]string{"count over DCGM_FI_DEV_GPU_TEMP"}},
		{"MiB compared with bytes", unitsMismatch{},
			rules("      - alert: GPUX\n        expr: DCGM_FI_DEV_FB_USED > DCGM_FI_PROF_PCIE_TX_BYTES\n"),
			[]string{"> combines MiB with bytes_per_second"}},
		{"a long chain mixing units is one finding, at its outermost operator", unitsMismatch{},
			rules("      - alert: GPUX\n        expr: DCGM_FI_PROF_PCIE_TX_BYTES" + strings.Repeat(" + DCGM_FI_DEV_FB_USED", 1000) + " > 1\n"),
			[]string{"+ combines bytes_per_second with MiB; 1000 operators of this expression mix units (bytes_per_second, MiB), this is the outermost"}},
		{"NVLink bandwidth is declared a counter but is a rate", promqlCounter{},
			rules("      - record: node:nvlink:sum\n        expr: sum by (Hostname) (rate(DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL[5m]))\n"),
			[]string{"rate() on DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL, which is a gauge (the exporter declares it a counter; its value is not cumulative): it is already a per-second rate"}},
		{"threshold over a window", alertsFor{},
			rules("      - alert: GPUX\n        expr: avg_over_time(DCGM_FI_DEV_GPU_TEMP[15m]) > 85\n"),
			nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := "r.yaml"
			if strings.HasPrefix(c.src, "{") {
				path = "d.json"
			}
			got := runCheck(t, p, c.check, map[string]string{path: c.src})
			if len(got) != len(c.want) {
				t.Fatalf("got %d problems, want %d: %+v", len(got), len(c.want), got)
			}
			for i, w := range c.want {
				if !strings.Contains(got[i].Message, w) {
					t.Errorf("message %q lacks %q", got[i].Message, w)
				}
			}
		})
	}
}
