package rules

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gpuobs/gpuobs/internal/conventions"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

func parse(t *testing.T, p *plan.Plan) map[string]File {
	t.Helper()
	files, err := Generate(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]File{}
	for _, f := range files {
		if errs := promql.ValidateRuleFile(f.Content); len(errs) > 0 {
			t.Fatalf("%s: %v", f.Path, errs)
		}
		var rf File
		if err := yaml.Unmarshal(f.Content, &rf); err != nil {
			t.Fatal(err)
		}
		out[f.Path] = rf
	}
	return out
}

func TestEveryAlertIsRoutableAndDocumented(t *testing.T) {
	p := plantest.Plan(t, "")
	m := p.Model
	alerts := 0
	for _, g := range parse(t, p)[output.AlertRules].Groups {
		for _, r := range g.Rules {
			alerts++
			if err := conventions.CheckAlertName(r.Alert); err != nil {
				t.Error(err)
			}
			switch model.Severity(r.Labels["severity"]) {
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
	levels := map[string]bool{}
	for _, g := range parse(t, plantest.Plan(t, ""))[output.RecordingRules].Groups {
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

func TestLabelProfileFlowsIntoRules(t *testing.T) {
	p := plantest.Plan(t, "../../internal/catalog/testdata/override.jsonnet")
	m := p.Model
	text := ""
	for _, f := range parse(t, p) {
		for _, g := range f.Groups {
			for _, r := range g.Rules {
				// The exporter's host map reads the other spellings of the exporter's own host
				// label after the catalog's, for an exporter of another version.
				if r.Record == "instance:dcgm_exporter_host:group" {
					if !strings.Contains(r.Expr, "group by (cluster, instance, hostname, Hostname)") {
						t.Errorf("the exporter's host map does not read hostname first: %s", r.Expr)
					}
					continue
				}
				text += r.Expr + "\n"
			}
		}
	}
	if strings.Contains(text, "Hostname") {
		t.Error("rules still use Hostname after hostLabel: 'hostname'")
	}
	for _, want := range []string{"by (cluster, hostname)", "exported_namespace", "DCGM_FI_DEV_MEM_CLOCK"} {
		if !strings.Contains(text, want) {
			t.Errorf("rules lack %q", want)
		}
	}
	if expr := m.Alerts["GPUTemperatureHigh"].Expr; !strings.HasSuffix(expr, "> 90") {
		t.Errorf("threshold override did not reach the alert: %s", expr)
	}
}

// TestSmallCatalog shows the output on the small fixture catalog (go test -update rewrites it).
func TestSmallCatalog(t *testing.T) {
	files, err := Generate(plantest.Small(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	plantest.GoldenFiles(t, "testdata/small", files)
}

// TestGlobalGroupsReadBehind: in a sharded topology every group of the global layer has the
// catalog's query offset, and no shard group has one; a single Prometheus has none. On the
// embedded catalog sharded, and on the adopter's catalog sharded with an offset of its own.
func TestGlobalGroupsReadBehind(t *testing.T) {
	for config, offset := range map[string]string{
		"../../internal/testutil/plantest/testdata/sharded.jsonnet":                                                    plantest.Plan(t, "").Model.Topology.GlobalQueryOffset,
		plantest.Catalog(t, "(import 'adopter.jsonnet') { topology+: { mode: 'sharded', globalQueryOffset: '45s' } }"): "45s",
	} {
		if offset == "" || offset == "0s" {
			t.Fatalf("%s: no offset to check", config)
		}
		global := 0
		for path, f := range parse(t, plantest.Plan(t, config)) {
			for _, g := range f.Groups {
				want := ""
				if strings.HasPrefix(path, output.RulesDir+"/global/") {
					want = offset
					global++
				}
				if g.QueryOffset != want {
					t.Errorf("%s: %s group %s has query_offset %q, want %q", config, path, g.Name, g.QueryOffset, want)
				}
			}
		}
		if global == 0 {
			t.Errorf("%s: no global group", config)
		}
	}
	for _, f := range parse(t, plantest.Plan(t, "")) {
		for _, g := range f.Groups {
			if g.QueryOffset != "" {
				t.Errorf("single Prometheus: group %s has query_offset %q", g.Name, g.QueryOffset)
			}
		}
	}
}
