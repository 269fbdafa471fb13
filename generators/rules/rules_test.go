package rules

import (
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gpuobs/gpuobs/internal/catalog"
	"github.com/gpuobs/gpuobs/internal/conventions"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/promql"
)

func load(t *testing.T, config string) *model.Model {
	t.Helper()
	m, err := catalog.Load(catalog.Options{ConfigPath: config})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func parse(t *testing.T, m *model.Model) map[string]ruleFile {
	t.Helper()
	files, err := Generate(m)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]ruleFile{}
	for _, f := range files {
		if errs := promql.ValidateRuleFile(f.Content); len(errs) > 0 {
			t.Fatalf("%s: %v", f.Path, errs)
		}
		var rf ruleFile
		if err := yaml.Unmarshal(f.Content, &rf); err != nil {
			t.Fatal(err)
		}
		out[f.Path] = rf
	}
	return out
}

func TestEveryAlertIsRoutableAndDocumented(t *testing.T) {
	m := load(t, "")
	alerts := 0
	for _, g := range parse(t, m)[AlertsFile].Groups {
		for _, r := range g.Rules {
			alerts++
			if err := conventions.CheckAlertName(r.Alert); err != nil {
				t.Error(err)
			}
			switch r.Labels["severity"] {
			case model.SeverityCritical, model.SeverityWarning, model.SeverityInfo:
			default:
				t.Errorf("%s: severity %q", r.Alert, r.Labels["severity"])
			}
			if r.Labels["team"] == "" {
				t.Errorf("%s has no team", r.Alert)
			}
			for _, a := range []string{"summary", "description", "runbook_url"} {
				if r.Annotations[a] == "" {
					t.Errorf("%s has no %s", r.Alert, a)
				}
			}
			if strings.Contains(r.Annotations["summary"], "{{") {
				t.Errorf("%s: summary must be a plain sentence", r.Alert)
			}
			if r.Annotations["runbook_url"] != m.RunbookURL(r.Alert) {
				t.Errorf("%s: runbook_url %q", r.Alert, r.Annotations["runbook_url"])
			}
		}
	}
	if alerts != len(m.Alerts) {
		t.Errorf("%d alerts in the file, %d in the catalog", alerts, len(m.Alerts))
	}
}

func TestRecordingRulesFollowTheNamingConvention(t *testing.T) {
	m := load(t, "")
	levels := map[string]bool{}
	for _, g := range parse(t, m)[RecordingFile].Groups {
		if !strings.HasPrefix(g.Name, "gpuobs-") || g.Interval == "" {
			t.Errorf("group %q: want a gpuobs-<family>-recording name and an interval", g.Name)
		}
		for _, r := range g.Rules {
			if err := conventions.CheckRecordName(r.Record); err != nil {
				t.Error(err)
			}
			levels[strings.SplitN(r.Record, ":", 2)[0]] = true
		}
	}
	for _, l := range []string{conventions.LevelGPU, conventions.LevelNode, conventions.LevelNamespace, conventions.LevelCluster, conventions.LevelFleet} {
		if !levels[l] {
			t.Errorf("no recording rule at level %s", l)
		}
	}
}

// TestRepeatedFieldsAreNeverSummedPerGPU checks the MIG rule structurally: wherever a rule
// sums, averages or counts a device-level field that is repeated on every MIG instance, the
// instances collapse per GPU with max first, and namespace rollups of such fields read whole
// GPUs only. (The promtool recording tests check the values on a MIG GPU.)
func TestRepeatedFieldsAreNeverSummedPerGPU(t *testing.T) {
	m := load(t, "")
	set, err := Build(m)
	if err != nil {
		t.Fatal(err)
	}
	collapse := "max by (" + strings.Join(m.Identity.GPU, ", ") + ") ("
	checked := 0
	for _, r := range set.Recorded {
		if r.Signal == nil || r.Signal.Entity != model.EntityMIGRepeated || !strings.Contains(r.Expr, r.Signal.Field) {
			continue
		}
		if r.Op == model.RollupMax && r.Level != conventions.LevelGPU {
			continue // the maximum of a repeated value is the value: nothing to collapse
		}
		checked++
		if r.Level == conventions.LevelNamespace {
			if !strings.Contains(r.Expr, m.Labels.MIGInstance+`=""`) {
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

// TestPerGPURulesOnlyWhereRead checks that per-GPU copies are recorded only for what alerts
// or catalog records read: each would add one series per GPU of the fleet.
func TestPerGPURulesOnlyWhereRead(t *testing.T) {
	m := load(t, "")
	set, err := Build(m)
	if err != nil {
		t.Fatal(err)
	}
	read, err := readByAlertsAndRecords(m)
	if err != nil {
		t.Fatal(err)
	}
	perGPU := 0
	for _, r := range set.Recorded {
		if r.Level != conventions.LevelGPU {
			continue
		}
		perGPU++
		if _, ok := read[r.Name]; !ok {
			t.Errorf("%s is recorded per GPU but nothing reads it", r.Name)
		}
	}
	if perGPU == 0 {
		t.Error("no per-GPU rule: the throttle alerts read per-GPU flags")
	}
}

func TestLabelProfileFlowsIntoRules(t *testing.T) {
	m := load(t, "../../internal/catalog/testdata/override.jsonnet")
	text := ""
	for _, f := range parse(t, m) {
		for _, g := range f.Groups {
			for _, r := range g.Rules {
				text += r.Expr + "\n"
			}
		}
	}
	if strings.Contains(text, "Hostname") {
		t.Error("rules still use Hostname after hostLabel: 'hostname'")
	}
	for _, want := range []string{"by (cluster, hostname)", "exported_namespace"} {
		if !strings.Contains(text, want) {
			t.Errorf("rules lack %q", want)
		}
	}
	if expr := m.Alerts["GPUTemperatureHigh"].Expr; !strings.HasSuffix(expr, "> 90") {
		t.Errorf("threshold override did not reach the alert: %s", expr)
	}
}

func TestAlertReadingAnUnknownRecordingRuleFails(t *testing.T) {
	m := load(t, "")
	a := m.Alerts["GPUThermalThrottling"]
	a.Expr = "avg_over_time(gpu:dcgm_no_such_signal:max[15m]) > 0.5"
	m.Alerts["GPUThermalThrottling"] = a
	if _, err := Generate(m); err == nil || !strings.Contains(err.Error(), "gpu:dcgm_no_such_signal:max") {
		t.Fatalf("want an error naming the missing recording rule, got %v", err)
	}
}

// TestReadsFollowsOnlyTheRulesASelectorAllows: an SLO alert reads its own SLO's inputs through
// the shared SLO metrics, not the other SLOs'.
func TestReadsFollowsOnlyTheRulesASelectorAllows(t *testing.T) {
	m := load(t, "")
	set, err := Build(m)
	if err != nil {
		t.Fatal(err)
	}
	reads, err := set.Reads(m.Alerts["SLOGPUAvailabilityFastBurn"].Expr)
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
