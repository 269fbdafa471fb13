package promtooltests

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/internal/model"
)

// TestScenariosTakeConsecutiveFreeBlocks: a case of more GPUs than a block of sequence numbers
// holds takes as many consecutive blocks, and a case whose hash falls on one of them moves past
// them all; a case of more GPUs than a scenario holds is refused.
func TestScenariosTakeConsecutiveFreeBlocks(t *testing.T) {
	start := int(hash(scenarioName("AlertA", "large")) % scenarioBlocks)
	var next string
	for i := 0; next == ""; i++ {
		name := fmt.Sprintf("case %d", i)
		if int(hash(scenarioName("AlertB", name))%scenarioBlocks) == start+1 {
			next = name
		}
	}
	alerts := func(gpus int) *model.Model {
		return &model.Model{Alerts: map[string]model.Alert{
			"AlertA": {Tests: []model.AlertCase{{Name: "large", GPUs: gpus}}},
			"AlertB": {Tests: []model.AlertCase{{Name: next, GPUs: 1}}},
		}}
	}
	got, err := scenarios(alerts(2*gpusPerScenario + 1))
	if err != nil {
		t.Fatal(err)
	}
	large, moved := got["AlertA"][0].seq, got["AlertB"][0].seq
	if want := firstScenarioSeq + start*gpusPerScenario; large != want {
		t.Fatalf("the large case starts at %d, want %d (its hash's block)", large, want)
	}
	if want := large + 3*gpusPerScenario; moved != want {
		t.Errorf("the case hashed into the large case's second block starts at %d, want %d (past its three blocks)", moved, want)
	}
	if _, err := scenarios(alerts(maxScenarioGPUs + 1)); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("a scenario has at most %d", maxScenarioGPUs)) {
		t.Errorf("a case of %d GPUs: want it refused, got %v", maxScenarioGPUs+1, err)
	}
}
