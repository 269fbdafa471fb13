package lint

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/source"
	"github.com/gpuobs/gpuobs/internal/testutil"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

// readTestdata reads the fixtures directly in testdata (not those of testdata/foreign).
func readTestdata(t *testing.T) []*source.File {
	t.Helper()
	files := source.ReadPaths([]string{"testdata/l1.json", "testdata/operator.yaml", "testdata/rules.yaml"})
	for _, f := range files {
		if f.Err != nil && strings.HasPrefix(f.Err.Message, "cannot read") {
			t.Fatalf("%s: %s", f.Path, f.Err.Message)
		}
	}
	return files
}

// TestTextSnapshot pins what users see: positions, source lines and carets.
func TestTextSnapshot(t *testing.T) {
	p := loadPlan(t)
	// A team policy like gpuobs' own, so that the snapshot shows the policy checks too.
	p.Model.Lint.Policy = model.LintPolicy{Severities: []string{"critical", "warning", "info"}, Annotations: []string{"summary", "description", "runbook_url"}, AlertNames: `^[A-Z][A-Za-z0-9]*$`}
	files := readTestdata(t)
	var out bytes.Buffer
	if err := Reporters.Write(&out, "text", Result{Problems: Run(NewInputs(p, files), Checks()), Files: files}); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("testdata", "lint.golden"), out.Bytes())
}

func TestReadsOperatorManifestsAndDashboards(t *testing.T) {
	files := readTestdata(t)
	byPath := map[string]*source.File{}
	for _, f := range files {
		byPath[f.Path] = f
	}
	op := byPath["testdata/operator.yaml"]
	if op == nil || len(op.Rules) != 1 || op.Rules[0].Alert != "GPUMemoryFull" || op.Rules[0].NamePos != (source.Pos{Line: 13, Col: 18}) {
		t.Fatalf("PrometheusRule not read: %+v", op)
	}
	d := byPath["testdata/l1.json"]
	if d == nil || d.Dashboard == nil || d.Dashboard.Level() != "L1" || len(d.Dashboard.Queries) != 3 {
		// Utilization (legacy rows), Power (inside a row panel), Allocated; the empty one is skipped.
		t.Fatalf("dashboard not read: %+v", d)
	}
	for _, q := range d.Dashboard.Queries {
		pos := q.Expr.PosAt(0)
		if line := d.Lines[pos.Line-1]; !strings.HasPrefix(line[pos.Col-1:], q.Expr.Text) {
			t.Errorf("panel %s: %q is not at %+v in %q", q.Panel, q.Expr.Text, pos, line)
		}
	}
}

func TestSuppression(t *testing.T) {
	p := loadPlan(t)
	bad := "      - record: gpu_power\n        expr: sum(up)\n"
	for name, src := range map[string]string{
		"comment above":   generated("      # gpuobs-lint disable naming/record\n" + bad),
		"comment inside":  generated("      - record: gpu_power # gpuobs-lint disable naming\n        expr: sum(up)\n"),
		"whole file":      strings.Replace(generated(bad), "groups:", "# gpuobs-lint disable-file naming/record\ngroups:", 1),
		"several at once": generated("      # gpuobs-lint disable promql/counter, naming/record\n" + bad),
	} {
		if got := runCheck(t, p, namingRecord{}, map[string]string{"r.yaml": src}); len(got) != 0 {
			t.Errorf("%s: not suppressed: %+v", name, got)
		}
	}
	// A comment on another rule does not suppress this one.
	other := generated("      # gpuobs-lint disable naming/record\n      - record: a:b:c\n        expr: sum(up)\n" + bad)
	if got := runCheck(t, p, namingRecord{}, map[string]string{"r.yaml": other}); len(got) != 1 {
		t.Errorf("a comment on one rule suppressed another: %+v", got)
	}
	// The catalog's disable and ignore lists.
	p.Model.Lint.Disable = []string{"naming"}
	if got := runCheck(t, p, namingRecord{}, map[string]string{"r.yaml": generated(bad)}); len(got) != 0 {
		t.Errorf("catalog disable ignored: %+v", got)
	}
	p.Model.Lint.Disable = nil
	p.Model.Lint.Ignore = []model.LintIgnore{{Check: "naming/record", Path: "legacy/*.yaml"}}
	if got := runCheck(t, p, namingRecord{}, map[string]string{"legacy/r.yaml": generated(bad), "new/r.yaml": generated(bad)}); len(got) != 1 || got[0].Path != "new/r.yaml" {
		t.Errorf("catalog ignore by path: %+v", got)
	}
}

