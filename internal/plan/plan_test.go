package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpuobs/gpuobs/internal/conventions"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/testutil/testcatalog"
)

// TestRepeatedFieldsAreNeverSummedPerGPU checks the MIG rule structurally: wherever a rule
// sums, averages or counts a device-level field that is repeated on every MIG instance, the
// instances collapse per GPU with max first, and namespace rollups of such fields weigh each
// instance's copy by its pod's share of the GPU, matched on the instance. (The promtool
// recording tests check the values on a MIG GPU.)
func TestRepeatedFieldsAreNeverSummedPerGPU(t *testing.T) {
	m := testcatalog.Model(t, "")
	p, err := Build(m)
	if err != nil {
		t.Fatal(err)
	}
	collapse := "max by (" + strings.Join(m.Identity.GPU, ", ") + ") ("
	checked := 0
	for _, r := range p.Recorded {
		if r.Signal == nil || r.Signal.Entity != model.EntityMIGRepeated || !strings.Contains(r.Expr, r.Signal.Field) {
			continue
		}
		if r.Op == "max" && r.Level != conventions.LevelGPU {
			continue // the maximum of a repeated value is the value: nothing to collapse
		}
		checked++
		if r.Level == conventions.LevelNamespace {
			if !strings.Contains(r.Expr, m.Labels.MIGInstance+", "+m.Labels.Namespace+", "+m.Labels.Pod+") group_left () "+conventions.GPUShare) {
				t.Errorf("%s attributes a repeated field of MIG instances: %s", r.Name, r.Expr)
			}
		} else if !strings.Contains(r.Expr, collapse) {
			t.Errorf("%s reads a repeated field without collapsing MIG instances with max: %s", r.Name, r.Expr)
		}
	}
	if checked == 0 {
		t.Fatal("no rule reads a repeated field")
	}
}

// TestPerGPURulesOnlyWhereRead checks that per-GPU copies are recorded only for what alerts,
// catalog records or dashboard panels read: each would add one series per GPU of the fleet. A counter's per-GPU
// record is the exception: every rate of the counter reads it, so that no increment is lost
// when the GPU's series change identity.
func TestPerGPURulesOnlyWhereRead(t *testing.T) {
	m := testcatalog.Model(t, "")
	p, err := Build(m)
	if err != nil {
		t.Fatal(err)
	}
	read, err := readByRulesAndPanels(m)
	if err != nil {
		t.Fatal(err)
	}
	perGPU := 0
	for _, r := range p.Recorded {
		if r.Level != conventions.LevelGPU {
			continue
		}
		perGPU++
		if r.Signal != nil && r.Signal.Rollup == model.RollupRate && r.Name == conventions.GPUCounter(r.Signal.Name) {
			if !readByRule(p, r.Name) {
				t.Errorf("%s is recorded per GPU but no rate reads it", r.Name)
			}
			continue
		}
		if _, ok := read[r.Name]; !ok {
			t.Errorf("%s is recorded per GPU but nothing reads it", r.Name)
		}
	}
	if perGPU == 0 {
		t.Error("no per-GPU rule: the throttle alerts read per-GPU flags")
	}
}

// readByRule reports whether a recording rule of the plan reads the named series.
func readByRule(p *Plan, name string) bool {
	for _, r := range p.Recorded {
		if r.Name != name && strings.Contains(r.Expr, name+"[") {
			return true
		}
	}
	return false
}

func TestAlertReadingAnUnknownRecordingRuleFails(t *testing.T) {
	m := testcatalog.Model(t, "")
	a := m.Alerts["GPUThermalThrottling"]
	a.Expr = "avg_over_time(gpu:dcgm_no_such_signal:max[15m]) > 0.5"
	m.Alerts["GPUThermalThrottling"] = a
	if _, err := Build(m); err == nil || !strings.Contains(err.Error(), "gpu:dcgm_no_such_signal:max") {
		t.Fatalf("want an error naming the missing recording rule, got %v", err)
	}
}

// TestReadsFollowsOnlyTheRulesASelectorAllows: an SLO alert reads its own SLO's inputs through
// the shared SLO metrics, not the other SLOs'.
func TestReadsFollowsOnlyTheRulesASelectorAllows(t *testing.T) {
	m := testcatalog.Model(t, "")
	p, err := Build(m)
	if err != nil {
		t.Fatal(err)
	}
	reads, err := newReader(p.Recorded).reads(m.Alerts["SLOGPUAvailabilityFastBurn"].Expr)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cluster:gpu_unavailable:ratio", "DCGM_FI_DEV_XID_ERRORS", "kube_node_status_capacity"} {
		if !slices.Contains(reads, want) {
			t.Errorf("availability burn reads %v, want %s among them", reads, want)
		}
	}
	if slices.Contains(reads, "vllm:time_to_first_token_seconds_count") {
		t.Errorf("availability burn reads another SLO's inputs: %v", reads)
	}
}

