package exporter

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

func TestCounterFileCollectsWhatTheRulesRead(t *testing.T) {
	p := plantest.Plan(t, "")
	m := p.Model
	files, err := Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	collected, err := ReadCounters(files[0].Path, files[0].Content)
	if err != nil {
		t.Fatal(err)
	}
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

func TestReadCountersSkipsComments(t *testing.T) {
	got, err := ReadCounters("c.csv", []byte("# DCGM FIELD, Prometheus metric type, help message\n\n# DCGM_FI_DEV_ECC_DBE_VOL_TOTAL, counter, off\nDCGM_FI_DEV_GPU_TEMP, gauge, GPU temperature (in C).\n  DCGM_FI_DEV_POWER_USAGE,gauge,Power draw (in W).\n"))
	if err != nil || len(got) != 2 || !got["DCGM_FI_DEV_GPU_TEMP"] || !got["DCGM_FI_DEV_POWER_USAGE"] {
		t.Errorf("ReadCounters = %v, %v", got, err)
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
// profile names it its own way, and a catalog that reads no such label has no row.
func TestCounterFileKeepsTheLabelRowsRulesRead(t *testing.T) {
	for config, want := range map[string]string{
		"": "DCGM_FI_DRIVER_VERSION, label,",
		"../promtooltests/testdata/exporter-4.9.jsonnet": "DCGM_FI_SYSTEM_DRIVER_VERSION, label,",
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

// TestReadCountersRefusesWhatIsNotACounterFile: lines that are not "field, type, help" are
// errors by line, and a file without a counter line is refused, not read as collecting nothing.
func TestReadCountersRefusesWhatIsNotACounterFile(t *testing.T) {
	for _, c := range []struct{ name, data, want string }{
		{"an environment file", "HOME=/root\nTOKEN=abc\n", "c.csv:1: not a counter line (DCGM field, Prometheus type, help)\nc.csv:2: not a counter line"},
		{"an unknown type", "DCGM_FI_DEV_GPU_TEMP, gaug, GPU temperature.\n", "c.csv:1: not a counter line"},
		{"only comments", "# DCGM FIELD, Prometheus metric type, help message\n\n", "c.csv: holds no counter lines"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadCounters("c.csv", []byte(c.data))
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "abc") {
				t.Errorf("ReadCounters = %v, want %q", err, c.want)
			}
		})
	}
}