func problemsForFormats(t *testing.T) ([]Problem, []*source.File) {
	p := loadPlan(t)
	files := readTestdata(t)
	problems := Run(NewInputs(p, files), Checks())
	if len(problems) < 5 {
		t.Fatalf("too few problems to test formats: %d", len(problems))
	}
	return problems, files
}

func TestJSONFormat(t *testing.T) {
	problems, files := problemsForFormats(t)
	var out bytes.Buffer
	if err := Reporters.Write(&out, "json", Result{Problems: problems, Files: files}); err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(problems) || got[0]["check"] == "" || got[0]["line"].(float64) < 1 {
		t.Errorf("json output: %s", out.String()[:200])
	}
}

func TestGitHubFormat(t *testing.T) {
	problems, files := problemsForFormats(t)
	var out bytes.Buffer
	if err := Reporters.Write(&out, "github", Result{Problems: problems, Files: files}); err != nil {
		t.Fatal(err)
	}
	command := regexp.MustCompile(`^::(error|warning|notice) file=[^,]+,line=\d+,col=\d+,title=[a-z]+/[a-z-]+::[^\n]+$`)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != len(problems) {
		t.Fatalf("%d lines for %d problems", len(lines), len(problems))
	}
	for _, l := range lines {
		if !command.MatchString(l) {
			t.Errorf("not a workflow command: %q", l)
		}
	}
}

// TestSARIFFormat checks the properties the SARIF 2.1.0 schema requires, and the ones
// code-scanning tools need to place a result.
func TestSARIFFormat(t *testing.T) {
	problems, files := problemsForFormats(t)
	var out bytes.Buffer
	if err := Reporters.Write(&out, "sarif", Result{Problems: problems, Files: files}); err != nil {
		t.Fatal(err)
	}
	var log map[string]any
	if err := json.Unmarshal(out.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	obj := func(v any, path string) map[string]any {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s is not an object", path)
		}
		return m
	}
	arr := func(v any, path string) []any {
		a, ok := v.([]any)
		if !ok {
			t.Fatalf("%s is not an array", path)
		}
		return a
	}
	if log["version"] != "2.1.0" {
		t.Errorf("version %v", log["version"])
	}
	runs := arr(log["runs"], "runs")
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	driver := obj(obj(obj(runs[0], "run")["tool"], "tool")["driver"], "driver")
	if driver["name"] == "" || driver["name"] == nil {
		t.Error("tool.driver.name is required")
	}
	rules := map[string]bool{}
	for _, r := range arr(driver["rules"], "rules") {
		rules[obj(r, "rule")["id"].(string)] = true
	}
	results := arr(obj(runs[0], "run")["results"], "results")
	if len(results) != len(problems) {
		t.Fatalf("%d results for %d problems", len(results), len(problems))
	}
	for i, r := range results {
		res := obj(r, "result")
		if text, _ := obj(res["message"], "message")["text"].(string); text == "" {
			t.Errorf("result %d: message.text is required", i)
		}
		if id, _ := res["ruleId"].(string); !rules[id] {
			t.Errorf("result %d: ruleId %v is not a rule of the driver", i, res["ruleId"])
		}
		switch res["level"] {
		case "error", "warning", "note":
		default:
			t.Errorf("result %d: level %v", i, res["level"])
		}
		loc := obj(obj(arr(res["locations"], "locations")[0], "location")["physicalLocation"], "physicalLocation")
		if uri, _ := obj(loc["artifactLocation"], "artifactLocation")["uri"].(string); uri == "" {
			t.Errorf("result %d: no artifact uri", i)
		}
		if line, _ := obj(loc["region"], "region")["startLine"].(float64); line < 1 {
			t.Errorf("result %d: startLine %v", i, line)
		}
	}
}

