// Package generators lists every output gpuobs generates from a catalog.
package generators

import (
	"fmt"
	"sync"

	"github.com/gpuobs/gpuobs/generators/alertmanager"
	"github.com/gpuobs/gpuobs/generators/dashboards"
	"github.com/gpuobs/gpuobs/generators/promtooltests"
	"github.com/gpuobs/gpuobs/generators/rules"
	"github.com/gpuobs/gpuobs/generators/runbooks"
	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/model"
)

// Generator produces one kind of output into the directory it owns.
type Generator struct {
	Name     string
	Dir      string
	Generate func(*model.Model) ([]emit.File, error)
}

// All is every generator, in output order.
func All() []Generator {
	return []Generator{
		{Name: "rules", Dir: rules.Dir, Generate: rules.Generate},
		{Name: "promtool tests", Dir: promtooltests.Dir, Generate: promtooltests.Generate},
		{Name: "runbooks", Dir: runbooks.Dir, Generate: runbooks.Generate},
		{Name: "alertmanager", Dir: alertmanager.Dir, Generate: alertmanager.Generate},
		{Name: "dashboards", Dir: dashboards.Dir, Generate: dashboards.Generate},
	}
}

// Run runs every generator, concurrently (each is pure), and returns their files, in
// generator order, and the directories they own.
func Run(m *model.Model) (files []emit.File, managed []string, err error) {
	all := All()
	outs := make([][]emit.File, len(all))
	errs := make([]error, len(all))
	var wg sync.WaitGroup
	for i, g := range all {
		wg.Go(func() { outs[i], errs[i] = g.Generate(m) })
	}
	wg.Wait()
	for i, g := range all {
		if errs[i] != nil {
			return nil, nil, fmt.Errorf("%s: %w", g.Name, errs[i])
		}
		files = append(files, outs[i]...)
		managed = append(managed, g.Dir)
	}
	return files, managed, nil
}
