package cli

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/source"
)

// renamedRecords says which recording rules of the output gpuobs generated in dir before the
// plan now records under the name the catalog's lint.renamed gives them: what reads the former
// name outside this output (a dashboard or rule of the team's own, a rollout's analysis
// template) reads nothing from now on. Only the plain rule files on disk that change (stale,
// by their paths) are read.
func renamedRecords(dir string, p *plan.Plan, stale []string) []string {
	renamed := p.Model.Lint.Renamed
	if len(renamed) == 0 {
		return nil
	}
	onDisk, err := source.RuleFiles(dir)
	if err != nil {
		return nil
	}
	before := map[string]bool{}
	for _, path := range stale {
		if !slices.Contains(onDisk, path) {
			continue
		}
		if old, err := source.ReadInTree(dir, filepath.Join(dir, filepath.FromSlash(path))); err == nil {
			for _, name := range promql.RecordNames(old) {
				before[name] = true
			}
		}
	}
	now := map[string]bool{}
	for _, r := range p.Recorded {
		now[r.Name] = true
	}
	var out []string
	for _, former := range model.SortedKeys(renamed) {
		if before[former] && !now[former] && now[renamed[former]] {
			out = append(out, fmt.Sprintf("  %s → %s", former, renamed[former]))
		}
	}
	if len(out) == 0 {
		return nil
	}
	header := "recording rules renamed (lint.renamed), former → now: move what reads a former name outside this output (dashboards and rules of your own, a rollout's analysis template); gpuobs lint reports them in the files it checks"
	return append([]string{header}, out...)
}
