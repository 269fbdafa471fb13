package promtooltests

import (
	"sort"
	"strings"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/synth"
)

// recordTests plays the cases of the catalog records that carry their own: one test group per
// case, so that each case's series are all the rules see.
func recordTests(m *model.Model) testFile {
	f := testFile{RuleFiles: ruleFiles, EvaluationInterval: m.Tests.Interval, FuzzyCompare: true, Tests: []testGroup{}}
	for _, key := range model.SortedKeys(m.Records) {
		name := m.Records[key].Record
		for _, c := range m.Records[key].Tests {
			group := testGroup{Name: key + ": " + c.Name, Interval: m.Tests.Interval}
			for _, s := range c.Series {
				group.InputSeries = append(group.InputSeries, series{Series: synth.Series(s.Metric, s.Labels), Values: s.Values})
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
			group.ExprTests = []exprTest{t}
			f.Tests = append(f.Tests, group)
		}
	}
	return f
}
