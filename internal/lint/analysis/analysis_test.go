package analysis_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/internal/lint/analysis"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/source"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

// ruleFile is a rule file at path holding rules (YAML list items).
func ruleFile(path, items string) *source.File {
	return source.ReadFile(path, []byte("groups:\n  - name: test\n    rules:\n"+items))
}

// record is a rule item recording name from expr.
func record(name, expr string) string {
	return "      - record: " + name + "\n        expr: " + expr + "\n"
}

func parse(t *testing.T, expr string) *promql.Node {
	t.Helper()
	n, err := promql.Parse(expr)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return n
}

// TestUnit: units come from the catalog's fields, through rates, aggregations, comparisons and
// additions; bitmasks, last events and ratios of two values have none.
func TestUnit(t *testing.T) {
	p := plantest.Plan(t, "")
	a := analysis.New(p, nil)
	for expr, want := range map[string]string{
		"DCGM_FI_DEV_FB_USED":                                  "MiB",
		"sum by (cluster) (DCGM_FI_DEV_FB_USED)":               "MiB",
		"max_over_time(DCGM_FI_DEV_GPU_TEMP[5m])":              "celsius",
		"-DCGM_FI_DEV_GPU_TEMP":                                "celsius",
		"DCGM_FI_DEV_SM_CLOCK > 1500":                          "MHz",
		"vector(1) + DCGM_FI_DEV_POWER_USAGE":                  "watts",
		"rate(DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION[5m])":       "millijoules/s",
		"DCGM_FI_DEV_XID_ERRORS":                               "",
		"DCGM_FI_DEV_CLOCK_THROTTLE_REASONS":                   "",
		"DCGM_FI_DEV_FB_USED / DCGM_FI_DEV_FB_FREE":            "",
		"count(DCGM_FI_DEV_GPU_TEMP)":                          "",
		"kube_node_info":                                       "",
		"avg_over_time(max(DCGM_FI_DEV_GPU_TEMP)[10m:1m])":     "celsius",
		"DCGM_FI_DEV_GPU_TEMP unless DCGM_FI_DEV_POWER_USAGE":  "celsius",
		"DCGM_FI_DEV_XID_ERRORS or DCGM_FI_DEV_POWER_USAGE":    "watts",
		"clamp_max(DCGM_FI_PROF_GR_ENGINE_ACTIVE, 1)":          "ratio",
		"quantile(0.9, DCGM_FI_DEV_GPU_TEMP) >= bool 80":       "celsius",
		"topk(3, sum by (Hostname) (DCGM_FI_DEV_POWER_USAGE))": "watts",
		"rate(DCGM_FI_DEV_CLOCK_THROTTLE_REASONS[5m])":         "",
		"increase(DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION[1h])":   "millijoules",
		"max by (UUID) (DCGM_FI_DEV_FB_USED) * 1024 * 1024":    "",
		"sum(DCGM_FI_DEV_FB_USED) - sum(DCGM_FI_DEV_FB_FREE)":  "MiB",
		"avg_over_time(DCGM_FI_PROF_GR_ENGINE_ACTIVE[5m:1m])":  "ratio",
	} {
		if got := a.Unit(parse(t, expr)); got != want {
			t.Errorf("Unit(%s) = %q, want %q", expr, got, want)
		}
	}
}

