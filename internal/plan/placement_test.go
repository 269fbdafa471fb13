package plan

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/testutil/testcatalog"
)

// sharded is the embedded catalog with a sharded topology.
func sharded(t *testing.T) *model.Model {
	t.Helper()
	return testcatalog.Model(t, filepath.Join("..", "testutil", "plantest", "testdata", "sharded.jsonnet"))
}

// TestShardedPlacement: on the embedded catalog, the fleet records (their retention tiers
// included) and the alert comparing a GPU with its SKU's fleet average run globally; every
// other rule runs in the shard; no global rule reads raw series and no shard rule reads a
// global record.
func TestShardedPlacement(t *testing.T) {
	p, err := Build(sharded(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range p.Recorded {
		want := Shard
		if r.Level == "fleet" || strings.HasPrefix(r.Level, "fleet_") {
			want = Global
		}
		if got := p.Layers[r.Name]; got != want {
			t.Errorf("%s placed in %q, want %q", r.Name, got, want)
		}
		checkReads(t, p, r.Name, r.Expr)
	}
	for name, a := range p.Alerts {
		want := Shard
		if name == "GPUHotterThanFleetPeers" {
			want = Global
		}
		if got := p.Layers[name]; got != want {
			t.Errorf("alert %s placed in %q, want %q", name, got, want)
		}
		checkReads(t, p, name, a.Expr)
	}
	if got := p.GlobalInputs(); !strings.Contains(strings.Join(got, " "), "gpu:dcgm_gpu_temp:top") || strings.Contains(strings.Join(got, " "), "DCGM_") {
		t.Errorf("global inputs %v: want the shard records the global layer reads, no raw series", got)
	}
}

func checkReads(t *testing.T, p *Plan, name, expr string) {
	t.Helper()
	metrics, err := promql.MetricNames(expr)
	if err != nil {
		t.Fatal(err)
	}
	for _, metric := range metrics {
		layer, recorded := p.Layers[metric]
		switch {
		case p.Layers[name] == Global && !recorded:
			t.Errorf("global rule %s reads the raw series %s", name, metric)
		case p.Layers[name] == Shard && layer == Global:
			t.Errorf("shard rule %s reads the global record %s", name, metric)
		}
	}
}

// TestShardedRuleFiles: a sharded plan writes each rule once, in its layer's files; a single
// plan writes the two files it always did.
func TestShardedRuleFiles(t *testing.T) {
	p, err := Build(sharded(t))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]Layer{}
	var paths []string
	for _, f := range p.RuleFiles() {
		paths = append(paths, f.Path)
		for _, g := range f.Groups {
			for _, r := range g.Rules {
				if p.Layers[r.Record+r.Alert] != f.Layer {
					t.Errorf("%s%s (%s) written to %s", r.Record, r.Alert, p.Layers[r.Record+r.Alert], f.Path)
				}
				if r.Alert != "" {
					seen[r.Alert] = f.Layer
				}
			}
		}
	}
	if want := "rules/shard/recording.yaml rules/shard/alerts.yaml rules/global/recording.yaml rules/global/alerts.yaml"; strings.Join(paths, " ") != want {
		t.Errorf("files %v, want %s", paths, want)
	}
	if len(seen) != len(p.Alerts) {
		t.Errorf("%d alerts written, want %d", len(seen), len(p.Alerts))
	}
	single, err := Build(testcatalog.Model(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	if files := single.RuleFiles(); len(files) != 2 || files[0].Path != "rules/recording.yaml" || single.Layers != nil {
		t.Errorf("single topology: files %v, layers %v", files, single.Layers)
	}
}

// TestUnplaceableRulesFail: a fleet sum over raw series cannot run in a shard (it would sum one
// cluster) nor globally (it would read every GPU's series across the network): generation
// fails naming the rule, the series and the fix.
func TestUnplaceableRulesFail(t *testing.T) {
	m := sharded(t)
	m.Records["fleet-power"] = model.Record{Record: "fleet:raw_power:sum", Family: "power", Expr: "sum(DCGM_FI_DEV_POWER_USAGE)"}
	a := m.Alerts["GPUTemperatureHigh"]
	a.Expr = "DCGM_FI_DEV_GPU_TEMP - on (modelName) group_left () fleet_sku_load:dcgm_gpu_temp:avg > 15"
	m.Alerts["GPUTemperatureHigh"] = a
	_, err := Build(m)
	if err == nil {
		t.Fatal("want an error")
	}
	for _, want := range []string{
		"2 rules cannot be placed",
		"recording rule fleet:raw_power:sum: sum drops cluster (it combines shards), so it must run in the global layer, but it reads the raw series DCGM_FI_DEV_POWER_USAGE there",
		"alert GPUTemperatureHigh: reads the global record fleet_sku_load:dcgm_gpu_temp:avg, so it must run in the global layer, but it reads the raw series DCGM_FI_DEV_GPU_TEMP there",
		"record them per shard (a rule that keeps cluster)",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// TestShardLabelOtherThanCluster: several Prometheus per cluster (shard label below the
// cluster) make every cluster and node rule combine shards: the plan refuses them, since they
// read raw series, instead of splitting cluster sums across shards.
func TestShardLabelOtherThanCluster(t *testing.T) {
	m := sharded(t)
	m.Topology.ShardLabel = "prometheus_shard"
	_, err := Build(m)
	if err == nil {
		t.Fatal("want an error")
	}
	for _, want := range []string{
		"rules cannot be placed in a shard or in the global layer (the rules keep cluster, not prometheus_shard",
		"alert GPUDevicePluginDegraded: sum drops prometheus_shard (it combines shards)",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	// Ten listed, the rest counted.
	if lines := strings.Count(err.Error(), "\n  "); lines != maxPlacementProblems+1 || !regexp.MustCompile(`\n  and \d+ more$`).MatchString(err.Error()) {
		t.Errorf("want %d rules listed and the rest counted, got %d lines:\n%v", maxPlacementProblems, lines, err)
	}
}

// TestShardAnnotationsReadTheExternalLabel: Prometheus expands annotations before it adds its
// external labels; where the cluster is one (a shard, or a cluster named only by its external
// labels, on a catalog that renames the label), every alert reads it from the series or the
// external labels.
func TestShardAnnotationsReadTheExternalLabel(t *testing.T) {
	for _, m := range []*model.Model{sharded(t), testcatalog.Model(t, filepath.Join("..", "testutil", "plantest", "testdata", "external-cluster.jsonnet"))} {
		p, err := Build(m)
		if err != nil {
			t.Fatal(err)
		}
		c := m.ExternalLabel()
		if c != m.Labels.Cluster {
			t.Fatalf("external label %q, want the cluster label %q", c, m.Labels.Cluster)
		}
		n := 0
		for name, a := range p.Alerts {
			d := a.Annotations["description"]
			if strings.Contains(d, "$labels."+c+" }}") {
				t.Errorf("%s: description reads $labels.%s alone: %s", name, c, d)
			}
			if strings.Contains(d, "(or $labels."+c+" $externalLabels."+c+")") {
				n++
			}
			if _, err := promql.ExpandAlertTemplate(name, d, map[string]string{c: "b"}, 1); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
		if n == 0 {
			t.Errorf("%s: no description names the cluster", c)
		}
	}
}
