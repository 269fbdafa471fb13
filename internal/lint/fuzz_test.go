package lint

import (
	"os"
	"testing"

	"github.com/gpuobs/gpuobs/internal/plan"
)

// fuzzChecks reads data as path would be read and runs every check on it: nothing may panic,
// and every problem must point into the file.
func fuzzChecks(t *testing.T, p *plan.Plan, path string, data []byte) {
	f := ReadFile(path, data)
	for _, p := range Run(NewInputs(p, []*File{f}), Checks()) {
		if p.Pos.Line < 1 || p.Pos.Col < 1 || p.Pos.Line > len(f.Lines)+1 {
			t.Fatalf("problem outside the file: %+v (%d lines)", p, len(f.Lines))
		}
	}
}

func FuzzReadRules(f *testing.F) {
	p := loadPlan(f)
	for _, name := range []string{"testdata/rules.yaml", "testdata/operator.yaml", "../../rules/alerts.yaml"} {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	for name, src := range brokenInputs {
		if name[len(name)-4:] == "yaml" {
			f.Add([]byte(src))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzChecks(t, p, "fuzz.yaml", data) })
}

func FuzzReadDashboard(f *testing.F) {
	p := loadPlan(f)
	if data, err := os.ReadFile("testdata/l1.json"); err == nil {
		f.Add(data)
	}
	for name, src := range brokenInputs {
		if name[len(name)-4:] == "json" {
			f.Add([]byte(src))
		}
	}
	f.Add([]byte(dashboard("L2", "sum by (cluster) (DCGM_FI_DEV_FB_USED)", "rate(DCGM_FI_DEV_GPU_TEMP[5m])")))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzChecks(t, p, "fuzz.json", data) })
}
