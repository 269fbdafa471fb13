package ruleformats

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

// group is a rule group as the formats hold it: its rules kept as YAML.
type group struct {
	Name  string      `yaml:"name"`
	Rules []yaml.Node `yaml:"rules"`
}

// TestFormatsHoldEveryRule: the PrometheusRule manifest and the Mimir namespace file hold the
// plain files' rules, as the Operator and mimirtool read them, and their groups load in
// Prometheus.
func TestFormatsHoldEveryRule(t *testing.T) {
	p := plantest.Plan(t, "")
	m := p.Model
	want := len(p.Recorded) + len(p.Alerts)
	files, err := Generate(p, []string{Plain, Operator, Mimir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		t.Fatalf("%d files, want the manifest and the namespace file", len(files))
	}
	for _, f := range files {
		if !output.HasHeader(f.Path, f.Content) {
			t.Errorf("%s lacks the header", f.Path)
		}
		var doc struct {
			APIVersion string         `yaml:"apiVersion"`
			Kind       string         `yaml:"kind"`
			Metadata   map[string]any `yaml:"metadata"`
			Namespace  string         `yaml:"namespace"`
			Spec       struct {
				Groups []group `yaml:"groups"`
			} `yaml:"spec"`
			Groups []group `yaml:"groups"`
		}
		if err := yaml.Unmarshal(f.Content, &doc); err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		groups := doc.Groups
		switch f.Path {
		case output.OperatorRules:
			if doc.APIVersion != "monitoring.coreos.com/v1" || doc.Kind != "PrometheusRule" || doc.Metadata["name"] != m.Deploy.Operator.Name {
				t.Errorf("manifest header: %s %s %v", doc.APIVersion, doc.Kind, doc.Metadata)
			}
			groups = doc.Spec.Groups
		case output.MimirRules:
			if doc.Namespace != m.Deploy.Mimir.Namespace {
				t.Errorf("mimir namespace %q, want %q", doc.Namespace, m.Deploy.Mimir.Namespace)
			}
		}
		rules := 0
		for _, g := range groups {
			rules += len(g.Rules)
		}
		if rules != want {
			t.Errorf("%s holds %d rules, want %d", f.Path, rules, want)
		}
		plainDoc := emit.MustYAML(map[string]any{"groups": groups})
		if errs := promql.ValidateRuleFile(plainDoc); len(errs) > 0 || len(groups) == 0 {
			t.Errorf("%s: %d groups, errors %v", f.Path, len(groups), errs)
		}
	}
	if none, _ := Generate(p, []string{Plain}, nil); len(none) != 0 {
		t.Errorf("plain only: %d extra files", len(none))
	}
}

// TestSmallCatalog shows both formats on the small fixture catalog (go test -update rewrites
// them).
func TestSmallCatalog(t *testing.T) {
	files, err := Generate(plantest.Small(t), []string{Operator, Mimir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	plantest.GoldenFiles(t, "testdata/small", files)
}

// TestShardedFormats: a sharded catalog gets one manifest and one namespace file per layer,
// each holding that layer's rules (the manifests told apart by their layer label for the
// ruleSelectors), and, with Mimir as the global engine, the shards' remote-write relabeling
// that keeps exactly the records the global layer reads and the retention tiers.
func TestShardedFormats(t *testing.T) {
	p := plantest.Plan(t, filepath.Join("..", "..", "internal", "testutil", "plantest", "testdata", "sharded.jsonnet"))
	p.Model.Topology.GlobalEngine = model.EngineMimir
	files, err := Generate(p, []string{Plain, Operator, Mimir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string][]byte{}
	for _, f := range files {
		byPath[f.Path] = f.Content
	}
	for _, layer := range []plan.Layer{plan.Shard, plan.Global} {
		want := 0
		for name, l := range p.Layers {
			if l == layer && !strings.Contains(name, ":") {
				want++
			}
		}
		for _, r := range p.Recorded {
			if p.Layers[r.Name] == layer {
				want++
			}
		}
		var manifest struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Spec struct {
				Groups []group `yaml:"groups"`
			} `yaml:"spec"`
		}
		if err := yaml.Unmarshal(byPath["rules/operator/prometheusrule-"+string(layer)+".yaml"], &manifest); err != nil {
			t.Fatal(err)
		}
		if manifest.Metadata.Labels[LayerLabel] != string(layer) {
			t.Errorf("%s manifest labels %v", layer, manifest.Metadata.Labels)
		}
		got := 0
		for _, g := range manifest.Spec.Groups {
			got += len(g.Rules)
		}
		if got != want {
			t.Errorf("%s manifest holds %d rules, want %d", layer, got, want)
		}
		if _, ok := byPath["rules/mimir/gpuobs-"+string(layer)+".yaml"]; !ok {
			t.Errorf("no Mimir namespace file for the %s layer", layer)
		}
	}
	var rw struct {
		Relabel []struct {
			Regex string `yaml:"regex"`
		} `yaml:"write_relabel_configs"`
	}
	if err := yaml.Unmarshal(byPath[output.MimirRemoteWrite], &rw); err != nil || len(rw.Relabel) != 1 {
		t.Fatalf("%s: %v %+v", output.MimirRemoteWrite, err, rw)
	}
	keep := regexp.MustCompile("^(?:" + rw.Relabel[0].Regex + ")$")
	for _, name := range p.GlobalInputs() {
		if !keep.MatchString(name) {
			t.Errorf("the global layer reads %s; remote write drops it", name)
		}
	}
	for _, name := range []string{p.Model.Exporter.HealthFields[0], "node:dcgm_power_usage:sum", "cluster:dcgm_power_usage:sum_avg5m"} {
		if keep.MatchString(name) != strings.HasSuffix(name, "_avg5m") {
			t.Errorf("remote write keeps %s: %v", name, keep.MatchString(name))
		}
	}
}
