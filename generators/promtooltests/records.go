package promtooltests

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/synth"
)

// recordTests plays the cases of the catalog records that carry their own. Promtool's cost
// grows with test groups (each evaluates every rule), so cases share groups: cases on the same
// series, and cases whose series have no metric in common, so that no rule sees both (a rule
// that read both would change a case's result, and its test would fail, never pass wrongly).
func recordTests(p *plan.Plan) testFile {
	m := p.Model
	f := testFile{RuleFiles: ruleFiles(p), EvaluationInterval: m.Tests.Interval, FuzzyCompare: true, Tests: []testGroup{}}
	byInput := map[string]int{}
	var metrics []map[string]bool // by group: the metrics of its series
	for _, key := range model.SortedKeys(m.Records) {
		name := m.Records[key].Record
		for _, c := range m.Records[key].Tests {
			var input []series
			for _, s := range c.Series {
				input = append(input, series{Series: synth.Series(s.Metric, s.Labels), Values: s.Values})
			}
			// A selector of the record keeps its name; any other expression drops it.
			metric := ""
			if strings.HasPrefix(c.Expr, name) {
				metric = name
			}
			t := exprTest{Expr: c.Expr, EvalTime: m.Tests.EvalTime, ExpSamples: []expSample{}}
			for _, e := range c.Expect {
				t.ExpSamples = append(t.ExpSamples, expSample{Labels: synth.Series(metric, e.Labels), Value: e.Value})
			}
			sort.Slice(t.ExpSamples, func(i, j int) bool { return t.ExpSamples[i].Labels < t.ExpSamples[j].Labels })
			signature := fmt.Sprint(input)
			if i, ok := byInput[signature]; ok {
				f.Tests[i].ExprTests = append(f.Tests[i].ExprTests, t)
				continue
			}
			// A group's cases feed no metric and no rule in common: a rule that reads two
			// metrics (a histogram under its current and its deprecated name) would read the
			// other case's series too.
			own := map[string]bool{}
			for _, s := range c.Series {
				own[s.Metric] = true
				for _, reader := range readers(p, s.Metric) {
					own["read by "+reader] = true
				}
			}
			i := slices.IndexFunc(metrics, func(other map[string]bool) bool { return disjoint(own, other) })
			byInput[signature] = i
			if i < 0 {
				byInput[signature] = len(f.Tests)
				metrics = append(metrics, own)
				f.Tests = append(f.Tests, testGroup{Name: key + ": " + c.Name, Interval: m.Tests.Interval, InputSeries: input, ExprTests: []exprTest{t}})
				continue
			}
			maps.Copy(metrics[i], own)
			f.Tests[i].Name += "; " + key + ": " + c.Name
			f.Tests[i].InputSeries = append(f.Tests[i].InputSeries, input...)
			f.Tests[i].ExprTests = append(f.Tests[i].ExprTests, t)
		}
	}
	return f
}

func disjoint(a, b map[string]bool) bool {
	for k := range a {
		if b[k] {
			return false
		}
	}
	return true
}

// readers are the rules and dashboards that read a metric directly: under its own name or, for
// a classic histogram's series, its histogram's.
func readers(p *plan.Plan, metric string) []string {
	out := p.Usage.Users[metric]
	for _, suffix := range []string{"_bucket", "_count", "_sum"} {
		if base, ok := strings.CutSuffix(metric, suffix); ok {
			out = append(out, p.Usage.Users[base]...)
		}
	}
	return out
}
