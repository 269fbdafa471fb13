package generators

import (
	"regexp"
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/generators/promtooltests"
	"github.com/gpuobs/gpuobs/internal/plan/plantest"
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
		if strings.HasPrefix(f.Path, promtooltests.Dir) {
			continue
		}
		if m := long.Find(f.Content); m != nil {
			t.Errorf("%s writes %s", f.Path, m)
		}
	}
}