// TestUnknownMetricsFailWithTheClosestName: an alert, a record or a dashboard reading a metric
// nothing provides fails the build, naming the closest known metric.
func TestUnknownMetricsFailWithTheClosestName(t *testing.T) {
	m := testcatalog.Model(t, "")
	a := m.Alerts["GPUTemperatureHigh"]
	a.Expr = "DCGM_FI_DEV_GPU_TMP > 85"
	m.Alerts["GPUTemperatureHigh"] = a
	d := m.Dashboards["L2"]
	d.Rows[0].Panels[0].Queries[0].Expr = "cluster:dcgm_gpu_temp:maximum"
	m.Dashboards["L2"] = d
	_, err := Build(m)
	for _, want := range []string{
		"alerts.GPUTemperatureHigh.expr reads DCGM_FI_DEV_GPU_TMP, which no field, metric or recording rule of the catalog provides; did you mean DCGM_FI_DEV_GPU_TEMP?",
		"dashboards.L2 reads cluster:dcgm_gpu_temp:maximum, which no field, metric or recording rule of the catalog provides; did you mean cluster:dcgm_gpu_temp:max?",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Build error %v, want %q", err, want)
		}
	}
}

// TestRecordsCollidingWithDerivedRulesFail: a catalog record with the name and labels of a rule
// gpuobs derives would be written twice.
func TestRecordsCollidingWithDerivedRulesFail(t *testing.T) {
	m := testcatalog.Model(t, "")
	m.Records["node:dcgm_gpu_temp:max"] = model.Record{Record: "node:dcgm_gpu_temp:max", Family: "thermal", Expr: "max by (cluster, Hostname) (DCGM_FI_DEV_GPU_TEMP)"}
	if _, err := Build(m); err == nil || !strings.Contains(err.Error(), "node:dcgm_gpu_temp:max") || !strings.Contains(err.Error(), "already derives") {
		t.Fatalf("Build = %v, want the colliding record named", err)
	}
}

// TestLabelsFollowRecordedRules: the labels of a recorded metric are those its rule's
// expression yields, and an expression over it keeps what its aggregation keeps.
func TestLabelsFollowRecordedRules(t *testing.T) {
	m := testcatalog.Model(t, "")
	p, err := Build(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		expr string
		want []string
	}{
		{"node:dcgm_gpu_temp:max", []string{m.Labels.Cluster, m.Labels.Host}},
		{"max by (cluster) (node:dcgm_gpu_temp:max)", []string{m.Labels.Cluster}},
		{"gpu_pod:dcgm_gpu_info:group", m.Identity.Alert},
	} {
		got, open, err := p.Labels.Expr(c.expr)
		if err != nil || open || !slices.Equal(got, slices.Sorted(slices.Values(c.want))) {
			t.Errorf("%s: labels %v (open %v, %v), want %v", c.expr, got, open, err, c.want)
		}
	}
	if _, open, _ := p.Labels.Expr("some_unknown_metric"); !open {
		t.Error("an unknown metric's labels are not open")
	}
}

