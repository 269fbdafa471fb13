// Package generators lists every output gpuobs generates from a catalog.
package generators

import (
	"fmt"

	"github.com/gpuobs/gpuobs/generators/promtooltests"
	"github.com/gpuobs/gpuobs/generators/rules"
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
	}
}

// Run runs every generator and returns their files and the directories they own.
func Run(m *model.Model) (files []emit.File, managed []string, err error) {
	for _, g := range All() {
		out, err := g.Generate(m)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", g.Name, err)
		}
		files = append(files, out...)
		managed = append(managed, g.Dir)
	}
	return files, managed, nil
}
