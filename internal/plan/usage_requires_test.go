package plan

import (
	"slices"
	"testing"
)

// TestRequires: what an expression cannot fire without. A metric read only in "unless" (the
// maintenance condition of a page) or on one side of "or" (a fallback) is not required, so an
// alert reading kube-state-metrics that way still fires while kube-state-metrics is down.
func TestRequires(t *testing.T) {
	rd := newReader([]Recorded{
		{Name: "node:maint:flag", Expr: `kube_node_spec_unschedulable == 1 unless on (node) gpu_info`},
		{Name: "node:either", Expr: `a`, Labels: map[string]string{"src": "a"}},
		{Name: "node:either", Expr: `b`, Labels: map[string]string{"src": "b"}},
	})
	for _, c := range []struct {
		expr string
		want []string
	}{
		{`x > 1 unless on (node) node:maint:flag`, []string{"x"}},
		{`x and on (node) node:maint:flag`, []string{"kube_node_spec_unschedulable", "x"}},
		{`x or y`, nil},
		{`(x and z) or (x and y)`, []string{"x"}},
		{`absent(x)`, nil},
		{`sum by (node) (rate(x[5m])) / on (node) group_left () max by (node) (y)`, []string{"x", "y"}},
		{`node:either`, nil},
		{`node:either{src="a"}`, []string{"a"}},
	} {
		got, err := rd.requires(c.expr)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("requires(%s) = %v, %v; want %v", c.expr, got, err, c.want)
		}
	}
}
