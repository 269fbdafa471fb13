package catalogdoc

import (
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

func TestPageListsEveryFieldWithItsUsers(t *testing.T) {
	p := plantest.Plan(t, "")
	m := p.Model
	files, err := Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	page := string(files[0].Content)
	for name := range m.Fields {
		if strings.Count(page, "| `"+name+"` |") != 1 {
			t.Errorf("field %s is not listed exactly once", name)
		}
	}
	for name := range m.Alerts {
		if !strings.Contains(page, "[`"+name+"`](../runbooks/"+name+".md)") {
			t.Errorf("alert %s is not listed with its runbook", name)
		}
	}
	row := page[strings.Index(page, "| `DCGM_FI_DEV_ECC_DBE_VOL_TOTAL` |"):]
	row = row[:strings.Index(row, "\n")]
	for _, want := range []string{"`gpu:dcgm_ecc_dbe_vol_total:max`", "`cluster:gpu_healthy:count`", "L3", "L5"} {
		if !strings.Contains(row, want) {
			t.Errorf("DBE row lacks %s: %s", want, row)
		}
	}
	if strings.Contains(row, "SLOInference") {
		t.Errorf("DBE row names alerts that do not read it: %s", row)
	}
}

// TestSmallCatalog shows the output on the small fixture catalog (go test -update rewrites it).
func TestSmallCatalog(t *testing.T) {
	files, err := Generate(plantest.Small(t))
	if err != nil {
		t.Fatal(err)
	}
	plantest.GoldenFiles(t, "testdata/small", files)
}
