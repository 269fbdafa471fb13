package generators

import (
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

// TestAnInspectorHangJoinsBusyNotWorking: where the section nccl is on, GPUBusyNotWorking (the
// hang DCGM shows) reads the age of the GPU's NCCL Inspector file first, by the GPU's UUID
// under the catalog's label, rather than a second alert doubling it; where it is off, the
// runbook has no such query. On the training catalog, a team's (labels renamed) and the
// embedded one.
func TestAnInspectorHangJoinsBusyNotWorking(t *testing.T) {
	for _, c := range []struct {
		config, uuid string
		joined       bool
	}{
		{"../internal/testutil/plantest/testdata/training.jsonnet", "$UUID", true},
		{"../internal/testutil/plantest/testdata/adopter-gb200.jsonnet", "$gpu_uuid", true},
		{"", "$UUID", false},
	} {
		p := plantest.Plan(t, c.config)
		a, ok := p.Model.Alerts["GPUBusyNotWorking"]
		if !ok {
			t.Fatalf("%q: no GPUBusyNotWorking", c.config)
		}
		var joined bool
		for _, q := range a.Runbook.Queries {
			if strings.Contains(q.Expr, "node_textfile_mtime_seconds") {
				joined = true
				if !strings.Contains(q.Expr, "nccl_inspector_metrics_"+c.uuid) {
					t.Errorf("%q: the file's age is not read by the GPU's UUID (%s): %s", c.config, c.uuid, q.Expr)
				}
			}
		}
		if joined != c.joined {
			t.Errorf("%q: the runbook reads the inspector's file: %t, want %t", c.config, joined, c.joined)
		}
		if first := a.Runbook.Diagnosis[0].Check; strings.Contains(first, "NCCL Inspector") != c.joined {
			t.Errorf("%q: the diagnosis starts with %q", c.config, first)
		}
	}
}
