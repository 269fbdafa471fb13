package source

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/internal/testutil"
)

// oneRule is a rule group's body: one recording rule.
const oneRule = "\n- name: g\n  rules:\n  - record: job:up:sum\n    expr: sum(up)\n"

// TestAWalkParsesWhatMayHoldRulesOrDashboards: a directory walk parses a file only where a
// key the readers take can be read from it, however YAML or JSON spell it; a manifest or data
// file without one is skipped unparsed, even when it would not parse (a CRD bundle, a
// template of a Deployment), and a file named is parsed all the same.
func TestAWalkParsesWhatMayHoldRulesOrDashboards(t *testing.T) {
	dir := t.TempDir()
	spelled := map[string]string{
		"plain.yaml":    "groups:" + oneRule,
		"quoted.yaml":   "'groups' :" + oneRule,
		"hex.yaml":      "\"gr\\x6fups\":" + oneRule,
		"unicode.yaml":  "\"gr\\u006fups\":" + oneRule,
		"broken.yaml":   "? \"gro\\\n   ups\"\n:" + oneRule,
		"explicit.yaml": "? groups # the key\n:" + oneRule,
		"alias.yaml":    "name: &key groups\n*key :" + oneRule,
		"kind.yaml":     "apiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nspec:\n  groups:" + strings.ReplaceAll(oneRule, "\n", "\n  "),
		"dash.json":     "{\"p\\u0061nels\": [{\"title\": \"p\", \"targets\": [{\"expr\": \"max(DCGM_FI_DEV_GPU_TEMP)\"}]}]}",
	}
	tree := map[string]string{
		// Prose that names the keys, without one of them as a key: skipped unparsed, and a
		// template (a Deployment's) or broken YAML among them is no error.
		"crds/bundle.yaml":          "description: \"rows of panels, in groups of elements\"\nitems: [\n",
		"charts/x/templates/d.yaml": "spec:\n  replicas: {{ .Values.replicas }}\n  template: {{- toYaml .Values.t | nindent 4 }}\n",
		"data/payload.json":         "{\"instances\": [[1, 2], [3, 4]]",
	}
	for name, text := range spelled {
		tree["spelled/"+name] = text
	}
	testutil.WriteTree(t, dir, tree)
	read := map[string]*File{}
	for _, f := range ReadPaths([]string{dir}) {
		rel, _ := filepath.Rel(dir, f.Path)
		read[filepath.ToSlash(rel)] = f
	}
	for name := range spelled {
		f := read["spelled/"+name]
		if f == nil || f.Err != nil || len(f.Rules)+boolInt(f.Dashboard != nil) != 1 {
			t.Errorf("%s: %+v, want its one rule or dashboard read", name, f)
		}
	}
	for _, name := range []string{"crds/bundle.yaml", "charts/x/templates/d.yaml", "data/payload.json"} {
		if f := read[name]; f == nil || f.Err != nil || f.Rules != nil || f.Dashboard != nil || f.Lines != nil {
			t.Errorf("%s: %+v, want it skipped unparsed, without an error", name, f)
		}
	}
	named := ReadPaths([]string{filepath.Join(dir, "crds", "bundle.yaml")})
	if len(named) != 1 || named[0].Err == nil {
		t.Errorf("named: %+v, want the broken file it names reported", named)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// FuzzMayHold holds the walk's filter closed: whatever the readers find in a file (a rule
// group, a rule, a dashboard's query, a ConfigMap's dashboard), mayHold says it may hold it,
// so a directory walk never skips it unparsed.
func FuzzMayHold(f *testing.F) {
	for _, text := range []string{
		"groups:" + oneRule,
		"\"gr\\x6fups\":" + oneRule,
		"? groups # the key\n:" + oneRule,
		"name: &key groups\n*key :" + oneRule,
		"kind: ConfigMap\ndata:\n  a.rules: |\n    groups:\n      - name: g\n        rules:\n          - alert: A\n            expr: up == 0\n",
		"kind: ConfigMap\ndata:\n  d.json: |\n    {\"panels\": [{\"targets\": [{\"expr\": \"up\"}]}]}\n",
		"{\"p\\u0061nels\": [{\"title\": \"p\", \"targets\": [{\"expr\": \"max(DCGM_FI_DEV_GPU_TEMP)\"}]}]}",
		"{\"dashboard\": {\"rows\": [{\"panels\": [{\"targets\": [{\"expr\": \"up\"}]}]}]}}",
	} {
		f.Add([]byte(text))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if mayHold(data) {
			return
		}
		rules, dashboard := ReadRules("fuzz.yaml", data), ReadDashboard("fuzz.json", data)
		found := len(rules.Groups) > 0 || len(rules.Rules) > 0 || dashboard.Dashboard != nil && len(dashboard.Dashboard.Queries) > 0
		for _, e := range rules.Embedded {
			found = found || e.Dashboard != nil && len(e.Dashboard.Queries) > 0
		}
		if found {
			t.Errorf("the readers find rules or queries in %q, which mayHold skips", data)
		}
	})
}