// TestNoRuleReadsRawSeriesOverLongRanges: every minute, no rule takes a range of more than an
// hour over raw series (at 100k GPUs, a day of raw samples per evaluation); longer windows
// read recorded series (SLO windows sum the shortest window's recorded events).
func TestNoRuleReadsRawSeriesOverLongRanges(t *testing.T) {
	p, err := Build(testcatalog.Model(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	recorded := map[string]bool{}
	for _, r := range p.Recorded {
		recorded[r.Name] = true
	}
	var exprs []string
	for _, r := range p.Recorded {
		exprs = append(exprs, r.Expr)
	}
	for _, a := range p.Alerts {
		exprs = append(exprs, a.Expr)
	}
	for _, e := range exprs {
		n, err := promql.Parse(e)
		if err != nil {
			t.Fatal(err)
		}
		promql.Walk(n, func(c *promql.Node, _ []*promql.Node) {
			if c.Kind == promql.Selector && c.Range > time.Hour && !recorded[c.Name] {
				t.Errorf("%s[%s] reads raw series over more than an hour in %s", c.Name, c.Range, e)
			}
		})
	}
}

// TestIdentityFromTheExpression: an alert without an identity gets the catalog's alert
// identity less what its expression never yields (the scenarios then expect what promtool
// sees); one that names an identity its expression cannot yield fails, naming the alert and
// the labels.
func TestIdentityFromTheExpression(t *testing.T) {
	own := func(identity string) string {
		return `(import 'gpuobs.libsonnet') { alerts+: { GPUPowerOverBudget: $.alerts.GPUTemperatureHigh {
  family: 'power', ` + identity + `
  expr: 'max by (cluster, Hostname, gpu, UUID, modelName) (DCGM_FI_DEV_POWER_USAGE) > 650',
} } }`
	}
	write := func(catalog string) string {
		path := filepath.Join(t.TempDir(), "gpuobs.jsonnet")
		if err := os.WriteFile(path, []byte(catalog), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	p, err := Build(testcatalog.Model(t, write(own(""))))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Model.Alerts["GPUPowerOverBudget"].Identity, []string{"cluster", "Hostname", "gpu", "UUID", "modelName"}; !slices.Equal(got, want) {
		t.Errorf("derived identity %v, want %v", got, want)
	}
	if got := p.Model.Alerts["GPUEccDoubleBit"].Identity; !slices.Equal(got, p.Model.Identity.Alert) {
		t.Errorf("a GPU alert keeping the full identity derived %v", got)
	}
	_, err = Build(testcatalog.Model(t, write(own("identity: $.identity.alert,"))))
	if err == nil || !strings.Contains(err.Error(), "alerts.GPUPowerOverBudget.identity: pci_bus_id, namespace, pod never reach the alert") {
		t.Errorf("Build: %v, want the alert and its missing labels named", err)
	}
}

// TestMissingFollowsFallbacks: with the exporter's per-code XID count and the double-bit ECC
// counter not collected, the double-bit page can never fire and is listed; the XID alerts fall
// back to the last-XID gauge and are not, nor are the alerts where an uncollected field only
// narrows (availability: `unless` a double-bit error).
func TestMissingFollowsFallbacks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gpuobs.jsonnet")
	catalog := `(import 'gpuobs.libsonnet') { exporter+: { extraCounters: std.filter(function(f) !std.member(['DCGM_EXP_XID_ERRORS_COUNT', 'DCGM_FI_DEV_ECC_DBE_VOL_TOTAL'], f), super.extraCounters) } }`
	if err := os.WriteFile(path, []byte(catalog), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Build(testcatalog.Model(t, path))
	if err != nil {
		t.Fatal(err)
	}
	missing := p.Missing()
	if got := missing["GPUEccDoubleBit"]; !slices.Equal(got, []string{"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL"}) {
		t.Errorf("GPUEccDoubleBit misses %v, want the double-bit counter", got)
	}
	for _, alive := range []string{"GPUXidFatal", "GPUFellOffBus", "GPUXidHardware", "SLOGPUAvailabilityFastBurn", "GPUCohortDriverErrors"} {
		if got, ok := missing[alive]; ok {
			t.Errorf("%s is listed as never firing (%v), but it falls back to a collected field", alive, got)
		}
	}
}

// TestDeclaredRecordsThatGoDerivesFail: what Go derives from a field's semantics is not
// declared again: a catalog record that repeats a derived rollup under another name (its
// grouping in another order) is refused, naming the derived rule to read, on the embedded
// catalog and on one that renames the cluster and host labels; a record that joins another
// metric is the catalog's to declare.
func TestDeclaredRecordsThatGoDerivesFail(t *testing.T) {
	for _, c := range []struct{ name, config, cluster, host string }{
		{"embedded", "", "cluster", "Hostname"},
		{"adopter", filepath.Join("..", "testutil", "plantest", "testdata", "adopter.jsonnet"), "k8s_cluster", "node"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := testcatalog.Model(t, c.config)
			m.Records["node:my_gpu_temp:max"] = model.Record{Record: "node:my_gpu_temp:max", Family: "thermal", Expr: fmt.Sprintf("max by (%s, %s) (gpu:dcgm_gpu_temp:max)", c.host, c.cluster)}
			want := fmt.Sprintf("records.node:my_gpu_temp:max: max by (%s, %s) (gpu:dcgm_gpu_temp:max) is what gpuobs already derives from the field's semantics as node:dcgm_gpu_temp:max", c.host, c.cluster)
			if _, err := Build(m); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Build = %v, want %q", err, want)
			}
			m = testcatalog.Model(t, c.config)
			m.Records["node:my_gpu_temp:max"] = model.Record{Record: "node:my_gpu_temp:max", Family: "thermal", Expr: fmt.Sprintf("max by (%s, %s) (gpu:dcgm_gpu_temp:max * on (%s) group_left () max by (%s) (kube_node_spec_unschedulable))", c.cluster, c.host, c.cluster, c.cluster)}
			if _, err := Build(m); err != nil {
				t.Errorf("a record joining another metric: %v", err)
			}
		})
	}
}

// TestRuleExprs: every recording rule's expression, in evaluation order, then every alert's by
// name, on the embedded catalog.
func TestRuleExprs(t *testing.T) {
	p, err := Build(testcatalog.Model(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	got := p.RuleExprs()
	if len(got) != len(p.Recorded)+len(p.Model.Alerts) {
		t.Fatalf("%d expressions for %d records and %d alerts", len(got), len(p.Recorded), len(p.Model.Alerts))
	}
	if got[0] != p.Recorded[0].Expr {
		t.Errorf("first: %q, want the first record's %q", got[0], p.Recorded[0].Expr)
	}
	first := model.SortedKeys(p.Model.Alerts)[0]
	if got[len(p.Recorded)] != p.Model.Alerts[first].Expr {
		t.Errorf("after the records: %q, want %s's %q", got[len(p.Recorded)], first, p.Model.Alerts[first].Expr)
	}
}
