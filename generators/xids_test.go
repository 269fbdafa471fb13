package generators

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

// TestXIDClassesFollowTheCatalog: the XID alerts read their codes from xidCatalog, through the
// action NVIDIA's catalog gives each code, and each runbook cites the action of every code it
// covers. On the embedded and the adopter's catalogs, an override that moves a code to another
// class, adds a code and changes a code's action moves each code to the alert it names, and the
// catch-all alert leaves every listed code out.
func TestXIDClassesFollowTheCatalog(t *testing.T) {
	const override = `{
  xidCatalog+: {
    '94'+: { class: 'hardware' },
    '999': { name: 'A code of a newer driver', action: 'RESET_GPU' },
    '13'+: { action: 'IGNORE' },
  },
}`
	for _, c := range []struct{ name, config string }{
		{"embedded", plantest.Catalog(t, "(import 'gpuobs.libsonnet') + "+override)},
		{"adopter", plantest.Catalog(t, "(import 'adopter.jsonnet') + "+override)},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := plantest.Plan(t, c.config).Model
			for alert, codes := range map[string][]string{
				"GPUXidHardware":    {"94", "74"},
				"GPUXidFatal":       {"999", "48"},
				"GPUXidApplication": {"13", "31"},
				"GPUFellOffBus":     {"79"},
			} {
				a := m.Alerts[alert]
				for _, code := range codes {
					if !strings.Contains(a.Expr, code) {
						t.Errorf("%s does not read XID %s: %s", alert, code, a.Expr)
					}
					cite := fmt.Sprintf("XID %s, ", code)
					found := false
					for _, n := range a.Runbook.Notes {
						if strings.HasPrefix(n, cite) && strings.Contains(n, "NVIDIA's action ") {
							found = true
						}
					}
					if !found {
						t.Errorf("%s's runbook does not cite the action of XID %s: %q", alert, code, a.Runbook.Notes)
					}
				}
			}
			if strings.Contains(m.Alerts["GPUXidApplication"].Expr, "94") {
				t.Errorf("XID 94 is still an application XID: %s", m.Alerts["GPUXidApplication"].Expr)
			}
			unclassified := m.Alerts["GPUXidUnclassified"].Expr
			for class, codes := range m.XID {
				for _, code := range codes {
					if !strings.Contains(unclassified, fmt.Sprintf("|%d|", code)) && !strings.Contains(unclassified, fmt.Sprintf("\"%d|", code)) && !strings.Contains(unclassified, fmt.Sprintf("|%d\"", code)) {
						t.Errorf("GPUXidUnclassified does not leave out XID %d (class %s): %s", code, class, unclassified)
					}
				}
			}
		})
	}
}
