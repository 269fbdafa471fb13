package model

// Dashboard is one level of the dashboard hierarchy (L1 fleet ... L5 one GPU).
type Dashboard struct {
	UID         string `json:"uid"`
	Title       string `json:"title"`
	Description string `json:"description"`
	// Vars maps the template variables the level takes to the alert labels that fill them,
	// for links into it.
	Vars map[string]string `json:"vars"`
	// Variables are the template variables besides the data source, in order.
	Variables []Variable `json:"variables"`
	// Links are the levels the dashboard links to, carrying its variables.
	Links       []string         `json:"links"`
	Rows        []Row            `json:"rows"`
	Annotations []DashAnnotation `json:"annotations"`
}

// Variable is a template variable filled by a query (label_values(...)).
type Variable struct {
	Name  string `json:"name"`
	Label string `json:"label"`
	Query string `json:"query"`
	Multi bool   `json:"multi"`
}

// Row is a titled row of panels.
type Row struct {
	Title  string  `json:"title"`
	Panels []Panel `json:"panels"`
}

// Panel is one dashboard panel.
type Panel struct {
	Title       string   `json:"title"`
	Type        string   `json:"type"`
	Description string   `json:"description"`
	Unit        string   `json:"unit"`
	Min         *float64 `json:"min"`
	Max         *float64 `json:"max"`
	// Thresholds are [value, color] steps, the first value null (the base).
	Thresholds [][2]any `json:"thresholds"`
	Queries    []Query  `json:"queries"`
	// Width is the panel's width in Grafana's 24-column grid.
	Width int `json:"width"`
	// Drill is the level each series links to, its variables taken from the series' labels:
	// the labels the level's vars name, or DrillVars (variable -> label) where the series
	// name them otherwise.
	Drill     string            `json:"drill"`
	DrillVars map[string]string `json:"drillVars"`
	Stack     bool              `json:"stack"`
}

// Query is one PromQL query of a panel.
type Query struct {
	Expr   string `json:"expr"`
	Legend string `json:"legend"`
}

// DashAnnotation marks events from a PromQL query on every panel's time axis.
type DashAnnotation struct {
	Name  string `json:"name"`
	Expr  string `json:"expr"`
	Color string `json:"color"`
	Title string `json:"title"`
}
