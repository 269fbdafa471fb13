package generators

import (
	"regexp"
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
				if !strings.Contains(q.Expr, `="`+c.uuid+`"}`) {
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

// TestL4ShowsTheInspectorsRanks: where the section nccl is on, L4's collectives row shows each
// of NCCL Inspector's four series (collectives and point-to-point, time and bandwidth) of the
// workload's ranks only: each query keeps the pods of the dashboard's namespace, whose GPUs
// DCGM attributes (the inspector's series carry no namespace). Where it is off, nothing reads
// them. On the training catalog, a team's (labels renamed, the rank's label exported_node)
// and the embedded one.
func TestL4ShowsTheInspectorsRanks(t *testing.T) {
	inspector := []string{"nccl_collective_exec_time_microseconds", "nccl_bus_bandwidth_gbs", "nccl_p2p_exec_time_microseconds", "nccl_p2p_bus_bandwidth_gbs"}
	for _, c := range []struct {
		config, namespace string
		on                bool
	}{
		{"../internal/testutil/plantest/testdata/training.jsonnet", `namespace="$namespace"`, true},
		{"../internal/testutil/plantest/testdata/adopter-gb200.jsonnet", `k8s_namespace="$namespace"`, true},
		{"", "", false},
	} {
		p := plantest.Plan(t, c.config)
		shown := map[string]bool{}
		for _, r := range p.Model.Dashboards["L4"].Rows {
			for _, panel := range r.Panels {
				for _, q := range panel.Queries {
					for _, metric := range inspector {
						if !strings.Contains(q.Expr, metric+"{") {
							continue
						}
						shown[metric] = true
						if !strings.Contains(q.Expr, c.namespace) {
							t.Errorf("%q: panel %q reads every rank of the cluster, not the namespace's (%s): %s", c.config, panel.Title, c.namespace, q.Expr)
						}
					}
				}
			}
		}
		for _, metric := range inspector {
			if shown[metric] != c.on {
				t.Errorf("%q: L4 shows %s: %t, want %t", c.config, metric, shown[metric], c.on)
			}
		}
	}
}

// TestStarvedRunbookShowsWhatTheAlertCompares: the starved-collective runbook's expected
// bandwidth is the baseline the alert compares with (its recorded percentile, over the same
// window), not a figure computed another way. On the training catalog and a team's.
func TestStarvedRunbookShowsWhatTheAlertCompares(t *testing.T) {
	for _, config := range []string{"../internal/testutil/plantest/testdata/training.jsonnet", "../internal/testutil/plantest/testdata/adopter-gb200.jsonnet"} {
		a := plantest.Plan(t, config).Model.Alerts["GPUNcclCollectiveStarved"]
		baseline := regexp.MustCompile(`max_over_time\(([a-z_:0-9]+)\[([0-9a-z]+)\]\)`).FindStringSubmatch(a.Expr)
		if baseline == nil {
			t.Fatalf("%s: no baseline in %s", config, a.Expr)
		}
		shown := false
		for _, q := range a.Runbook.Queries {
			shown = shown || strings.Contains(q.Expr, "max_over_time("+baseline[1]+"{") && strings.HasSuffix(strings.TrimSpace(q.Expr), "["+baseline[2]+"])")
		}
		if !shown {
			t.Errorf("%s: no runbook query shows the baseline %s over %s", config, baseline[1], baseline[2])
		}
	}
}