func TestCheckstyleFormat(t *testing.T) {
	problems, files := problemsForFormats(t)
	var out bytes.Buffer
	if err := Reporters.Write(&out, "checkstyle", Result{Problems: problems, Files: files}); err != nil {
		t.Fatal(err)
	}
	var doc checkstyle
	if err := xml.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range doc.Files {
		for _, e := range f.Errors {
			n++
			if f.Name == "" || e.Line < 1 || e.Severity == "" || !strings.HasPrefix(e.Source, "gpuobs.") {
				t.Errorf("malformed entry %+v in %s", e, f.Name)
			}
		}
	}
	if n != len(problems) || doc.Version == "" {
		t.Errorf("%d entries for %d problems (version %q)", n, len(problems), doc.Version)
	}
}

func TestUnknownFormat(t *testing.T) {
	if err := Reporters.Write(&bytes.Buffer{}, "yaml", Result{}); err == nil {
		t.Error("unknown format accepted")
	}
}

func TestGrafanaVariables(t *testing.T) {
	q := `sum by (Hostname, $group) (rate(DCGM_FI_DEV_PCIE_REPLAY_COUNTER{cluster="$cluster", Hostname=~"${node:regex}"}[$__rate_interval])) + DCGM_FI_DEV_GPU_TEMP`
	f := source.ReadDashboard("d.json", []byte(dashboard("L3", q)))
	e := f.Dashboard.Queries[0].Expr
	if e.Node == nil {
		t.Fatalf("query with Grafana variables does not parse: %v", e.Err)
	}
	// Positions after a replaced variable (and the JSON escapes of the quotes before it) still
	// point at the token in the file.
	parsed, _ := promql.SubstituteGrafanaVariables(e.Text, nil)
	if got := e.PosAt(strings.Index(parsed, "DCGM_FI_DEV_GPU_TEMP")); got.Line != 1 || !strings.HasPrefix(f.Lines[0][got.Col-1:], "DCGM_FI_DEV_GPU_TEMP") {
		t.Errorf("offset after substitutions maps to %+v, not to the token", got)
	}
}

// TestReadsRulesFilesAndConfigMapDashboards: .rules files are rule files, and a ConfigMap's
// dashboards (Grafana's sidecar pattern) are dashboards, positions in the YAML file.
func TestReadsRulesFilesAndConfigMapDashboards(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"node.rules": rules("      - record: node:x:sum\n        expr: sum by (cluster, Hostname) (DCGM_FI_DEV_FB_USED)\n"),
		"dashboards.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: gpu\n  labels: {grafana_dashboard: \"1\"}\ndata:\n  gpu.json: |\n" +
			"    {\"title\": \"GPU\", \"panels\": [\n      {\"title\": \"Temp\", \"targets\": [{\"expr\": \"max(DCGM_FI_DEV_GPU_TEMP)\"}]}\n    ]}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files := source.ReadPaths([]string{dir})
	var rules, queries []string
	for _, f := range files {
		for _, r := range f.Rules {
			rules = append(rules, r.Record)
		}
		if f.Dashboard != nil {
			for _, q := range f.Dashboard.Queries {
				pos := q.Expr.PosAt(0)
				if line := f.Lines[pos.Line-1]; !strings.HasPrefix(line[pos.Col-1:], q.Expr.Text) {
					t.Errorf("%s: %q is not at %+v in %q", f.Path, q.Expr.Text, pos, line)
				}
				queries = append(queries, q.Expr.Text)
			}
		}
	}
	if !slices.Equal(rules, []string{"node:x:sum"}) || !slices.Equal(queries, []string{"max(DCGM_FI_DEV_GPU_TEMP)"}) {
		t.Errorf("read rules %v and queries %v", rules, queries)
	}
}

