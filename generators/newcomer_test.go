package generators

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

// newcomerAlert is one alert as a newcomer adds it to a catalog: its expression, its runbook
// (with the library's shared steps), the threshold its L5 panel shows and its scenarios, all in
// the one entry. %s is the catalog it extends.
const newcomerAlert = `local e = import 'lib/expr.libsonnet';
local rb = import 'lib/runbook.libsonnet';
local t = import 'lib/test.libsonnet';
(import '%s') {
  alerts+: {
    GPUPowerAboveRackShare: {
      local watts = 450,
      family: 'power',
      severity: 'warning',
      team: $.teams.infra,
      expr: e.fill(|||
        max by ($(gpu)) (DCGM_FI_DEV_POWER_USAGE) > $(watts)
      |||, { gpu: std.join(', ', $.identity.gpu), watts: std.toString(watts) }),
      panelThresholds:: { DCGM_FI_DEV_POWER_USAGE: watts },
      'for': '10m',
      summary: "A GPU draws more than its share of the rack's power.",
      description: 'The GPU draws {{ $value | printf "%%.0f" }} W.',
      tests: [
        t.case('a newcomer draws 500 W', true, [t.series('DCGM_FI_DEV_POWER_USAGE', '300x30 500x30')], value=500),
        t.case('a newcomer draws 300 W', false, [t.series('DCGM_FI_DEV_POWER_USAGE', '300x60')]),
      ],
      runbook: {
        meaning: 'The newcomer alert: the GPU has drawn over its 450 W share of the rack for 10m.',
        impact: 'The rack trips its breaker when several GPUs do.',
        queries: [rb.query('Power of the GPUs of the node', 'DCGM_FI_DEV_POWER_USAGE' + rb.sel([$.labels.cluster, $.labels.host]))],
        diagnosis: [rb.step('Do other GPUs of the rack draw as much?', 'Cap the rack.', 'Check the job on this GPU.')],
        mitigation: [$.nodes.cordon($.labels.host)],
        escalation: rb.escalation.infra,
        dashboards: ['L5'],
      },
    },
  },
}
`

// TestOneAlertInOneEntry: an alert added in one entry of a catalog of one's own, with its
// runbook, panel threshold and scenarios, comes out whole: its runbook page says what the entry
// wrote (the shared cordon step with the catalog's host label), its L5 panel shows its
// threshold, and its promtool tests hold its scenarios. On the embedded catalog, and on the
// adopter's, which renames every label and team.
func TestOneAlertInOneEntry(t *testing.T) {
	for _, base := range []string{"gpuobs.libsonnet", "adopter.jsonnet"} {
		t.Run(base, func(t *testing.T) {
			p := plantest.Plan(t, plantest.Catalog(t, fmt.Sprintf(newcomerAlert, base)))
			files, _, err := Run(p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			content := map[string]string{}
			for _, f := range files {
				content[f.Path] = string(f.Content)
			}
			page := content[output.Runbook("GPUPowerAboveRackShare")]
			for _, want := range []string{"The newcomer alert: the GPU has drawn over its 450 W share", "`kubectl cordon $" + p.Model.Labels.Host + "`"} {
				if !strings.Contains(page, want) {
					t.Errorf("the runbook page does not say %q:\n%s", want, page)
				}
			}
			if got := l5Thresholds(t, content[output.Dashboard("L5")], "DCGM_FI_DEV_POWER_USAGE{"); got != "green, red at 450" {
				t.Errorf("the L5 power panel's thresholds are %q, want green, red at 450", got)
			}
			for _, c := range []struct {
				scenario, values string
				fires            bool
			}{{"a-newcomer-draws-500-w", "300x30 500x30", true}, {"a-newcomer-draws-300-w", "300x60", false}} {
				if !scenarioTested(t, content, "GPUPowerAboveRackShare", p.Model.Labels.Host, c.scenario, c.values, c.fires) {
					t.Errorf("no promtool test plays the scenario %s (DCGM_FI_DEV_POWER_USAGE %s)", c.scenario, c.values)
				}
			}
		})
	}
}

// scenarioTested reports whether a promtool test file plays an alert's scenario: the
// scenario's power series (values) on its own host, named after the alert and the scenario,
// and where it fires the alert expected on that host.
func scenarioTested(t *testing.T, content map[string]string, alert, hostLabel, scenario, values string, fires bool) bool {
	t.Helper()
	host := strings.ToLower(alert) + "-" + scenario
	for path, text := range content {
		if !strings.HasPrefix(path, output.TestsDir+"/") {
			continue
		}
		var file struct {
			Tests []struct {
				InputSeries []struct {
					Series string `yaml:"series"`
					Values string `yaml:"values"`
				} `yaml:"input_series"`
				AlertRuleTests []struct {
					Alertname string `yaml:"alertname"`
					ExpAlerts []struct {
						ExpLabels map[string]string `yaml:"exp_labels"`
					} `yaml:"exp_alerts"`
				} `yaml:"alert_rule_test"`
			} `yaml:"tests"`
		}
		if err := yaml.Unmarshal([]byte(text), &file); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, test := range file.Tests {
			played, expected := false, !fires
			for _, s := range test.InputSeries {
				played = played || strings.HasPrefix(s.Series, "DCGM_FI_DEV_POWER_USAGE{") && strings.Contains(s.Series, hostLabel+`="`+host+`"`) && s.Values == values
			}
			for _, r := range test.AlertRuleTests {
				for _, a := range r.ExpAlerts {
					expected = expected || r.Alertname == alert && a.ExpLabels[hostLabel] == host
				}
			}
			if played && expected {
				return true
			}
		}
	}
	return false
}

// l5Thresholds describes the threshold steps of the panel of a dashboard whose query reads
// selector: "green, red at 450".
func l5Thresholds(t *testing.T, dashboard, selector string) string {
	t.Helper()
	for _, panel := range dashboardPanels(t, dashboard) {
		if len(panel.Targets) != 1 || !strings.Contains(panel.Targets[0].Expr, selector) {
			continue
		}
		var steps []string
		for _, s := range panel.Thresholds() {
			if s.Value == nil {
				steps = append(steps, s.Color)
			} else {
				steps = append(steps, fmt.Sprintf("%s at %g", s.Color, *s.Value))
			}
		}
		return strings.Join(steps, ", ")
	}
	t.Fatalf("no panel reads %s", selector)
	return ""
}

// dashboardPanel is what the tests read of a panel of a classic dashboard.
type dashboardPanel struct {
	Title   string `json:"title"`
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
	FieldConfig struct {
		Defaults struct {
			Thresholds struct {
				Steps []thresholdStep `json:"steps"`
			} `json:"thresholds"`
		} `json:"defaults"`
	} `json:"fieldConfig"`
}

// thresholdStep is a step of a panel's thresholds: from Value on (nil: from the lowest value)
// the panel shows Color.
type thresholdStep struct {
	Color string   `json:"color"`
	Value *float64 `json:"value"`
}

// Thresholds are the panel's threshold steps.
func (p dashboardPanel) Thresholds() []thresholdStep { return p.FieldConfig.Defaults.Thresholds.Steps }

// dashboardPanels reads the panels of a classic dashboard's JSON.
func dashboardPanels(t *testing.T, dashboard string) []dashboardPanel {
	t.Helper()
	var d struct {
		Panels []dashboardPanel `json:"panels"`
	}
	if err := json.Unmarshal([]byte(dashboard), &d); err != nil {
		t.Fatal(err)
	}
	return d.Panels
}
