package generators

import (
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

// TestFabricTextFollowsTheCatalog: on the adopter's catalog with Grace Blackwell racks, other
// thresholds and another registration window move the Grace Blackwell alerts' expressions,
// descriptions, runbooks and L3's alert thresholds with them; L3's row stays while the fields
// it reads are collected; and on an HGX fleet none of those alerts exists.
func TestFabricTextFollowsTheCatalog(t *testing.T) {
	p := plantest.Plan(t, plantest.Catalog(t, `(import 'adopter.jsonnet') + {
  exporter+: { platform: 'gb200' },
  thresholds+: { c2cErrorsPerMinute: 2.5, nvlinkEffectiveErrorsPerMinute: 4 },
  windows+: { fabricRegistration: '25m' },
}`))
	m := p.Model
	c2c, nvlink, waiting := m.Alerts["GPUC2CLinkErrors"], m.Alerts["GPUNvlinkEffectiveErrors"], m.Alerts["GPUFabricNotRegistered"]
	files, _, err := Run(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var l3 string
	for _, f := range files {
		if f.Path == "dashboards/l3.json" {
			l3 = string(f.Content)
		}
	}
	threshold := map[string]float64{}
	for _, panel := range dashboardPanels(t, l3) {
		if steps := panel.Thresholds(); len(steps) > 1 && steps[1].Value != nil {
			threshold[panel.Title] = *steps[1].Value
		}
	}
	for what, ok := range map[string]bool{
		"the C2C ticket reads 2.5/min":            strings.Contains(c2c.Expr, "* 60 > 2.5"),
		"its description says 2.5":                strings.Contains(c2c.Description, "(threshold 2.5)"),
		"its runbook says 2.5":                    strings.Contains(c2c.Runbook.Meaning, "more than 2.5 CRC errors"),
		"the NVLink 5 ticket reads 4/min":         strings.Contains(nvlink.Expr, "* 60 > 4"),
		"its runbook says 4":                      strings.Contains(nvlink.Runbook.Meaning, "more than 4 errors per minute"),
		"the registration ticket waits 25m":       waiting.For == "25m" && strings.Contains(waiting.Summary, "for 25m") && strings.Contains(waiting.Runbook.Meaning, "for 25m"),
		"L3's C2C panel turns red at 2.5":         threshold["C2C CRC errors and replays per minute"] == 2.5,
		"L3's NVLink 5 panel turns red at 4":      threshold["NVLink 5 errors after error correction, per minute"] == 4,
		"the adopter's team owns them":            c2c.Team == "gpu-infra",
		"the adopter's host label is in the text": strings.Contains(c2c.Description, "$labels.node"),
	} {
		if !ok {
			t.Errorf("%s: C2C %q / %q; NVLink 5 %q; registration for %q %q; L3 thresholds %v", what, c2c.Expr, c2c.Description, nvlink.Expr, waiting.For, waiting.Summary, threshold)
		}
	}
	// A counter file without the fields the row does not read (the fabric's health mask and
	// error code) keeps L3's row.
	trimmed := plantest.Plan(t, plantest.Catalog(t, `(import 'adopter.jsonnet') + {
  exporter+: { platform: 'gb200', extraCounters: std.setDiff(std.set(super.extraCounters), ['DCGM_FI_DEV_FABRIC_HEALTH_MASK', 'DCGM_FI_DEV_FABRIC_MANAGER_ERROR_CODE']) },
}`))
	if row := m.Dashboards["L3"].Rows[len(m.Dashboards["L3"].Rows)-1].Title; row != "NVLink fabric, C2C and NVLink 5" {
		t.Errorf("L3's last row on gb200 is %q", row)
	}
	if rows := trimmed.Model.Dashboards["L3"].Rows; rows[len(rows)-1].Title != "NVLink fabric, C2C and NVLink 5" {
		t.Errorf("L3 lost its Grace Blackwell row when the counter file left out fields the row does not read")
	}
	hgx := plantest.Plan(t, plantest.Catalog(t, `(import 'adopter.jsonnet')`)).Model
	for _, name := range []string{"GPUFabricUnhealthy", "GPUFabricDegraded", "GPUFabricNotRegistered", "GPUC2CLinkDown", "GPUC2CLinkErrors", "GPUNvlinkEffectiveErrors", "GPUNvlinkLinkDown", "GPUFabricUnhealthyInMaintenance"} {
		if _, ok := hgx.Alerts[name]; ok {
			t.Errorf("%s exists on an HGX fleet, which reports none of its fields", name)
		}
		if _, ok := m.Alerts[name]; !ok {
			t.Errorf("%s is missing on the gb200 fleet", name)
		}
	}
}