// TestSuppressionsCannotRot: a suppression that names no check is an error, in a comment and
// in the catalog; lint.ignore paths are relative to the catalog and match however the file's
// path was typed.
func TestSuppressionsCannotRot(t *testing.T) {
	p := loadPlan(t)
	misspelt := generated("      # gpuobs-lint disable naming/recrod\n      - record: gpu_power\n        expr: sum(up)\n")
	got := Run(NewInputs(p, []*source.File{source.ReadFile("r.yaml", []byte(misspelt))}), []Check{namingRecord{}})
	checks := map[string]bool{}
	for _, pr := range got {
		checks[pr.Check] = true
	}
	if !checks[SuppressionCheck] || !checks["naming/record"] {
		t.Errorf("a misspelt suppression: %+v, want %s and the problem it failed to suppress", got, SuppressionCheck)
	}
	p.Model.Lint.Disable = []string{"promql/countr", "naming"}
	p.Model.Lint.Ignore = []model.LintIgnore{{Check: "cardinalty", Path: "x/*.yaml"}}
	if err := CheckSuppressions(p.Model); err == nil || !strings.Contains(err.Error(), `lint.disable[0]: "promql/countr"`) || !strings.Contains(err.Error(), `lint.ignore[0].check: "cardinalty"`) || strings.Contains(err.Error(), `"naming"`) {
		t.Errorf("CheckSuppressions = %v", err)
	}
	p.Model.Lint.Disable = nil
	p.Model.Lint.Ignore = []model.LintIgnore{{Check: "naming/record", Path: "legacy/*.yaml"}}
	catalogDir := t.TempDir()
	bad := generated("      - record: gpu_power\n        expr: sum(up)\n")
	for _, typed := range []string{filepath.Join(catalogDir, "legacy", "r.yaml"), filepath.Join(catalogDir, "legacy", ".", "r.yaml")} {
		in := NewInputs(p, []*source.File{source.ReadFile(filepath.ToSlash(typed), []byte(bad))})
		in.BaseDir = catalogDir
		if got := Run(in, []Check{namingRecord{}}); len(got) != 0 {
			t.Errorf("%s not ignored by legacy/*.yaml relative to the catalog: %+v", typed, got)
		}
	}
}

// TestNoNoiseOnAnotherTeamsRepository: rules and dashboards in the shapes public monitoring
// repositories use (another team's severities and annotation keys, common record names, an
// interval variable, another GPU exporter, a target label, a panel pinned to one GPU, a
// ConfigMap of dashboards) raise nothing.
func TestNoNoiseOnAnotherTeamsRepository(t *testing.T) {
	files := source.ReadPaths([]string{filepath.Join("testdata", "foreign")})
	var queries int
	for _, f := range files {
		if f.Dashboard != nil {
			queries += len(f.Dashboard.Queries)
		}
	}
	if len(files) != 4 || queries != 3 {
		t.Fatalf("read %d files and %d dashboard queries, want 4 (one a ConfigMap's dashboard) and 3", len(files), queries)
	}
	if got := Run(NewInputs(loadPlan(t), files), Checks()); len(got) != 0 {
		t.Errorf("problems on another team's repository:\n%+v", got)
	}
}

// TestBaselineErrorsSayWhere: a broken baseline is reported by entry and field in the file's
// own terms, never by Go struct fields.
func TestBaselineErrorsSayWhere(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{`[{"check":"promql/counter","path":"a.yaml","count":"two"}]`, "entry 1: count: is a string; want a whole number"},
		{`[{"check":"x","path":"a"},{"check":"x","path":5}]`, "entry 2: path: is a number; want a string"},
		{`[{"check":"x","pth":"a"}]`, `entry 1: unknown field "pth" (fields: path, check, subject, message, count)`},
		{`{`, "not a gpuobs lint baseline: invalid JSON at byte 1"},
		{`{"path":"a"}`, "not a gpuobs lint baseline: want a list of entries"},
	} {
		_, err := ReadBaseline([]byte(c.file))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "Go struct") {
			t.Errorf("%s: %v, want %q", c.file, err, c.want)
		}
	}
}

