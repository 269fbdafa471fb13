package model

// Runbook is the response guide of an alert.
type Runbook struct {
	// Meaning says what the alert means; Impact what it costs if left alone.
	Meaning string `json:"meaning"`
	Impact  string `json:"impact"`
	// Notes explain specifics, such as each XID code an alert covers.
	Notes []string `json:"notes"`
	// Queries are first-look PromQL; $label stands for the value of the alert's label.
	Queries []RunbookQuery `json:"queries"`
	// Diagnosis is the flowchart that finds the cause.
	Diagnosis []Step `json:"diagnosis"`
	// Mitigation are the steps that fix it, in order.
	Mitigation []string `json:"mitigation"`
	// Escalation says whom to call when the steps do not help.
	Escalation string `json:"escalation"`
	// Dashboards are the levels (L1..L5) worth opening, most specific last.
	Dashboards []string `json:"dashboards"`
}

// RunbookQuery is one first-look query.
type RunbookQuery struct {
	// Title says what the query shows; Expr is the PromQL.
	Title string `json:"title"`
	Expr  string `json:"expr"`
}

// Step is one decision of a diagnosis flowchart: a question, what a yes means, and what a no
// means ("" goes on to the next step).
type Step struct {
	// Check is the question; Yes and No what each answer means.
	Check string `json:"check"`
	Yes   string `json:"yes"`
	No    string `json:"no"`
}

// Runbooks configures runbook links.
type Runbooks struct {
	// BaseURL is where the runbooks are served: an alert's runbook_url is BaseURL, its name
	// and ".md" (RunbookURL).
	BaseURL string `json:"baseURL"`
	// GrafanaURL is where the generated dashboards are served; runbooks link into it.
	GrafanaURL string `json:"grafanaURL"`
}

// RunbookURL is the runbook link of an alert.
func (m *Model) RunbookURL(alert string) string {
	return m.Runbooks.BaseURL + alert + ".md"
}
