package cli

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/source"
)

// renamedRecords says which recording rules of the output gpuobs generated in dir before the
// generated files now write under the name the catalog's lint.renamed gives them: what reads
// the former name outside this output (a dashboard or rule of the team's own, a rollout's
// analysis template) reads nothing from now on. Only the plain rule files on disk that change
// (stale, by their paths) are read.
func renamedRecords(dir string, m *model.Model, files []emit.File, stale []string) []string {
	if len(m.Lint.Renamed) == 0 {
		return nil
	}
	onDisk, err := source.RuleFiles(dir)
	if err != nil {
		return nil
	}
	before, after := map[string]bool{}, map[string]bool{}
	for _, f := range files {
		if !slices.Contains(stale, f.Path) || !slices.Contains(onDisk, f.Path) {
			continue
		}
		for _, name := range promql.RecordNames(f.Content) {
			after[name] = true
		}
		if old, err := source.ReadInTree(dir, filepath.Join(dir, filepath.FromSlash(f.Path))); err == nil {
			for _, name := range promql.RecordNames(old) {
				before[name] = true
			}
		}
	}
	var out []string
	for _, former := range model.SortedKeys(m.Lint.Renamed) {
		now := m.Lint.Renamed[former]
		if before[former] && !after[former] && after[now] {
			out = append(out, fmt.Sprintf("  %s → %s", former, now))
		}
	}
	if len(out) == 0 {
		return nil
	}
	header := "recording rules renamed (lint.renamed), former → now: move what reads a former name outside this output (dashboards and rules of your own, a rollout's analysis template); gpuobs lint reports them in the files it checks"
	return append([]string{header}, out...)
}
