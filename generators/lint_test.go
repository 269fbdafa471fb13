package generators

import (
	"github.com/gpuobs/gpuobs/internal/testutil"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/internal/lint"
	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/source"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

// TestEveryProfileLintsClean: the rules and dashboards generated from each fixture catalog pass
// gpuobs lint with that catalog, info included, as make test proves for the embedded one: a
// team's labels, teams and sections, each exporter profile, virtual GPUs, native histograms,
// five serving engines side by side and three without vLLM, InfiniBand ports (training and
// the team's Grace Blackwell catalog),
// the sharded layers, every output format and both dashboard schemas.
func TestEveryProfileLintsClean(t *testing.T) {
	testutil.Long(t)
	t.Parallel()
	for _, config := range []string{
		adopter,
		"../internal/testutil/plantest/testdata/training.jsonnet",
		"../internal/testutil/plantest/testdata/small.jsonnet",
		"../internal/testutil/plantest/testdata/sharded.jsonnet",
		"../internal/catalog/testdata/override.jsonnet",
		"promtooltests/testdata/exporter-4.8.3.jsonnet",
		"promtooltests/testdata/exporter-4.9.jsonnet",
		"promtooltests/testdata/exporter-renamed.jsonnet",
		"promtooltests/testdata/virtual-gpus.jsonnet",
		"promtooltests/testdata/native-histograms.jsonnet",
		"promtooltests/testdata/engines.jsonnet",
		"promtooltests/testdata/engines-without-vllm.jsonnet",
		"promtooltests/testdata/dra.jsonnet",
		"../internal/testutil/plantest/testdata/mixed.jsonnet",
		"promtooltests/testdata/gb200.jsonnet",
		"../internal/testutil/plantest/testdata/adopter-gb200.jsonnet",
	} {
		p := plantest.Plan(t, config)
		p.Model.Deploy.Grafana.Schemas = []string{"classic", "v2"}
		files, _, err := Run(p, Options{RulesFormats: []string{output.OperatorFormat, output.MimirFormat}})
		if err != nil {
			t.Fatalf("%s: %v", config, err)
		}
		dir := t.TempDir()
		var paths []string
		for _, f := range files {
			if !strings.HasPrefix(f.Path, output.RulesDir+"/") && !strings.HasPrefix(f.Path, output.DashboardsDir+"/") {
				continue
			}
			path := filepath.Join(dir, filepath.FromSlash(f.Path))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, f.Content, 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, path)
		}
		read := source.ReadPaths(paths)
		dashboards := 0
		for _, f := range read {
			if f.Dashboard != nil {
				dashboards++
			}
		}
		if len(read) < 2 || dashboards != 2*len(p.Model.Dashboards) {
			t.Fatalf("%s: read %d files, %d dashboards of %d levels in two schemas", config, len(read), dashboards, len(p.Model.Dashboards))
		}
		for _, pr := range lint.Run(lint.NewInputs(p, read), lint.Checks()) {
			rel, _ := filepath.Rel(dir, pr.Path)
			t.Errorf("%s: %s:%d: %s: %s [%s]", filepath.Base(config), rel, pr.Pos.Line, pr.Severity, pr.Message, pr.Check)
		}
	}
}
