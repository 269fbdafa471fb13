package plan_test

import (
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
	"github.com/gpuobs/gpuobs/internal/testutil/testcatalog"
)

// TestASectionRunsAtItsOwnInterval: NCCL Inspector's records and alerts, which read every
// rank's series and change every 30 s at the most, run in groups of their own at the
// section's interval (3m); InfiniBand's, in the same family, stay in theirs at the default.
// A team's interval replaces it. On the embedded catalog and on a team's that renames labels
// and teams and switches sections off.
func TestASectionRunsAtItsOwnInterval(t *testing.T) {
	for _, c := range []struct{ base, interval string }{
		{"(import 'gpuobs.libsonnet') { enabled+: { infiniband: true, nccl: true } }", "3m"},
		{"(import 'adopter.jsonnet') { enabled+: { infiniband: true, nccl: true }, recording+: { sectionIntervals+: { nccl: '2m' } } }", "2m"},
	} {
		p, err := plan.Build(testcatalog.Model(t, plantest.Catalog(t, c.base)))
		if err != nil {
			t.Fatal(err)
		}
		nccl, infiniband := 0, 0
		for _, f := range p.RuleFiles() {
			for _, g := range f.Groups {
				if strings.Contains(g.Name, "-retention-") {
					continue // the retention tiers' copies, at their own intervals
				}
				for _, r := range g.Rules {
					name := r.Record + r.Alert
					switch own := strings.HasSuffix(g.Name, "-nccl-alerts") || strings.HasSuffix(g.Name, "-nccl-recording"); {
					case strings.Contains(name, "Nccl") || strings.Contains(name, ":nccl_"):
						nccl++
						if !own || g.Interval != c.interval {
							t.Errorf("%s: %s is in group %s at interval %q, want the section's own at %s", c.base, name, g.Name, g.Interval, c.interval)
						}
					case strings.Contains(name, "InfiniBand") || strings.Contains(name, "infiniband"):
						infiniband++
						if own || g.Interval == c.interval {
							t.Errorf("%s: %s is in group %s at interval %q, with NCCL's", c.base, name, g.Name, g.Interval)
						}
					}
				}
			}
		}
		if nccl == 0 || infiniband == 0 {
			t.Errorf("%s: %d NCCL and %d InfiniBand rules", c.base, nccl, infiniband)
		}
	}
}
