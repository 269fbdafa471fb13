package promtooltests

// Types mirroring promtool's unit test file format. The files are written as JSON-style YAML
// (YAML 1.2 is a superset of JSON): promtool reads them with its YAML loader, and encoding
// them is six times cheaper than block YAML.

type testFile struct {
	RuleFiles          []string `yaml:"rule_files" json:"rule_files"`
	EvaluationInterval string   `yaml:"evaluation_interval" json:"evaluation_interval"`
	FuzzyCompare       bool     `yaml:"fuzzy_compare,omitempty" json:"fuzzy_compare,omitempty"`
	// GroupEvalOrder is the order promtool evaluates the rule groups in at each step; without
	// it the order is map order, a new one every run.
	GroupEvalOrder []string    `yaml:"group_eval_order,omitempty" json:"group_eval_order,omitempty"`
	Tests          []testGroup `yaml:"tests" json:"tests"`
}

type testGroup struct {
	Name           string      `yaml:"name" json:"name"`
	Interval       string      `yaml:"interval" json:"interval"`
	InputSeries    []series    `yaml:"input_series" json:"input_series"`
	AlertRuleTests []alertTest `yaml:"alert_rule_test,omitempty" json:"alert_rule_test,omitempty"`
	ExprTests      []exprTest  `yaml:"promql_expr_test,omitempty" json:"promql_expr_test,omitempty"`
}

type series struct {
	Series string `yaml:"series" json:"series"`
	Values string `yaml:"values" json:"values"`
}

type alertTest struct {
	EvalTime  string     `yaml:"eval_time" json:"eval_time"`
	Alertname string     `yaml:"alertname" json:"alertname"`
	ExpAlerts []expAlert `yaml:"exp_alerts" json:"exp_alerts"`
}

type expAlert struct {
	ExpLabels      map[string]string `yaml:"exp_labels" json:"exp_labels"`
	ExpAnnotations map[string]string `yaml:"exp_annotations" json:"exp_annotations"`
}

type exprTest struct {
	Expr       string      `yaml:"expr" json:"expr"`
	EvalTime   string      `yaml:"eval_time" json:"eval_time"`
	ExpSamples []expSample `yaml:"exp_samples" json:"exp_samples"`
}

type expSample struct {
	Labels string  `yaml:"labels" json:"labels"`
	Value  float64 `yaml:"value" json:"value"`
}