// TestOtherDataSourcesAndKnobs: a dashboard in the shape public ones take, mixing Loki panels
// (by the panel's data source type, a data-source variable whose query is loki, a mixed panel's
// target) with Prometheus panels whose custom, textbox and constant variables stand for
// numbers and operators. LogQL is not read as PromQL, and a knob is replaced by its value: no
// syntax error, three Prometheus queries read, three skipped; on the adopter's catalog too. A
// real mistake in a Prometheus query beside them is still reported, at its line.
func TestOtherDataSourcesAndKnobs(t *testing.T) {
	path := filepath.Join("testdata", "wider", "logs-and-knobs.json")
	for _, config := range []string{"", "../testutil/plantest/testdata/adopter.jsonnet"} {
		p := plantest.Plan(t, config)
		files := source.ReadPaths([]string{path})
		d := files[0].Dashboard
		if d == nil || len(d.Queries) != 3 || d.OtherQueries != 3 {
			t.Fatalf("%s: read %+v, want 3 Prometheus queries and 3 of other data sources", config, d)
		}
		if n := d.Queries[0].Expr.Node; n == nil || n.Name != "topk" || len(n.Args) != 2 || n.Args[0].Value != 5 {
			t.Errorf("$k not replaced by its value: %+v %v", n, d.Queries[0].Expr.Err)
		}
		for _, pr := range Run(NewInputs(p, files), []Check{promqlSyntax{}}) {
			t.Errorf("%s: %s:%d:%d %s", config, pr.Path, pr.Pos.Line, pr.Pos.Col, pr.Message)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(data), `"quantile($window, max`, `"quantile($window, (max`, 1)
	f := source.ReadFile(path, []byte(broken))
	got := Run(NewInputs(loadPlan(t), []*source.File{f}), []Check{promqlSyntax{}})
	if len(got) != 1 || got[0].Pos.Line != 28 {
		t.Errorf("the broken Prometheus query: %+v, want one syntax error on line 28", got)
	}
}

// TestDashboardResourcesAndOperatorFiles: a grafana-operator GrafanaDashboard (its spec.json)
// and a Grafana 12/13 v2 dashboard resource (elements, variables with kinds, queries by data
// source group) are read as dashboards, with their units, and their problems are reported at
// their lines: the unclosed parenthesis in the operator's JSON, the MiB field shown in bytes in
// the v2 panel; the v2 Loki panel is not read as PromQL. On the adopter's catalog too.
func TestDashboardResourcesAndOperatorFiles(t *testing.T) {
	for _, config := range []string{"", "../testutil/plantest/testdata/adopter.jsonnet"} {
		p := plantest.Plan(t, config)
		files := source.ReadPaths([]string{filepath.Join("testdata", "wider", "grafana-operator.yaml"), filepath.Join("testdata", "wider", "v2-dashboard.json")})
		var queries, other int
		for _, f := range files {
			if f.Dashboard != nil {
				queries, other = queries+len(f.Dashboard.Queries), other+f.Dashboard.OtherQueries
			}
		}
		if len(files) != 3 || queries != 3 || other != 1 {
			t.Fatalf("%s: read %d files (want the operator file, its dashboard, the v2 dashboard), %d queries (want 3), %d of other data sources (want 1)", config, len(files), queries, other)
		}
		got := map[string]bool{}
		for _, pr := range Run(NewInputs(p, files), Checks()) {
			got[fmt.Sprintf("%s:%d %s", filepath.Base(pr.Path), pr.Pos.Line, pr.Check)] = true
		}
		for _, want := range []string{"grafana-operator.yaml:16 promql/syntax", "v2-dashboard.json:41 naming/unit"} {
			if !got[want] {
				t.Errorf("%s: %s not reported; got %v", config, want, got)
			}
		}
	}
}

// TestHelmTemplatesAreSaidToBeTemplates: a chart's template that is not YAML is reported once,
// as a Helm template to render first, on the line where YAML stops (line 5: the action on line
// 4 is a whole value YAML reads, the one under line 5 is not); it is an error like any file
// lint cannot read. A rule file that parses is read whatever it holds: an action planted in a
// comment does not make lint skip it. A rule file with Prometheus' own templates is read.
func TestHelmTemplatesAreSaidToBeTemplates(t *testing.T) {
	files := source.ReadPaths([]string{filepath.Join("testdata", "wider", "chart-rules.yaml")})
	got := Run(NewInputs(loadPlan(t), files), Checks())
	if len(got) != 1 || got[0].Check != ReadCheck || got[0].Severity != Error || got[0].Pos.Line != 5 || !strings.Contains(got[0].Message, "helm template") {
		t.Errorf("got %+v, want one input/read error on line 5 saying to render it", got)
	}
	planted := source.ReadFile("r.yaml", []byte("# {{ .Values.skipMe }}\n"+rules("      - alert: GPUHot\n        expr: sum(DCGM_FI_DEV_POWER_USAGE)\n")))
	if got := Run(NewInputs(loadPlan(t), []*source.File{planted}), Checks()); planted.Err != nil || len(planted.Rules) != 1 || len(got) == 0 {
		t.Errorf("a rule file with a planted Helm action: read %v, %d rules, problems %+v; want it read and checked", planted.Err, len(planted.Rules), got)
	}
	own := source.ReadFile("r.yaml", []byte(rules("      - alert: GPUHot\n        expr: DCGM_FI_DEV_GPU_TEMP > 85\n        for: 5m\n        annotations:\n          description: '{{- range query \"up\" }}{{ .Labels.instance }}{{ end }} at {{ $value }}'\n")))
	if own.Err != nil || len(own.Rules) != 1 {
		t.Errorf("a rule file with Prometheus templates: %+v", own.Err)
	}
}

// TestHelmValuesAreNotTemplates: a chart's values file that quotes a Helm action in a value
// holds no rules and is not reported as a template.
func TestHelmValuesAreNotTemplates(t *testing.T) {
	f := source.ReadFile("values.yaml", []byte("prometheus:\n  url: http://{{ .Release.Name }}-prometheus\n  port: 9090\n"))
	if got := Run(NewInputs(loadPlan(t), []*source.File{f}), Checks()); len(got) != 0 {
		t.Errorf("a values file: %+v", got)
	}
}

// TestOtherFilesInARepository: what a monitoring repository holds beside rules and dashboards
// reads as nothing to check: an OpenShift SCC whose groups are names, a JSON list, a package
// manifest. What cannot be read stays an error, said plainly: an operator's Go-templated
// manifest is a template.
func TestOtherFilesInARepository(t *testing.T) {
	files := map[string]string{
		"scc.yaml":       "apiVersion: security.openshift.io/v1\nkind: SecurityContextConstraints\ngroups:\n  - system:cluster-admins\n  - system:nodes\nusers: []\n",
		"allowlist.json": `["gcr.io/distroless/static", "busybox"]`,
		"package.json":   `{"name": "x", "version": "1.0.0"}`,
		"daemonset.yaml": "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: dcgm\nspec:\n  template:\n    spec:\n      {{- if .Runtime }}\n      runtimeClassName: {{ .Runtime }}\n      {{- end }}\n",
	}
	var in []*source.File
	for _, path := range model.SortedKeys(files) {
		in = append(in, source.ReadFile(path, []byte(files[path])))
	}
	got := map[string]string{}
	for _, p := range Run(NewInputs(loadPlan(t), in), Checks()) {
		got[p.Path] = p.Severity.String() + ": " + p.Message
	}
	if len(got) != 1 || !strings.Contains(got["daemonset.yaml"], "error: cannot read the file: it is a template") {
		t.Errorf("got %v, want an error for the templated manifest (a template) only", got)
	}
}

// TestJSONDashboardsAreNotTemplates: in a JSON dashboard {{ }} legends and ${ } variables are
// Grafana's own. One that does not parse (a missing comma) is reported as what it is, where
// it is, not as a template; one written by Python's json.dump (an emoji as a UTF-16 surrogate
// pair) is read, and its real errors found.
func TestJSONDashboardsAreNotTemplates(t *testing.T) {
	broken := source.ReadFile("d.json", []byte("{\n  \"title\": \"GPUs\"\n  \"panels\": [{\"targets\": [{\"expr\": \"max(DCGM_FI_DEV_GPU_TEMP{cluster=\\\"${cluster}\\\"})\", \"legendFormat\": \"{{pod}}\"}]}]\n}\n"))
	if broken.Err == nil || strings.Contains(broken.Err.Message, "template") || broken.Err.Pos.Line != 2 {
		t.Errorf("a JSON dashboard with a missing comma: %+v, want a read error on line 2 (where the comma is missing) that does not call it a template", broken.Err)
	}
	emoji := source.ReadFile("d.json", []byte("{\n  \"title\": \"GPUs \\ud83d\\udfe2\",\n  \"tags\": [\"L3\"],\n  \"panels\": [{\"targets\": [{\"expr\": \"max(DCGM_FI_DEV_GPU_TEMP\", \"legendFormat\": \"{{pod}}\"}]}]\n}\n"))
	got := Run(NewInputs(loadPlan(t), []*source.File{emoji}), Checks())
	if emoji.Err != nil || len(got) == 0 || got[0].Pos.Line != 4 {
		t.Errorf("a json.dump dashboard: read %v, problems %+v; want it read and its query on line 4 checked", emoji.Err, got)
	}
}

// TestVariablesThatAddNothingOrMoreLabels: a custom variable whose chosen value is nothing
// ("none") or more labels for a grouping (",transport") stands in the query as it is, which
// then parses (by its name, "by (cluster extra)" did not).
func TestVariablesThatAddNothingOrMoreLabels(t *testing.T) {
	dashboard := func(current string) *source.File {
		return source.ReadFile("d.json", []byte(`{"title": "t", "tags": ["L3"], "templating": {"list": [{"name": "extra", "type": "custom", "query": "none : ,by transport : \\,transport", "current": {"text": "x", "value": "`+current+`"}}]},
"panels": [{"title": "p", "targets": [{"expr": "sum by (cluster $extra) (rate(DCGM_FI_DEV_PCIE_REPLAY_COUNTER[5m]))"}]}]}`))
	}
	for _, current := range []string{"", ",transport", ", transport, link"} {
		f := dashboard(current)
		for _, p := range Run(NewInputs(loadPlan(t), []*source.File{f}), Checks()) {
			if p.Check == "promql/syntax" {
				t.Errorf("value %q: %+v", current, p)
			}
		}
	}
}

// TestSummaryCountsFilesOnce: a ConfigMap that holds a dashboard is one file read, its
// dashboard one dashboard; so is a file with rules and a dashboard.
func TestSummaryCountsFilesOnce(t *testing.T) {
	cm := source.ReadFile("cm.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d}\ndata:\n  gpu.json: |\n    {\"title\": \"t\", \"panels\": [{\"title\": \"p\", \"targets\": [{\"expr\": \"max(DCGM_FI_DEV_GPU_TEMP)\"}]}]}\n"))
	files := append([]*source.File{cm}, cm.Embedded...)
	if got := Summary(files, 0); !strings.HasPrefix(got, "checked 1 files: 0 rule groups, 0 rules, 1 dashboards, 1 dashboard queries") {
		t.Errorf("Summary = %q", got)
	}
}

