// Package promtoolsplit runs a promtool test file one test group at a time, each group on
// only the rules it reads. promtool evaluates every rule of every file at every step of every
// group; an alert's test reads only that alert and the records under it, and a query's test
// only what its query reads, so the rest is cost without a check. Tests that run many
// catalogs' generated test files use it; make test still runs the checked-in files whole.
package promtoolsplit

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuobs/gpuobs/internal/promql/rulegraph"
)

// ruleFile is a rule file as read, with each of its rules' place in the graph.
type ruleFile struct {
	copy  string // the copy's path, relative to the split test file
	body  map[string]any
	index [][]int // per group, per rule: the rule's index in the graph
}

// Split writes, for each test group of the promtool test file at path, a test file of its own
// (in a directory beside it) with copies of the rule files that hold only the rules the group
// reads, and only the input series those rules select. What a group reads is the alerts its
// alert_rule_test names and the selectors of its promql_expr_test queries, and what those
// read in turn (records by name, alerts through ALERTS). Every rule kept keeps its group, the
// group its interval and place, and a series no kept rule can select cannot change what a
// kept rule writes, so each group evaluates as in the whole file. It returns the test files,
// in the order of the groups, for one promtool test rules run.
//
// Given names, a group keeps only the alert_rule_test of the alerts named and the
// promql_expr_test of the queries named (a mutation test checks one), and a group left with
// neither is dropped; a file left with none is an error.
//
// Splitting a group further (one part per alert) costs more than it saves: the alerts share
// their records, and each part would evaluate them again.
func Split(path string, names ...string) ([]string, error) {
	test, err := readYAML(path)
	if err != nil {
		return nil, err
	}
	files, nodes, err := readRules(filepath.Dir(path), test)
	if err != nil {
		return nil, err
	}
	graph := rulegraph.New(nodes)
	var copies []any
	for _, f := range files {
		copies = append(copies, f.copy)
	}
	var out []string
	for i, g := range items(test, "tests") {
		group := maps.Clone(g.(map[string]any))
		if len(names) > 0 && !keepOnly(group, names) {
			continue
		}
		roots, queries, err := rootsOf(graph, group)
		if err != nil {
			return nil, fmt.Errorf("%s: test group %d: %w", path, i+1, err)
		}
		needed := graph.Inputs(roots)
		dir := filepath.Join(filepath.Dir(path), fmt.Sprintf("split-%s-%d", filepath.Base(path), i))
		if err := writeRules(dir, files, needed); err != nil {
			return nil, err
		}
		group["input_series"] = selected(items(group, "input_series"), readSelectors(nodes, needed, queries))
		one := maps.Clone(test)
		one["tests"] = []any{group}
		one["rule_files"] = copies
		file := filepath.Join(dir, filepath.Base(path))
		if err := writeJSON(file, one); err != nil {
			return nil, err
		}
		out = append(out, file)
	}
	if len(out) == 0 && len(names) > 0 {
		return nil, fmt.Errorf("no test group of %s tests %q", path, names)
	}
	return out, nil
}

// keepOnly keeps a group's tests of the alerts and queries named, and tells whether any is left.
func keepOnly(group map[string]any, names []string) bool {
	left := false
	for key, field := range map[string]string{"alert_rule_test": "alertname", "promql_expr_test": "expr"} {
		var kept []any
		for _, test := range items(group, key) {
			if slices.Contains(names, fmt.Sprint(test.(map[string]any)[field])) {
				kept = append(kept, test)
			}
		}
		if _, ok := group[key]; ok {
			group[key] = kept
		}
		left = left || len(kept) > 0
	}
	return left
}

// readRules reads the rule files a test file names, and puts their rules in one graph.
func readRules(dir string, test map[string]any) ([]ruleFile, []rulegraph.Rule, error) {
	var files []ruleFile
	var nodes []rulegraph.Rule
	for _, n := range items(test, "rule_files") {
		rel, _ := n.(string)
		body, err := readYAML(filepath.Join(dir, rel))
		if err != nil {
			return nil, nil, err
		}
		f := ruleFile{copy: filepath.Join("rules", fmt.Sprintf("%d-%s", len(files), filepath.Base(rel))), body: body}
		for _, g := range items(body, "groups") {
			var index []int
			for _, r := range items(g, "rules") {
				node, err := nodeOf(r)
				if err != nil {
					return nil, nil, fmt.Errorf("%s: %w", rel, err)
				}
				index = append(index, len(nodes))
				nodes = append(nodes, node)
			}
			f.index = append(f.index, index)
		}
		files = append(files, f)
	}
	return files, nodes, nil
}

