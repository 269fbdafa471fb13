package exporter

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/source"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

func TestCounterFileCollectsWhatTheRulesRead(t *testing.T) {
	p := plantest.Plan(t, "")
	m := p.Model
	files, err := Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	counters, err := source.ReadCounters(files[0].Path, files[0].Content)
	if err != nil {
		t.Fatal(err)
	}
	collected := source.Collected(counters)
	for _, name := range model.SortedKeys(p.Alerts) {
		for _, n := range p.Alerts[name].Fields {
			if !collected[n] {
				t.Errorf("alert %s reads %s, which the counter file leaves out", name, n)
			}
		}
	}
	for name, f := range m.Fields {
		if f.Default && !collected[name] {
			t.Errorf("default field %s missing", name)
		}
	}
	if collected["DCGM_FI_DEV_ECC_DBE_AGG_TOTAL"] {
		t.Error("a field nothing reads and the default set leaves out is in the counter file")
	}
	var cm struct {
		Kind string            `yaml:"kind"`
		Data map[string]string `yaml:"data"`
	}
	if err := yaml.Unmarshal(files[1].Content, &cm); err != nil || cm.Kind != "ConfigMap" {
		t.Fatalf("configmap: %v %q", err, cm.Kind)
	}
	if body := string(files[0].Content); !strings.HasSuffix(body, cm.Data[CSVKey]) {
		t.Error("the ConfigMap does not hold the counter file")
	}
	m.Exporter.Deployed = collected
	for alert, fields := range p.Missing() {
		if len(fields) > 0 {
			t.Errorf("with the generated counter file, %s still misses %v", alert, fields)
		}
	}
}

// TestSmallCatalog shows the output on the small fixture catalog (go test -update rewrites it).
func TestSmallCatalog(t *testing.T) {
	files, err := Generate(plantest.Small(t))
	if err != nil {
		t.Fatal(err)
	}
	plantest.GoldenFiles(t, "testdata/small", files)
}

// TestCounterFileKeepsTheLabelRowsRulesRead: the driver-version skew alert reads the driver
// label, which dcgm-exporter adds only for a counter-file row typed label; each exporter
// profile names it its own way, and a catalog that reads no such label has no row. The row names
// the DCGM field, not the label as relabeling renames it (the adopter's driver_version): the
// exporter refuses a row that is not a DCGM field.
func TestCounterFileKeepsTheLabelRowsRulesRead(t *testing.T) {
	for config, want := range map[string]string{
		"": "DCGM_FI_DRIVER_VERSION, label,",
		"../../internal/testutil/plantest/testdata/adopter.jsonnet": "DCGM_FI_DRIVER_VERSION, label,",
		"../promtooltests/testdata/exporter-4.9.jsonnet":            "DCGM_FI_SYSTEM_DRIVER_VERSION, label,",
	} {
		files, err := Generate(plantest.Plan(t, config))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(files[0].Content), "\n"+want) {
			t.Errorf("%q: the counter file lacks %q", config, want)
		}
	}
	files, err := Generate(plantest.Small(t))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(files[0].Content), ", label,") {
		t.Error("a catalog that reads no exporter label has a label row")
	}
}
