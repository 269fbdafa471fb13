package model

// Dashboard is one level of the dashboard hierarchy (L1 fleet ... L5 one GPU).
type Dashboard struct {
	// UID is the dashboard's UID, after Deploy.Grafana.UIDPrefix.
	UID string `json:"uid"`
	// Title and Description are shown in Grafana.
	Title       string `json:"title"`
	Description string `json:"description"`
	// Vars maps the template variables the level takes to the alert labels that fill them,
	// for links into it.
	Vars map[string]string `json:"vars"`
	// Variables are the template variables besides the data source, in order.
	Variables []Variable `json:"variables"`
	// Links are the levels the dashboard links to, carrying its variables.
	Links []string `json:"links"`
	// Rows are the rows of panels, in order.
	Rows []Row `json:"rows"`
	// Annotations mark events on every panel.
	Annotations []DashAnnotation `json:"annotations"`
}

// Variable is a template variable filled by a query (label_values(...)).
type Variable struct {
	// Name is the variable ($name), Label its caption, Query the label_values query that fills it.
	Name  string `json:"name"`
	Label string `json:"label"`
	Query string `json:"query"`
	// Multi allows several values, and All.
	Multi bool `json:"multi"`
}

// Row is a titled row of panels.
type Row struct {
	// Title is the row's heading; Panels its panels, in order.
	Title  string  `json:"title"`
	Panels []Panel `json:"panels"`
}

// Panel is one dashboard panel.
type Panel struct {
	// Title is shown above the panel.
	Title string `json:"title"`
	// Type is Grafana's panel type (timeseries, stat, heatmap, ...).
	Type string `json:"type"`
	// Description is the panel's help, shown on hover.
	Description string `json:"description"`
	// Unit is the Grafana unit id of the values.
	Unit string `json:"unit"`
	// Min and Max bound the axis; nil leaves it to Grafana.
	Min *float64 `json:"min"`
	Max *float64 `json:"max"`
	// Thresholds are [value, color] steps, the first value null (the base).
	Thresholds [][2]any `json:"thresholds"`
	// Queries are the panel's PromQL queries.
	Queries []Query `json:"queries"`
	// Width is the panel's width in Grafana's 24-column grid.
	Width int `json:"width"`
	// Drill is the level each series links to, its variables taken from the series' labels:
	// the labels the level's vars name, or DrillVars (variable -> label) where the series
	// name them otherwise.
	Drill     string            `json:"drill"`
	DrillVars map[string]string `json:"drillVars"`
	// Stack stacks the series.
	Stack bool `json:"stack"`
}

// Query is one PromQL query of a panel.
type Query struct {
	// Expr is the PromQL; Legend the legend format.
	Expr   string `json:"expr"`
	Legend string `json:"legend"`
}

// DashAnnotation marks events from a PromQL query on every panel's time axis.
type DashAnnotation struct {
	// Name names the annotation; Expr is the query whose series mark the events, shown in Color,
	// titled Title.
	Name  string `json:"name"`
	Expr  string `json:"expr"`
	Color string `json:"color"`
	Title string `json:"title"`
}