// nodeOf is what the rule graph knows of a rule read as YAML. A label or annotation whose
// template may run a query (Prometheus' query function) may read any series or rule: it
// reads as a selector without a name, which keeps everything.
func nodeOf(rule any) (rulegraph.Rule, error) {
	r, _ := rule.(map[string]any)
	own := map[string]string{}
	if ls, ok := r["labels"].(map[string]any); ok {
		for k, v := range ls {
			own[k] = fmt.Sprint(v)
		}
	}
	name, alert := r["alert"].(string)
	if !alert {
		name = fmt.Sprint(r["record"])
	}
	node, err := rulegraph.NewRule(name, alert, own, fmt.Sprint(r["expr"]))
	if err != nil {
		return node, err
	}
	texts := slices.Collect(maps.Values(own))
	annotations, _ := r["annotations"].(map[string]any)
	for _, text := range annotations {
		texts = append(texts, fmt.Sprint(text))
	}
	if slices.ContainsFunc(texts, func(t string) bool { return strings.Contains(t, "{{") && strings.Contains(t, "query") }) {
		node.Reads = append(node.Reads, rulegraph.Selector{})
	}
	return node, nil
}

// rootsOf are the rules a test group checks: its alerts, and what its queries read; and its
// queries' selectors.
func rootsOf(graph rulegraph.Graph, group map[string]any) ([]int, []rulegraph.Selector, error) {
	var roots []int
	for _, a := range items(group, "alert_rule_test") {
		roots = append(roots, graph.Alert(fmt.Sprint(a.(map[string]any)["alertname"]))...)
	}
	var queries []rulegraph.Selector
	for _, q := range items(group, "promql_expr_test") {
		reads, err := rulegraph.SelectorsOf(fmt.Sprint(q.(map[string]any)["expr"]))
		if err != nil {
			return nil, nil, err
		}
		queries = append(queries, reads...)
	}
	return append(roots, graph.ReadBy(queries)...), queries, nil
}

// readSelectors are the selectors of the rules needed and of the queries.
func readSelectors(nodes []rulegraph.Rule, needed []bool, queries []rulegraph.Selector) []rulegraph.Selector {
	out := slices.Clone(queries)
	for i, n := range nodes {
		if needed[i] {
			out = append(out, n.Reads...)
		}
	}
	return out
}

// selected keeps the input series one of the selectors may select.
func selected(series []any, selectors []rulegraph.Selector) []any {
	out := []any{}
	for _, s := range series {
		if rulegraph.MaySelect(selectors, fmt.Sprint(s.(map[string]any)["series"])) {
			out = append(out, s)
		}
	}
	return out
}

// writeRules writes, under dir, a copy of each rule file with only
// the rules marked needed.
func writeRules(dir string, files []ruleFile, needed []bool) error {
	for _, f := range files {
		var groups []any
		for gi, g := range items(f.body, "groups") {
			kept := []any{}
			for ri, r := range items(g, "rules") {
				if needed[f.index[gi][ri]] {
					kept = append(kept, r)
				}
			}
			copied := maps.Clone(g.(map[string]any))
			copied["rules"] = kept
			groups = append(groups, copied)
		}
		if err := writeJSON(filepath.Join(dir, f.copy), map[string]any{"groups": groups}); err != nil {
			return err
		}
	}
	return nil
}

// items is the list under a key of a YAML mapping.
func items(v any, key string) []any {
	m, _ := v.(map[string]any)
	list, _ := m[key].([]any)
	return list
}

func readYAML(path string) (map[string]any, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := yaml.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// writeJSON writes v as JSON, which promtool reads as the YAML it is: YAML emitters may
// write a block scalar with an indentation indicator that Prometheus' reader refuses.
func writeJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