// TestProject: series counted over the label hierarchy at the fleet's size (a Slurm job as a
// namespace), with labels pinned by equality matchers and single-value dashboard variables
// counted once, and topk's limit.
func TestProject(t *testing.T) {
	p := plantest.Plan(t, "")
	f := p.Model.Fleet
	a := analysis.New(p, nil)
	for _, c := range []struct {
		expr   string
		single map[string]bool
		series int
		factor string
	}{
		{"sum(DCGM_FI_DEV_GPU_TEMP)", nil, 1, ""},
		{"sum by (cluster) (DCGM_FI_DEV_GPU_TEMP)", nil, f.Clusters, "cluster"},
		{"sum by (cluster, Hostname) (DCGM_FI_DEV_GPU_TEMP)", nil, f.Clusters * f.NodesPerCluster, "Hostname"},
		{"max by (cluster, Hostname, UUID) (DCGM_FI_DEV_GPU_TEMP)", nil, f.Clusters * f.NodesPerCluster * f.GPUsPerNode, "UUID"},
		{`max by (cluster, Hostname, UUID) (DCGM_FI_DEV_GPU_TEMP{cluster="a"})`, nil, f.NodesPerCluster * f.GPUsPerNode, "UUID"},
		// A GPU lives on one host of one cluster: pinning it pins them.
		{`max by (cluster, Hostname, UUID) (DCGM_FI_DEV_GPU_TEMP{UUID="GPU-1"})`, nil, 1, ""},
		{"sum by (cluster, namespace) (DCGM_FI_DEV_GPU_TEMP)", nil, f.Clusters * f.NamespacesPerCluster, "namespace"},
		// A Slurm job (hpc_job) is a workload as a namespace is: per job, one series per job
		// running; one job's GPUs, those of one workload.
		{"sum by (cluster, hpc_job) (DCGM_FI_DEV_GPU_TEMP)", nil, f.Clusters * f.NamespacesPerCluster, "hpc_job"},
		{`max by (cluster, Hostname, UUID) (DCGM_FI_DEV_GPU_TEMP{cluster="$cluster", hpc_job="$job"})`, nil, f.NodesPerCluster * f.GPUsPerNode / f.NamespacesPerCluster, "UUID"},
		{"topk(5, max by (UUID) (DCGM_FI_DEV_GPU_TEMP))", nil, 5, "UUID"},
		// A variable in an equality matcher picks one value; in a regular expression only when
		// the dashboard says the variable takes a single value.
		{`sum by (cluster, Hostname) (DCGM_FI_DEV_GPU_TEMP{cluster="$cluster"})`, nil, f.NodesPerCluster, "Hostname"},
		{`sum by (cluster, Hostname) (DCGM_FI_DEV_GPU_TEMP{cluster=~"$cluster"})`, nil, f.Clusters * f.NodesPerCluster, "Hostname"},
		{`sum by (cluster, Hostname) (DCGM_FI_DEV_GPU_TEMP{cluster=~"$cluster"})`, map[string]bool{"cluster": true}, f.NodesPerCluster, "Hostname"},
	} {
		got := a.Project(parse(t, c.expr), c.single)
		if got.Series != c.series || got.Factor != c.factor {
			t.Errorf("Project(%s, %v) = %+v, want %d series by %q", c.expr, c.single, got, c.series, c.factor)
		}
	}
}

// TestProjectFanout: a label beyond the hierarchy multiplies a projection by its fan-out
// (metrics.<name>.fanout): NCCL Inspector's series per rank, kept, aggregated away or pinned,
// on the training catalog (its rank label renamed by the adopter's catalog is not read).
func TestProjectFanout(t *testing.T) {
	p := plantest.Plan(t, "../../testutil/plantest/testdata/training.jsonnet")
	f := p.Model.Fleet
	gpus := f.Clusters * f.NodesPerCluster * f.GPUsPerNode
	fan := p.Model.Metrics["nccl_bus_bandwidth_gbs"].Fanout
	if fan["comm_name"] < 2 || fan["collective"] < 2 || fan["message_size"] < 2 {
		t.Fatalf("nccl_bus_bandwidth_gbs fan-out %v: the test needs labels that fan out", fan)
	}
	a := analysis.New(p, nil)
	for _, c := range []struct {
		expr   string
		series int
		factor string
	}{
		{"max by (cluster, node, gpu) (nccl_bus_bandwidth_gbs)", gpus, "gpu"},
		{"max by (cluster, node, gpu, comm_name) (nccl_bus_bandwidth_gbs)", gpus * fan["comm_name"], "comm_name"},
		{"nccl_bus_bandwidth_gbs", gpus * fan["comm_name"] * fan["collective"] * fan["message_size"], widest(fan)},
		{`max by (cluster, node, gpu, comm_name) (nccl_bus_bandwidth_gbs{comm_name="0x7f3a"})`, gpus, "gpu"},
		{"max by (collective) (nccl_bus_bandwidth_gbs)", fan["collective"], "collective"},
		// The rank's host label renamed by a scrape that sets its own node label.
		{"max by (cluster, exported_node, gpu, comm_name) (nccl_bus_bandwidth_gbs)", gpus * fan["comm_name"], "comm_name"},
		// A field without fan-out keeps its projection.
		{"max by (cluster, Hostname, UUID, comm_name) (DCGM_FI_DEV_GPU_TEMP)", gpus, "UUID"},
	} {
		got := a.Project(parse(t, c.expr), nil)
		if got.Series != c.series || got.Factor != c.factor {
			t.Errorf("Project(%s) = %+v, want %d series by %q", c.expr, got, c.series, c.factor)
		}
	}
}

