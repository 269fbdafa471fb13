package model

// Alert is one alerting rule with its promtool scenarios.
type Alert struct {
	// Section is the catalog section the alert belongs to ("" for the core).
	Section string `json:"section"`
	// Family is the alert's family (xid, thermal, ...), which it carries as a label:
	// notifications are grouped by it, and a page silences its family's tickets.
	Family string `json:"family"`
	// Severity is the alert's tier.
	Severity Severity `json:"severity"`
	// Team is the name of the team that owns the alert, which routing matches on.
	Team string `json:"team"`
	// Expr is the PromQL condition; For how long it holds before the alert fires.
	Expr string `json:"expr"`
	For  string `json:"for"`
	// KeepFiringFor keeps the alert firing this long after its condition clears
	// (keep_firing_for): an event alert whose events repeat within an incident then stays one
	// alert instead of resolving and firing again.
	KeepFiringFor string `json:"keepFiringFor"`
	// Labels are the alert's labels besides severity, team and family.
	Labels map[string]string `json:"labels"`
	// Summary is one plain sentence; Description is templated with the values that matter.
	Summary     string `json:"summary"`
	Description string `json:"description"`
	// Identity is the labels that name the thing at fault, which scenarios, runbooks and
	// inhibit rules assume; when the catalog gives none, the plan derives it from the labels
	// the expression yields (catalog identity.alert less what never reaches the alert).
	Identity []string `json:"identity"`
	// Tests are the alert's promtool scenarios.
	Tests []AlertCase `json:"tests"`
	// Runbook is the alert's response guide.
	Runbook Runbook `json:"runbook"`
}

// Severity is an alert's tier: critical pages, warning tickets, info only shows.
type Severity string

// Severities.
const (
	SeverityCritical Severity = "critical"
	SeverityWarning  Severity = "warning"
	SeverityInfo     Severity = "info"
)

// Severities lists every severity, most urgent first.
var Severities = []Severity{SeverityCritical, SeverityWarning, SeverityInfo}

// Tier names a severity as the on-call sees it: critical pages, warning tickets; other values
// (info, or a hand-written rule's own) are named as they are, an empty one "no severity".
func (s Severity) Tier() string {
	switch s {
	case SeverityCritical:
		return "page"
	case SeverityWarning:
		return "ticket"
	case "":
		return "no severity"
	}
	return string(s)
}
