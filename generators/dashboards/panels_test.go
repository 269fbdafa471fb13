package dashboards

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/promql/ruleeval"
	"github.com/gpuobs/gpuobs/internal/testutil/testcatalog"
)

// panelQuery is the first query of the panel titled title on the dashboard of a level, with
// the cluster variable set to cluster.
func panelQuery(t *testing.T, level, title, cluster string) string {
	t.Helper()
	d, err := Build(testcatalog.Model(t, ""), level)
	if err != nil {
		t.Fatal(err)
	}
	data, err := emit.SortedJSON(d)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var found string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["title"] == title {
				if targets, ok := v["targets"].([]any); ok && len(targets) > 0 && found == "" {
					found, _ = targets[0].(map[string]any)["expr"].(string)
				}
			}
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(doc)
	if found == "" {
		t.Fatalf("%s has no panel %q", level, title)
	}
	return strings.ReplaceAll(found, "$cluster", cluster)
}

// queryPanel evaluates a panel's query on the given recorded series (one sample each, at the
// query time).
func queryPanel(t *testing.T, expr string, series []ruleSample) string {
	t.Helper()
	store, err := ruleeval.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	for _, s := range series {
		if err := store.AddSeries(s.metric, s.labels, 0, 30_000, 3, func(int) float64 { return s.value }); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.Commit(); err != nil {
		t.Fatal(err)
	}
	out, err := store.Query(expr, time.UnixMilli(60_000))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return out
}

type ruleSample struct {
	metric string
	labels map[string]string
	value  float64
}

// TestXIDPanelCountsGPUs: a MIG GPU whose two instances are held by two pods is one GPU with
// an XID, not two.
func TestXIDPanelCountsGPUs(t *testing.T) {
	expr := panelQuery(t, "L2", "XID events", "prod")
	gpu := func(uuid, pod string) map[string]string {
		return map[string]string{"cluster": "prod", "Hostname": "node-1", "gpu": "0", "UUID": uuid, "pod": pod, "namespace": "ml", "xid": "48"}
	}
	got := queryPanel(t, expr, []ruleSample{
		{"gpu_pod:dcgm_xid_errors:new10m", gpu("GPU-a", "infer-0"), 1},
		{"gpu_pod:dcgm_xid_errors:new10m", gpu("GPU-a", "infer-1"), 1},
		{"gpu_pod:dcgm_xid_errors:new10m", gpu("GPU-b", "train-0"), 3},
	})
	if want := `{xid="48"} => 2`; !strings.HasPrefix(got, want) {
		t.Errorf("%s\n= %s, want %s", expr, got, want)
	}
}

// TestFragmentationPanelComparesEachNodeWithItself: a node with all of its GPUs free is not
// fragmented, whatever the size of the largest node.
func TestFragmentationPanelComparesEachNodeWithItself(t *testing.T) {
	expr := panelQuery(t, "L2", "Fragmentation: nodes with some but not all GPUs free", "prod")
	node := func(name string) map[string]string { return map[string]string{"cluster": "prod", "node": name} }
	got := queryPanel(t, expr, []ruleSample{
		{"node:kube_gpu_allocatable:sum", node("half-used"), 8},
		{"node:kube_gpu_requested:sum", node("half-used"), 4},
		{"node:kube_gpu_allocatable:sum", node("full"), 8},
		{"node:kube_gpu_requested:sum", node("full"), 8},
		{"node:kube_gpu_allocatable:sum", node("small-and-free"), 4},
	})
	if want := `{} => 1`; !strings.HasPrefix(got, want) {
		t.Errorf("%s\n= %s, want %s (only half-used)", expr, got, want)
	}
}