// widest is the label of a fan-out with the most values (the last by name among equals).
func widest(fan map[string]int) string {
	best := ""
	for label, n := range fan {
		if best == "" || n > fan[best] || n == fan[best] && label > best {
			best = label
		}
	}
	return best
}

// TestProjectDashboardVariables: a dashboard query's variables, as the dashboard reader
// substitutes them: $cluster pins the cluster, and the query projects to one cluster's nodes.
func TestProjectDashboardVariables(t *testing.T) {
	p := plantest.Plan(t, "")
	q := `sum by (Hostname, $group) (rate(DCGM_FI_DEV_PCIE_REPLAY_COUNTER{cluster=\"$cluster\", Hostname=~\"${node:regex}\"}[$__rate_interval])) + DCGM_FI_DEV_GPU_TEMP`
	f := source.ReadDashboard("d.json", []byte(`{"title": "t", "uid": "u", "tags": ["L3"], "panels": [{"title": "p", "targets": [{"expr": "`+q+`"}]}]}`))
	if f.Dashboard == nil || len(f.Dashboard.Queries) != 1 || f.Dashboard.Queries[0].Expr.Node == nil {
		t.Fatalf("dashboard not read: %+v", f)
	}
	got := analysis.New(p, []*source.File{f}).Project(f.Dashboard.Queries[0].Expr.Node, f.Dashboard.SingleValue)
	if got.Series != p.Model.Fleet.NodesPerCluster {
		t.Errorf("projected %d series, want %d (one cluster's nodes)", got.Series, p.Model.Fleet.NodesPerCluster)
	}
}

func TestProjectedSeries(t *testing.T) {
	p := plantest.Plan(t, "")
	a := analysis.New(p, nil)
	if n, err := a.ProjectedSeries("sum by (cluster) (DCGM_FI_DEV_GPU_TEMP)"); err != nil || n != p.Model.Fleet.Clusters {
		t.Errorf("got %d, %v; want %d", n, err, p.Model.Fleet.Clusters)
	}
	if _, err := a.ProjectedSeries("sum by (cluster (x)"); err == nil {
		t.Error("a broken expression projected")
	}
}

// TestGPURelated: an expression is about GPUs when it reads a catalog field, a DCGM-looking
// name, or a record derived from one, through any chain of records (cycles included), of the
// files or of the catalog.
func TestGPURelated(t *testing.T) {
	p := plantest.Plan(t, "")
	f := ruleFile("r.yaml", record("team:temp:max", "max(DCGM_FI_DEV_GPU_TEMP)")+
		record("team:temp:avg", "avg(team:temp:max)")+
		record("team:loop:a", "team:loop:b")+
		record("team:loop:b", "team:loop:a")+
		record("team:up:sum", "sum(up)"))
	a := analysis.New(p, []*source.File{f})
	for expr, want := range map[string]bool{
		"DCGM_FI_DEV_GPU_TEMP":           true,
		"dcgm_fi_dev_gpu_temp":           true,
		"DCGM_FI_NOT_IN_THE_CATALOG":     true,
		"team:temp:avg":                  true,
		"gpu:dcgm_ecc_dbe_vol_total:max": true,
		"up":                             false,
		"team:up:sum":                    false,
		"team:loop:a":                    false,
		"sum(up) + on () group_left () team:temp:max": true,
	} {
		if got := a.GPURelated(parse(t, expr)); got != want {
			t.Errorf("GPURelated(%s) = %v, want %v", expr, got, want)
		}
	}
	if !analysis.DCGMLooking("DCGM_EXP_XID_ERRORS_COUNT") || analysis.DCGMLooking("nvidia_gpu_temp") {
		t.Error("DCGMLooking: want DCGM_ and dcgm_ names only")
	}
}

