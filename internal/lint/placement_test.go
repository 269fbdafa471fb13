package lint

import (
	"path/filepath"
	"testing"

	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/source"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

// TestShardedOutputIsPlacedCleanly: gpuobs' own sharded output, every layer's file read by its
// path, raises no placement problem; moving its global alert into the shard's file does.
func TestShardedOutputIsPlacedCleanly(t *testing.T) {
	p := plantest.Plan(t, filepath.Join("..", "testutil", "plantest", "testdata", "sharded.jsonnet"))
	files := map[string]string{}
	for _, f := range p.RuleFiles() {
		files[f.Path] = string(emit.MustYAML(map[string]any{"groups": f.Groups}))
	}
	checks := []Check{placementGlobalRaw{}, placementShardReadsGlobal{}}
	for _, c := range checks {
		if got := runCheck(t, p, c, files); len(got) > 0 {
			t.Errorf("%s on gpuobs' sharded output: %+v", c.Name(), got)
		}
	}
	// The global alert, alone in a shard file: the catalog's placement says its record is global.
	moved := map[string]string{"rules/shard/mine.yaml": rules("      - alert: GPUHotterThanFleetPeers\n        expr: gpu:dcgm_gpu_temp:max - on (modelName) group_left () fleet_sku_load:dcgm_gpu_temp:avg > 15\n")}
	if got := runCheck(t, p, placementShardReadsGlobal{}, moved); len(got) != 1 || got[0].Pos.Col < 1 {
		t.Errorf("want one problem on the global record read in a shard, got %+v", got)
	}
}

// TestGlobalPathsFlag: files named with --global are the global layer's wherever they lie.
func TestGlobalPathsFlag(t *testing.T) {
	p := loadPlan(t)
	f := source.ReadFile("thanos-ruler/fleet.yaml", []byte(rules("      - record: fleet:power:sum\n        expr: sum(DCGM_FI_DEV_POWER_USAGE)\n")))
	in := NewInputs(p, []*source.File{f})
	if got := Run(in, []Check{placementGlobalRaw{}}); len(got) != 0 {
		t.Fatalf("unplaced file reported: %+v", got)
	}
	in.Analysis.GlobalPaths = []string{"./thanos-ruler/"}
	if got := Run(in, []Check{placementGlobalRaw{}}); len(got) != 1 {
		t.Fatalf("want one problem with --global thanos-ruler/, got %+v", got)
	}
}
