package generators

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

// TestNumbersAreWrittenShort: no output people read (rules, runbooks, dashboards, the catalog
// reference) prints a number as Jsonnet's std.toString does (0.94999999999999996 for 0.95).
// The promtool test files are left out: their values are computed, and their bits matter.
func TestNumbersAreWrittenShort(t *testing.T) {
	long := regexp.MustCompile(`\d\.\d*(0{6,}|9{6,})\d`)
	files, _, err := Run(plantest.Plan(t, ""), Options{RulesFormats: []string{"operator"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasPrefix(f.Path, output.TestsDir) {
			continue
		}
		if m := long.Find(f.Content); m != nil {
			t.Errorf("%s writes %s", f.Path, m)
		}
	}
}

// TestTextFollowsOverrides: every number in alert text, runbooks and panels that a user's
// override changes follows it; none keeps the embedded default.
func TestTextFollowsOverrides(t *testing.T) {
	config := filepath.Join(t.TempDir(), "gpuobs.jsonnet")
	override := `(import 'gpuobs.libsonnet') {
  windows+: { throttle: '20m' },
  thresholds+: { throttledClockRatio: 0.85, gpuTemperatureCelsius: 87.5, idleActivity: 0.07 },
  alerts+: { GPUTemperatureHigh+: { 'for': '25m' }, DCGMExporterDown+: { 'for': '7m' }, GPUAllocatedIdle+: { 'for': '45m' } },
  slos+: { GPUAvailability+: { objective: 0.995 } },
}`
	if err := os.WriteFile(config, []byte(override), 0o644); err != nil {
		t.Fatal(err)
	}
	files, _, err := Run(plantest.Plan(t, config), Options{})
	if err != nil {
		t.Fatal(err)
	}
	content := map[string]string{}
	for _, f := range files {
		content[f.Path] = string(f.Content)
	}
	for path, want := range map[string][]string{
		"rules/alerts.yaml": {
			"A GPU has been running hot for 25m.", "has been down for 7m;", "(threshold 87.5 °C)",
			"thermally throttled for most of the last 20m.", "SM clocks below 85 % of their maximum.",
			"A GPU held by a pod has been idle for 45m.",
		},
		"runbooks/GPUTemperatureHigh.md":         {"has stayed above 87.5 °C for 25m."},
		"runbooks/GPUThermalThrottling.md":       {"for most of the last 20m.", "[20m])"},
		"runbooks/GPUAllocatedIdle.md":           {"for 45m with its engine under 7 % active."},
		"dashboards/l3.json":                     {"Throttled (share of the last 20m)"},
		"runbooks/SLOGPUAvailabilityFastBurn.md": {"99.5 % of GPU capacity is healthy"},
	} {
		for _, w := range want {
			if !strings.Contains(content[path], w) {
				t.Errorf("%s does not say %q", path, w)
			}
		}
	}
	for path, text := range content {
		if strings.HasPrefix(path, output.TestsDir) {
			continue
		}
		for _, stale := range []string{"15 minutes", "30 minutes", "share of the last 15m"} {
			if strings.Contains(text, stale) {
				t.Errorf("%s still says %q", path, stale)
			}
		}
	}
}