// TestRecordedKnownRaw: which names rules record (the files' or the catalog's), which the
// catalog or Prometheus knows, and which are scraped series.
func TestRecordedKnownRaw(t *testing.T) {
	p := plantest.Plan(t, "")
	a := analysis.New(p, []*source.File{ruleFile("r.yaml", record("team:temp:max", "max(DCGM_FI_DEV_GPU_TEMP)"))})
	for _, c := range []struct {
		metric               string
		recorded, known, raw bool
	}{
		{"team:temp:max", true, true, false},
		{"node:dcgm_ecc_dbe_vol_total:rate5m", true, true, false},
		{"DCGM_FI_DEV_GPU_TEMP", false, true, true},
		{"kube_node_info", false, true, true},
		{"vllm:time_to_first_token_seconds_bucket", false, true, true},
		{"team:other:sum", false, false, false},
		{"node_cpu_seconds_total", false, false, true},
	} {
		if got := a.Recorded(c.metric); got != c.recorded {
			t.Errorf("Recorded(%s) = %v", c.metric, got)
		}
		if got := a.Known(c.metric); got != c.known {
			t.Errorf("Known(%s) = %v", c.metric, got)
		}
		if got := a.Raw(c.metric); got != c.raw {
			t.Errorf("Raw(%s) = %v", c.metric, got)
		}
	}
}

// TestKindOf: a metric's kind, declared type and unit come from the catalog's fields, metrics
// and histograms; an unknown metric has none.
func TestKindOf(t *testing.T) {
	p := plantest.Plan(t, "")
	a := analysis.New(p, nil)
	for metric, want := range map[string]analysis.Kind{
		"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION":    {Real: model.KindCounter, Declared: "counter", Unit: "millijoules"},
		"DCGM_FI_DEV_XID_ERRORS":                  {Real: model.KindLastEvent, Declared: "gauge", Unit: "xid"},
		"vllm:generation_tokens_total":            {Real: model.KindCounter, Declared: "counter"},
		"vllm:time_to_first_token_seconds_bucket": {Real: model.KindCounter, Declared: "counter"},
		"team:temp:max":                           {},
	} {
		if got := a.KindOf(metric); got != want {
			t.Errorf("KindOf(%s) = %+v, want %+v", metric, got, want)
		}
	}
}

// TestLayer: a file's layer comes from a directory named global or shard, or from
// GlobalPaths; a metric is recorded globally when every rule recording it runs there,
// the sharded catalog's global records included.
func TestLayer(t *testing.T) {
	p := plantest.Plan(t, filepath.Join("..", "..", "testutil", "plantest", "testdata", "sharded.jsonnet"))
	global := ruleFile("thanos/global/r.yaml", record("fleet:x:sum", "sum(cluster:x:sum)"))
	shard := ruleFile("prometheus/shard/r.yaml", record("cluster:x:sum", "sum by (cluster) (DCGM_FI_DEV_GPU_TEMP)"))
	ruler := ruleFile("ruler/r.yaml", record("fleet:y:sum", "sum(cluster:x:sum)"))
	a := analysis.New(p, []*source.File{global, shard, ruler})
	for f, want := range map[*source.File]plan.Layer{global: plan.Global, shard: plan.Shard, ruler: ""} {
		if got := a.Layer(f); got != want {
			t.Errorf("Layer(%s) = %q, want %q", f.Path, got, want)
		}
	}
	if !a.RecordedGlobally("fleet:x:sum") || a.RecordedGlobally("cluster:x:sum") || a.RecordedGlobally("fleet:y:sum") || a.RecordedGlobally("up") {
		t.Error("RecordedGlobally: want fleet:x:sum only")
	}
	a.GlobalPaths = []string{"./ruler/"}
	if a.Layer(ruler) != plan.Global || !a.RecordedGlobally("fleet:y:sum") {
		t.Error("a file under GlobalPaths is not global")
	}
	var catalogGlobal string
	for metric, layer := range p.Layers {
		if layer == plan.Global && strings.Contains(metric, ":") {
			catalogGlobal = metric
			break
		}
	}
	if catalogGlobal == "" || !a.RecordedGlobally(catalogGlobal) {
		t.Errorf("the sharded catalog's global record %q is not recorded globally", catalogGlobal)
	}
}
