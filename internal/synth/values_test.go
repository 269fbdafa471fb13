package synth

import (
	"testing"

	"github.com/gpuobs/gpuobs/internal/testutil/testcatalog"
)

// TestValuesFollowTheUnit: a field's synthetic value is the same quantity whatever unit the
// exporter reports it in, converted by the catalog's unit scale: dcgm-exporter 4.9's clocks in
// Hz are 4.8's clocks in MHz times 1e6, and temperatures, in a unit both share, are equal.
func TestValuesFollowTheUnit(t *testing.T) {
	old, next := testcatalog.Model(t, ""), testcatalog.Model(t, "../../generators/promtooltests/testdata/exporter-4.9.jsonnet")
	g := GPU{Seq: 3, Pod: &Pod{Name: "p"}}
	e := Entity{Part: 1}
	for name, factor := range map[string]float64{"DCGM_FI_DEV_SM_CLOCK": 1e6, "DCGM_FI_DEV_GPU_TEMP": 1} {
		before, after := GaugeValue(old, old.Fields[name], g, e), GaugeValue(next, next.Fields[name], g, e)
		if before == 0 || after != before*factor {
			t.Errorf("%s: %g in %s on 4.8, %g in %s on 4.9; want a factor %g", name, before, old.Fields[name].Unit, after, next.Fields[name].Unit, factor)
		}
	}
}
