package analysis

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/source"
)

// Layer is the layer a file's rules run in on a sharded fleet: global under a directory named
// global or a path of GlobalPaths, shard under a directory named shard, "" otherwise (a single
// Prometheus, or not said).
func (a *Analysis) Layer(f *source.File) plan.Layer {
	clean := filepath.ToSlash(filepath.Clean(f.Path))
	for _, g := range a.GlobalPaths {
		g = filepath.ToSlash(filepath.Clean(g))
		if g == "." || clean == g || strings.HasPrefix(clean, strings.TrimSuffix(g, "/")+"/") {
			return plan.Global
		}
	}
	dirs := strings.Split(filepath.ToSlash(filepath.Dir(f.Path)), "/")
	switch {
	case slices.Contains(dirs, string(plan.Global)):
		return plan.Global
	case slices.Contains(dirs, string(plan.Shard)):
		return plan.Shard
	}
	return ""
}

// RecordedGlobally reports whether every rule recording a metric runs in the global layer:
// rules of global files, and the catalog's global records when it is sharded.
func (a *Analysis) RecordedGlobally(metric string) bool {
	rules := a.recorded[metric]
	for _, r := range rules {
		global := a.layers[metric] == plan.Global
		if r.File != nil {
			global = a.Layer(r.File) == plan.Global
		}
		if !global {
			return false
		}
	}
	return len(rules) > 0
}
