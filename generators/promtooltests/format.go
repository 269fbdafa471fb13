package promtooltests

// Types mirroring promtool's unit test file format.

type testFile struct {
	RuleFiles          []string    `yaml:"rule_files"`
	EvaluationInterval string      `yaml:"evaluation_interval"`
	FuzzyCompare       bool        `yaml:"fuzzy_compare,omitempty"`
	Tests              []testGroup `yaml:"tests"`
}

type testGroup struct {
	Name           string      `yaml:"name"`
	Interval       string      `yaml:"interval"`
	InputSeries    []series    `yaml:"input_series"`
	AlertRuleTests []alertTest `yaml:"alert_rule_test,omitempty"`
	ExprTests      []exprTest  `yaml:"promql_expr_test,omitempty"`
}

type series struct {
	Series string `yaml:"series"`
	Values string `yaml:"values"`
}

type alertTest struct {
	EvalTime  string     `yaml:"eval_time"`
	Alertname string     `yaml:"alertname"`
	ExpAlerts []expAlert `yaml:"exp_alerts"`
}

type expAlert struct {
	ExpLabels      map[string]string `yaml:"exp_labels"`
	ExpAnnotations map[string]string `yaml:"exp_annotations"`
}

type exprTest struct {
	Expr       string      `yaml:"expr"`
	EvalTime   string      `yaml:"eval_time"`
	ExpSamples []expSample `yaml:"exp_samples"`
}

type expSample struct {
	Labels string  `yaml:"labels"`
	Value  float64 `yaml:"value"`
}
