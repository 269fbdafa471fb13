package model

// Runbook is the response guide of an alert.
type Runbook struct {
	Meaning string `json:"meaning"`
	Impact  string `json:"impact"`
	// Notes explain specifics, such as each XID code an alert covers.
	Notes []string `json:"notes"`
	// Queries are first-look PromQL; $label stands for the value of the alert's label.
	Queries    []RunbookQuery `json:"queries"`
	Diagnosis  []Step         `json:"diagnosis"`
	Mitigation []string       `json:"mitigation"`
	Escalation string         `json:"escalation"`
	// Dashboards are the levels (L1..L5) worth opening, most specific last.
	Dashboards []string `json:"dashboards"`
}

// RunbookQuery is one first-look query.
type RunbookQuery struct {
	Title string `json:"title"`
	Expr  string `json:"expr"`
}

// Step is one decision of a diagnosis flowchart: a question, what a yes means, and what a no
// means ("" goes on to the next step).
type Step struct {
	Check string `json:"check"`
	Yes   string `json:"yes"`
	No    string `json:"no"`
}

// Runbooks configures runbook links.
type Runbooks struct {
	BaseURL string `json:"baseURL"`
	// GrafanaURL is where the generated dashboards are served; runbooks link into it.
	GrafanaURL string `json:"grafanaURL"`
}

// RunbookURL is the runbook link of an alert.
func (m *Model) RunbookURL(alert string) string {
	return m.Runbooks.BaseURL + alert + ".md"
}
