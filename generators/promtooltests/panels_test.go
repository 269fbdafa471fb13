package promtooltests_test

import (
	"encoding/json"
	"fmt"
	"github.com/gpuobs/gpuobs/internal/testutil"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

// servingTarget is how a PodMonitor scrapes a model server: its job and the server's pod.
var servingTarget = scrapeTarget{"llm-serving/qwen", map[string]string{"namespace": "llm-serving", "pod": "qwen-0-5b-7d9f6c-t2xkq", "container": "vllm", "endpoint": "http"}}

// TestEveryPanelShowsWhatItsInputsHold evaluates every query of the dashboards L1 to L5, as
// Grafana runs it with its variables filled for each install, after the installs' scrapes (and
// a vLLM server beside the GPU Operator's L4, its GPU claimed through DRA) have been replayed
// for three hours on the embedded catalog with no setting, with the scrape target's labels
// winning and not. A query whose inputs the install sends shows data (where no condition of
// its own filters them); a count shows 0 rather than nothing; no temperature reads 0 °C (a
// board that measures no memory temperature sends 0); and each variable offers the install's
// cluster, node and workload namespace, the serving one included.
func TestEveryPanelShowsWhatItsInputsHold(t *testing.T) {
	testutil.Long(t)
	t.Parallel()
	for _, targetLabelsWin := range []bool{false, true} {
		t.Run(fmt.Sprintf("honorLabels %t", !targetLabelsWin), func(t *testing.T) {
			t.Parallel()
			var replays []replay
			for _, in := range everyInstall {
				replays = append(replays, replay{scrape: in.scrape, cluster: strings.TrimSuffix(in.scrape, ".prom"), target: in.target, targetLabelsWin: targetLabelsWin})
			}
			replays = append(replays, replay{scrape: "vllm-l4.prom", cluster: "operator-l4", target: servingTarget, targetLabelsWin: targetLabelsWin, server: true})
			for _, problem := range panelsOnReplay(t, "", replays) {
				t.Error(problem)
			}
		})
	}
}

// dashboardQuery is one query of a generated dashboard: its dashboard, panel and kind, or the
// variable it fills.
type dashboardQuery struct {
	dashboard, panel, kind, unit, variable, expr string
}

// panelsOnReplay replays scrapes on a catalog's rules and evaluates every dashboard query on
// each install's cluster, and returns what does not show what its inputs hold.
func panelsOnReplay(t *testing.T, config string, replays []replay) []string {
	t.Helper()
	dir := generateInto(t, config)
	p := plantest.Plan(t, config)
	queries := dashboardQueries(t, dir)
	type install struct {
		vars map[string]string
		// series are the label sets of each metric's input series.
		series map[string][]map[string]string
	}
	installs := map[string]*install{}
	group := map[string]any{"name": "panels", "interval": "1m"}
	var input []map[string]string
	for i, r := range replays {
		series, held := replaySeries(t, r, i)
		input = append(input, series...)
		in := installs[r.cluster]
		if in == nil {
			in = &install{vars: map[string]string{"cluster": r.cluster, "pod": ".*"}, series: map[string][]map[string]string{}}
			installs[r.cluster] = in
		}
		// The namespace: a model server's, else that of a pod the exporter attributes a GPU to.
		if r.server {
			in.vars["namespace"] = r.target.labels["namespace"]
		}
		for _, h := range held {
			if ns := regexp.MustCompile(`namespace="([^"]+)"`).FindStringSubmatch(h["labels"].(string)); ns != nil && in.vars["namespace"] == "" {
				in.vars["namespace"] = ns[1]
			}
		}
		for _, s := range series {
			n, err := promql.Parse(s["series"])
			if err != nil {
				t.Fatal(err)
			}
			labels := map[string]string{}
			for _, m := range n.Matchers {
				labels[m.Name] = m.Value
				switch {
				case m.Name == p.Model.Labels.Host && in.vars["node"] == "":
					in.vars["node"] = m.Value
				case m.Name == p.Model.Labels.UUID && in.vars["gpu"] == "":
					in.vars["gpu"] = m.Value
				}
			}
			in.series[n.Name] = append(in.series[n.Name], labels)
		}
	}
	records := map[string][]string{}
	for _, r := range p.Recorded {
		records[r.Name] = append(records[r.Name], r.Expr)
	}
	// One test per query and install, each told apart by a comment.
	type evaluated struct {
		query   dashboardQuery
		cluster string
		needed  bool
	}
	var exprs []map[string]any
	var tests []evaluated
	for _, cluster := range slices.Sorted(maps.Keys(installs)) {
		in := installs[cluster]
		for _, q := range queries {
			expr, ok := fill(q.expr, in.vars)
			if !ok {
				continue // a variable the install has no value for: Grafana shows nothing
			}
			if q.variable != "" {
				expr = labelValues(expr)
			}
			n, err := promql.Parse(expr)
			if err != nil {
				t.Fatalf("%s › %s: %v\n%s", q.dashboard, q.panel, err, expr)
			}
			needed := q.variable != "" || counts(n) || shows(n, in.series, records, map[string]bool{})
			tests = append(tests, evaluated{q, cluster, needed})
			exprs = append(exprs, map[string]any{"expr": fmt.Sprintf("%s\n# query %d", expr, len(tests)-1), "eval_time": fmt.Sprintf("%dh", replayHours), "exp_samples": []any{}})
		}
	}
	slices.SortFunc(input, func(a, b map[string]string) int { return strings.Compare(a["series"], b["series"]) })
	rules, _ := generatedRules(t, dir)
	group["input_series"], group["promql_expr_test"] = input, exprs
	b, err := yaml.Marshal(map[string]any{"rule_files": rules, "evaluation_interval": "1m", "group_eval_order": groupEvalOrder(t, dir), "tests": []any{group}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "panels.test.yaml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := promtoolTest(t, dir, "panels.test.yaml", nil)
	if err != nil && !strings.Contains(out, "FAILED") {
		t.Fatalf("promtool: %v\n%s", err, out)
	}
	// A query's test fails where it has samples: what it shows.
	shown := map[int]string{}
	for _, m := range regexp.MustCompile(`# query (\d+)", time: \d+h,\s*\n\s*exp: .*\n\s*got: (.*)`).FindAllStringSubmatch(out, -1) {
		i, _ := strconv.Atoi(m[1])
		shown[i] = m[2]
	}
	var problems []string
	needed := 0
	for _, e := range tests {
		if e.needed && e.query.variable == "" {
			needed++
		}
	}
	t.Logf("%d queries evaluated on %d installs: %d whose inputs the install sends, %d showing data", len(tests), len(installs), needed, len(shown))
	for i, e := range tests {
		q, got := e.query, shown[i]
		where := fmt.Sprintf("%s on %s › %s", e.cluster, q.dashboard, q.panel)
		switch want := installs[e.cluster].vars[q.variable]; {
		case q.variable != "" && want != "" && q.variable != "pod" && !strings.Contains(got, `"`+want+`"`):
			problems = append(problems, fmt.Sprintf("%s: variable %s does not offer %q: %s", where, q.variable, installs[e.cluster].vars[q.variable], orNothing(got)))
		case q.variable == "" && e.needed && got == "":
			problems = append(problems, fmt.Sprintf("%s: no data, while the install sends its inputs: %s", where, q.expr))
		case q.unit == "celsius" && regexp.MustCompile(`} 0E\+00`).MatchString(got):
			problems = append(problems, fmt.Sprintf("%s: a temperature of 0 °C, a reading no board makes: %s", where, got))
		}
	}
	return problems
}

// orNothing says a query's empty result.
func orNothing(got string) string {
	if got == "" {
		return "nothing"
	}
	return got
}

// dashboardQueries reads every query of the generated classic dashboards: each panel's
// targets, and each query variable's.
func dashboardQueries(t *testing.T, dir string) []dashboardQuery {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "dashboards", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no dashboards under %s: %v", dir, err)
	}
	type panel struct {
		Title, Type string
		Targets     []struct{ Expr string }
		FieldConfig struct{ Defaults struct{ Unit string } }
		Panels      []panel
	}
	var out []dashboardQuery
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var d struct {
			Title      string
			Panels     []panel
			Templating struct {
				List []struct{ Name, Type, Query string }
			}
		}
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, v := range d.Templating.List {
			if v.Type == "query" {
				out = append(out, dashboardQuery{dashboard: d.Title, panel: "variable " + v.Name, variable: v.Name, expr: v.Query})
			}
		}
		var walk func([]panel)
		walk = func(ps []panel) {
			for _, p := range ps {
				for _, target := range p.Targets {
					out = append(out, dashboardQuery{dashboard: d.Title, panel: p.Title, kind: p.Type, unit: p.FieldConfig.Defaults.Unit, expr: target.Expr})
				}
				walk(p.Panels)
			}
		}
		walk(d.Panels)
	}
	return out
}

// grafanaVariable is a dashboard variable in a query.
var grafanaVariable = regexp.MustCompile(`\$\{?(\w+)\}?`)

// fill puts a install's variable values into a query as Grafana does (its built-in intervals
// too); false where the query reads a variable the install has no value for.
func fill(expr string, vars map[string]string) (string, bool) {
	ok := true
	out := grafanaVariable.ReplaceAllStringFunc(expr, func(v string) string {
		name := strings.Trim(v, "${}")
		switch name {
		case "__rate_interval", "__interval", "__range":
			return "5m"
		}
		value, has := vars[name]
		ok = ok && has
		return value
	})
	return out, ok
}

// labelValues is Grafana's label_values(selector, label) as a query: the label's values among
// the selector's series.
func labelValues(query string) string {
	m := regexp.MustCompile(`^label_values\((.*), *(\w+)\)$`).FindStringSubmatch(query)
	if m == nil {
		return query
	}
	return fmt.Sprintf("group by (%s) (%s)", m[2], m[1])
}

// counts reports whether a query counts what it selects into one number (count(...), or
// count(...) or a constant): a count panel, which shows 0 where there is nothing to count.
func counts(n *promql.Node) bool {
	return n.Kind == promql.Aggregate && n.Name == "count" && len(n.Grouping) == 0 && !n.Without || n.Kind == promql.Binary && n.Name == "or" && counts(n.Args[0])
}

// shows reports whether a query would show data where the series present are sent: each
// series it selects is there (a raw series that its matchers match, a record whose inputs
// are), on one side of an or, where no condition of its own (a comparison without bool, an
// and, an unless) may filter it.
func shows(n *promql.Node, present map[string][]map[string]string, records map[string][]string, seen map[string]bool) bool {
	switch n.Kind {
	case promql.Selector:
		if series, raw := present[n.Name]; raw {
			return slices.ContainsFunc(series, func(labels map[string]string) bool {
				return !slices.ContainsFunc(n.Matchers, func(m promql.Matcher) bool { return !m.Matches(labels[m.Name]) })
			})
		}
		exprs, recorded := records[n.Name]
		if !recorded || seen[n.Name] {
			return false
		}
		seen[n.Name] = true
		defer delete(seen, n.Name)
		for _, e := range exprs {
			if r, err := promql.Parse(e); err == nil && shows(r, present, records, seen) {
				return true
			}
		}
		return false
	case promql.Binary:
		switch {
		case n.Name == "or":
			return shows(n.Args[0], present, records, seen) || shows(n.Args[1], present, records, seen)
		case n.Name == "and" || n.Name == "unless" || promql.IsComparison(n.Name) && !n.ReturnBool:
			return false
		}
	case promql.Call:
		if n.Name == "absent" || n.Name == "absent_over_time" {
			return false
		}
	}
	for _, a := range n.Args {
		if !shows(a, present, records, seen) {
			return false
		}
	}
	return true
}
