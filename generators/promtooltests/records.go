package promtooltests

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/synth"
)

// recordTests plays the cases of the catalog records that carry their own: one test group per
// set of input series, so that each case's series are all the rules see; cases on the same
// series share a group (promtool's cost grows with groups: each evaluates every rule).
func recordTests(m *model.Model) testFile {
	f := testFile{RuleFiles: ruleFiles, EvaluationInterval: m.Tests.Interval, FuzzyCompare: true, Tests: []testGroup{}}
	byInput := map[string]int{}
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
			byInput[signature] = len(f.Tests)
			f.Tests = append(f.Tests, testGroup{Name: key + ": " + c.Name, Interval: m.Tests.Interval, InputSeries: input, ExprTests: []exprTest{t}})
		}
	}
	return f
}
