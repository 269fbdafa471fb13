package generators

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

// adopter is the catalog of a team that renames every label and team (plantest's testdata).
const adopter = "../internal/testutil/plantest/testdata/adopter.jsonnet"

// TestRenamedLabelsReachEveryOutput: with every label of the catalog renamed, no label name
// that an expression, a rule's labels, an annotation template, a dashboard or runbook query,
// the Alertmanager config or a promtool series uses is a default name the adopter replaced.
// kube-state-metrics' own labels (namespace, pod, container, node) are not renamed: they are
// that exporter's names, which the catalog copies to the exporter's where the two join.
func TestRenamedLabelsReachEveryOutput(t *testing.T) {
	def, adopted := plantest.Plan(t, "").Model, plantest.Plan(t, adopter).Model
	replaced := map[string]bool{}
	for key, name := range labelsByKey(def.Labels) {
		if renamed := labelsByKey(adopted.Labels)[key]; renamed != name {
			replaced[name] = true
		}
	}
	for _, native := range []string{"namespace", "pod", "container", "node"} {
		delete(replaced, native)
	}
	// The model servers' label (inference.modelLabel), which the adopter names served_model.
	replaced["model_name"] = true
	if len(replaced) < 11 {
		t.Fatalf("the adopter catalog renames only %v", model.SortedKeys(replaced))
	}
	files, _, err := Run(plantest.Plan(t, adopter), Options{RulesFormats: []string{"operator", "mimir"}})
	if err != nil {
		t.Fatal(err)
	}
	read := 0
	// The label self-check's scenario feeds GPU series labelled as another exporter version
	// labels its host: the one place a default host label belongs.
	otherHost := func(path string, use labelUse) bool {
		return strings.HasPrefix(path, "tests/") && strings.HasPrefix(use.where, "series ") && (use.label == "Hostname" || use.label == "hostname")
	}
	for _, f := range files {
		for _, use := range labelUses(t, f.Path, f.Content) {
			read++
			if replaced[use.label] && !otherHost(f.Path, use) {
				t.Errorf("%s: %s uses the default label %q", f.Path, use.where, use.label)
			}
		}
	}
	if read < 1000 {
		t.Fatalf("only %d label uses read: the readers below miss the output's shape", read)
	}
	// The teams' names reach the routes, receivers, runbooks and dashboards; the old ones are
	// gone.
	oldTeam := regexp.MustCompile(`\b(owner|team)(=|: )"?(infra|inference)\b|(^|[^-\w])(infra|inference)-(pager|ticket)\b|\bml-platform\b|Team (infra|inference)\b`)
	for _, f := range files {
		if m := oldTeam.Find(f.Content); m != nil && !strings.HasPrefix(f.Path, "tests/") {
			t.Errorf("%s still names a default team: %s", f.Path, m)
		}
		if f.Path == "alertmanager/alertmanager.yml" {
			for _, want := range []string{`owner="gpu-infra"`, "gpu-infra-pager", "ml-plat-ticket", "llm-serving-pager"} {
				if !strings.Contains(string(f.Content), want) {
					t.Errorf("%s does not have %s", f.Path, want)
				}
			}
		}
	}
}

// labelsByKey maps each catalog label key (cluster, host, ...) to its name.
func labelsByKey(l model.Labels) map[string]string {
	b, _ := json.Marshal(l)
	var out map[string]string
	_ = json.Unmarshal(b, &out)
	return out
}

type labelUse struct{ where, label string }

var (
	promqlBlock = regexp.MustCompile("(?s)```promql\n(.*?)```")
	labelValues = regexp.MustCompile(`^label_values\((.+), *([A-Za-z_][A-Za-z0-9_]*)\)$`)
)

