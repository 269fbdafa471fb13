package rulegraph_test

import (
	"slices"
	"testing"

	"github.com/gpuobs/gpuobs/internal/promql/rulegraph"
)

func rule(t *testing.T, name string, alert bool, own map[string]string, expr string) rulegraph.Rule {
	t.Helper()
	r, err := rulegraph.NewRule(name, alert, own, expr)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestInputsFollowRecordsAndAlerts: a rule's inputs are the records it selects by name (only
// those whose own labels meet its matchers), the alerts it reads through ALERTS (by
// alertname), and theirs in turn; a selector without a metric name may read every rule.
func TestInputsFollowRecordsAndAlerts(t *testing.T) {
	rules := []rulegraph.Rule{
		rule(t, "slo:errors:ratio", false, map[string]string{"slo": "a"}, "sum(rate(x[5m]))"),
		rule(t, "slo:errors:ratio", false, map[string]string{"slo": "b"}, "sum(rate(y[5m]))"),
		rule(t, "Burn", true, nil, `slo:errors:ratio{slo="a"} > 0.1`),
		rule(t, "Other", true, nil, "z > 0"),
		rule(t, "Quiet", true, nil, `w > 0 unless on () ALERTS{alertname="Burn"}`),
		rule(t, "Anything", true, nil, `{job="x"} > 0`),
	}
	graph := rulegraph.New(rules)
	inputs := func(roots ...int) []int {
		var out []int
		for i, needed := range graph.Inputs(roots) {
			if needed {
				out = append(out, i)
			}
		}
		return out
	}
	for _, c := range []struct {
		name  string
		roots []int
		want  []int
	}{
		{"a record by its name and labels", []int{2}, []int{0, 2}},
		{"an alert through ALERTS, and what it reads", []int{4}, []int{0, 2, 4}},
		{"nothing read", []int{3}, []int{3}},
		{"a selector without a name", []int{5}, []int{0, 1, 2, 3, 4, 5}},
	} {
		if got := inputs(c.roots...); !slices.Equal(got, c.want) {
			t.Errorf("%s: inputs %v, want %v", c.name, got, c.want)
		}
	}
}

// TestMaySelect: a series is kept when a selector's matchers meet its labels, and when its
// notation cannot be read.
func TestMaySelect(t *testing.T) {
	selectors, err := rulegraph.SelectorsOf(`rate(x{job="a"}[5m]) + on () y`)
	if err != nil {
		t.Fatal(err)
	}
	for series, want := range map[string]bool{
		`x{job="a", instance="i"}`: true,
		`x{job="b"}`:               false,
		`y{job="b"}`:               true,
		`z{job="a"}`:               false,
		`not a series {`:           true,
	} {
		if got := rulegraph.MaySelect(selectors, series); got != want {
			t.Errorf("MaySelect(%s) = %v, want %v", series, got, want)
		}
	}
}