// TestChartTemplatesAreOneNotice: the templates of a Helm chart (under templates/ beside a
// Chart.yaml) are chart sources, never deployed as they are: those lint cannot read are one
// info for the chart, which the default gate passes. A Helm-templated file outside a chart's
// templates stays an error, so that a pull request cannot make a rule file unchecked by adding
// an action to it, nor by planting a Chart.yaml beside it.
func TestChartTemplatesAreOneNotice(t *testing.T) {
	dir := t.TempDir()
	template := "apiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nmetadata:\n  labels:\n    {{- toYaml .Values.labels | nindent 4 }}\nspec: {}\n"
	// A template that YAML stops on at a control action, which names no Helm object first.
	control := "{{- if .Values.rules }}\napiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nspec:\n  {{- range $k, $v := .Values.rules }}\n  {{ $k }}: {{ $v }}\n  {{- end }}\n{{- end }}\n"
	testutil.WriteTree(t, dir, map[string]string{
		"charts/gpu/Chart.yaml":                  "apiVersion: v2\nname: gpu\nversion: 0.1.0\n",
		"charts/gpu/templates/rules.yaml":        template,
		"charts/gpu/templates/extra/alerts.yaml": template,
		"charts/gpu/templates/rules-cm.yaml":     control,
		"rules/gpu.yaml":                         template,
		"planted/Chart.yaml":                     "apiVersion: v2\nname: planted\nversion: 0.1.0\n",
		"planted/gpu.yaml":                       template,
	})
	got := Run(NewInputs(loadPlan(t), source.ReadPaths([]string{dir})), Checks())
	var summary []string
	for _, p := range got {
		rel, _ := filepath.Rel(dir, p.Path)
		summary = append(summary, p.Severity.String()+" "+filepath.ToSlash(rel))
	}
	if strings.Join(summary, ", ") != "info charts/gpu/templates/extra/alerts.yaml, error planted/gpu.yaml, error rules/gpu.yaml" || !strings.Contains(got[0].Message, "cannot read 3 templates of the Helm chart") {
		t.Errorf("got %v (%+v), want one info for the chart's three templates and an error for each template outside a chart's templates", summary, got)
	}
}