// labelUses lists the label names a generated file uses, by the file's kind.
func labelUses(t *testing.T, path string, content []byte) []labelUse {
	t.Helper()
	var out []labelUse
	expr := func(where, e string) {
		for _, l := range exprLabels(t, where, promql.FillGrafanaVariables(e)) {
			out = append(out, labelUse{where, l})
		}
	}
	switch {
	case strings.HasSuffix(path, ".csv"):
		// The counter file names fields, no labels.
	case strings.HasSuffix(path, ".md"):
		for _, m := range promqlBlock.FindAllStringSubmatch(string(content), -1) {
			expr("query", m[1])
		}
	case strings.HasSuffix(path, ".json"):
		var doc any
		if err := json.Unmarshal(content, &doc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		walkJSON(doc, func(key string, v string) {
			if m := labelValues.FindStringSubmatch(v); key == "query" && m != nil {
				expr(key+" "+v, m[1])
				out = append(out, labelUse{key + " " + v, m[2]})
			} else if key == "expr" {
				expr(key+" "+v, v)
			}
		})
	default:
		var doc yaml.Node
		if err := yaml.Unmarshal(content, &doc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		walkYAML(&doc, "", func(key string, n *yaml.Node) {
			switch {
			case key == "expr" && n.Kind == yaml.ScalarNode:
				expr("expr "+n.Value, n.Value)
			case (key == "labels" || key == "exp_labels") && n.Kind == yaml.MappingNode:
				for i := 0; i < len(n.Content); i += 2 {
					out = append(out, labelUse{key, n.Content[i].Value})
				}
			case (key == "description" || key == "summary") && n.Kind == yaml.ScalarNode:
				names, err := promql.TemplateLabels(n.Value)
				if err != nil {
					t.Fatalf("%s: %s: %v", path, n.Value, err)
				}
				for _, l := range names {
					out = append(out, labelUse{key + " " + n.Value, l})
				}
			case (key == "series" || key == "labels") && n.Kind == yaml.ScalarNode:
				expr(key+" "+n.Value, n.Value)
			case n.Kind != yaml.SequenceNode && (key == "group_by" || key == "groupBy" || key == "equal" || key == "matchers" || key == "source_matchers" || key == "target_matchers" || key == "sourceMatch" || key == "targetMatch"):
				// The list's items, each under the list's key.
			case key == "group_by" || key == "groupBy" || key == "equal":
				for _, c := range n.Content {
					out = append(out, labelUse{key, c.Value})
				}
			case key == "matchers" || key == "source_matchers" || key == "target_matchers" || key == "sourceMatch" || key == "targetMatch":
				for _, c := range n.Content {
					if c.Kind == yaml.MappingNode { // the AlertmanagerConfig resource's {name, matchType, value}
						for i := 0; i+1 < len(c.Content); i += 2 {
							if c.Content[i].Value == "name" {
								out = append(out, labelUse{key, c.Content[i+1].Value})
							}
						}
						continue
					}
					out = append(out, labelUse{key + " " + c.Value, strings.TrimSpace(strings.FieldsFunc(c.Value, func(r rune) bool { return r == '=' || r == '!' || r == '~' })[0])})
				}
			}
		})
	}
	return out
}

// exprLabels lists the label names an expression matches, groups, joins or writes.
func exprLabels(t *testing.T, where, e string) []string {
	t.Helper()
	n, err := promql.Parse(e)
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	var out []string
	promql.Walk(n, func(n *promql.Node, _ []*promql.Node) {
		for _, m := range n.Matchers {
			out = append(out, m.Name)
		}
		out = append(out, n.Grouping...)
		out = append(out, n.Vector().MatchOn...)
		out = append(out, n.Vector().Include...)
		if n.Kind == promql.Call && slices.Contains([]string{"label_replace", "label_join"}, n.Name) {
			for i, a := range n.Args {
				if a.Kind == promql.String && (i == 1 || (n.Name == "label_replace" && i == 3) || (n.Name == "label_join" && i >= 3)) {
					out = append(out, a.Name)
				}
			}
		}
	})
	return out
}

func walkJSON(v any, fn func(key, value string)) {
	switch v := v.(type) {
	case map[string]any:
		for k, c := range v {
			if s, ok := c.(string); ok {
				fn(k, s)
			}
			walkJSON(c, fn)
		}
	case []any:
		for _, c := range v {
			walkJSON(c, fn)
		}
	}
}

func walkYAML(n *yaml.Node, key string, fn func(key string, n *yaml.Node)) {
	fn(key, n)
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			walkYAML(c, key, fn)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			walkYAML(n.Content[i+1], n.Content[i].Value, fn)
		}
	}
}

// TestRemovingEntriesByJsonnet: a catalog that removes SLOs and alerts with Jsonnet (the
// library's own scenarios, runbooks, dashboards and inhibit rules refer to them) generates:
// nothing of the library reads the removed entries by name.
func TestRemovingEntriesByJsonnet(t *testing.T) {
	config := filepath.Join(t.TempDir(), "gpuobs.jsonnet")
	catalog := `(import 'gpuobs.libsonnet') {
  slos: std.objectRemoveKey(std.objectRemoveKey(super.slos, 'InferenceErrors'), 'InferenceTTFT'),
  alerts: std.foldl(std.objectRemoveKey, ['GPURowRemapFailure', 'GPUPcieReplayRate', 'SLOGPUAvailabilityFastBurn', 'GPUPowerThrottling'], super.alerts),
}`
	if err := os.WriteFile(config, []byte(catalog), 0o644); err != nil {
		t.Fatal(err)
	}
	p := plantest.Plan(t, config)
	if _, _, err := Run(p, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"GPURowRemapFailure", "SLOInferenceErrorsSlowBurn", "SLOGPUAvailabilityFastBurn"} {
		if _, ok := p.Alerts[gone]; ok {
			t.Errorf("%s is still generated", gone)
		}
	}
}
