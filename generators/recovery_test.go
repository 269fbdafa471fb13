package generators

import (
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

// TestRecoveryTiersFollowTheCatalog: on the adopter's catalog (exporter 4.8.3), moving a
// recovery action to the page tier and lengthening the verdict window moves the action's
// value, its name in the summary and runbook, and the window in the text.
func TestRecoveryTiersFollowTheCatalog(t *testing.T) {
	m := plantest.Plan(t, plantest.Catalog(t, `(import 'adopter.jsonnet') + {
  recoveryActions+: { '1'+: { severity: 'critical' } },
  windows+: { verdict: '7m' },
}`)).Model
	page, ticket := m.Alerts["GPURecoveryRequired"], m.Alerts["GPURecoveryPending"]
	for what, ok := range map[string]bool{
		"the page reads action 1":             strings.Contains(page.Expr, "== 1,"),
		"the ticket no longer reads action 1": !strings.Contains(ticket.Expr, "== 1,"),
		"the page's summary names it":         strings.Contains(page.Summary, "GPU reset"),
		"the ticket's summary does not":       !strings.Contains(ticket.Summary, "GPU reset"),
		"the page's runbook names it":         strings.Contains(page.Runbook.Meaning, "1, GPU reset"),
		"the page waits the window":           page.For == "7m" && strings.Contains(page.Description, "for 7m"),
	} {
		if !ok {
			t.Errorf("%s: page %q / %q, ticket %q / %q", what, page.Expr, page.Summary, ticket.Expr, ticket.Summary)
		}
	}
}
