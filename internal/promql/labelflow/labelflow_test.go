package labelflow

import (
	"slices"
	"testing"

	"github.com/gpuobs/gpuobs/internal/promql"
)

// resolve knows two metrics; anything else is open.
func resolve(name string) Set {
	switch name {
	case "gpu_temp":
		return NewSet(false, "cluster", "host", "gpu", "pod")
	case "pod_info":
		return NewSet(false, "cluster", "pod", "owner")
	case "latency_bucket":
		return NewSet(false, "cluster", "model", "le")
	}
	return NewSet(true)
}

func TestOutput(t *testing.T) {
	for _, c := range []struct {
		expr string
		want []string
		open bool
	}{
		{`gpu_temp`, []string{"cluster", "gpu", "host", "pod"}, false},
		{`max by (cluster, host) (gpu_temp)`, []string{"cluster", "host"}, false},
		{`sum without (gpu) (gpu_temp)`, []string{"cluster", "host", "pod"}, false},
		{`topk(3, gpu_temp)`, []string{"cluster", "gpu", "host", "pod"}, false},
		{`count_values by (cluster) ("value", gpu_temp)`, []string{"cluster", "value"}, false},
		{`gpu_temp * on (cluster, pod) group_left (owner) pod_info`, []string{"cluster", "gpu", "host", "owner", "pod"}, false},
		{`pod_info * on (cluster, pod) group_right gpu_temp`, []string{"cluster", "gpu", "host", "pod"}, false},
		{`gpu_temp / on (cluster, host) gpu_temp`, []string{"cluster", "host"}, false},
		{`gpu_temp / ignoring (gpu) gpu_temp`, []string{"cluster", "host", "pod"}, false},
		{`gpu_temp and on (pod) pod_info`, []string{"cluster", "gpu", "host", "pod"}, false},
		{`max by (cluster) (gpu_temp) or max by (cluster, owner) (pod_info)`, []string{"cluster", "owner"}, false},
		{`label_replace(gpu_temp, "node", "$1", "host", "(.*)")`, []string{"cluster", "gpu", "host", "node", "pod"}, false},
		{`histogram_quantile(0.99, sum by (cluster, le) (rate(latency_bucket[5m])))`, []string{"cluster"}, false},
		{`2 * gpu_temp > 80`, []string{"cluster", "gpu", "host", "pod"}, false},
		{`absent(gpu_temp{cluster="a", host=~"b"})`, []string{"cluster"}, false},
		{`unknown_metric`, []string{}, true},
		{`vector(1)`, []string{}, false},
	} {
		n, err := promql.Parse(c.expr)
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		got := Output(n, resolve)
		if !slices.Equal(got.Sorted(), c.want) || got.Open != c.open {
			t.Errorf("%s: labels %v (open %v), want %v (open %v)", c.expr, got.Sorted(), got.Open, c.want, c.open)
		}
	}
}

func TestSetOperations(t *testing.T) {
	s := NewSet(false, "a", "b")
	if got := s.Only("a", "c").Sorted(); !slices.Equal(got, []string{"a"}) {
		t.Errorf("Only on a closed set = %v, want [a]", got)
	}
	if got := NewSet(true, "a").Only("a", "c").Sorted(); !slices.Equal(got, []string{"a", "c"}) {
		t.Errorf("Only on an open set = %v, want [a c]: an open set may have c", got)
	}
	if u := s.Union(NewSet(true)); !u.Open || !u.Has("a") {
		t.Errorf("Union with an open set = %v, open %v", u.Sorted(), u.Open)
	}
	if w := s.Without("a"); w.Has("a") || !s.Has("a") {
		t.Error("Without changed its receiver or kept the label")
	}
}
