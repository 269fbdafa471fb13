// Package generators lists every output gpuobs renders from a plan.
package generators

import (
	"fmt"
	"slices"
	"sync"

	"github.com/gpuobs/gpuobs/generators/alertmanager"
	"github.com/gpuobs/gpuobs/generators/catalogdoc"
	"github.com/gpuobs/gpuobs/generators/dashboards"
	"github.com/gpuobs/gpuobs/generators/exporter"
	"github.com/gpuobs/gpuobs/generators/promtooltests"
	"github.com/gpuobs/gpuobs/generators/ruleformats"
	"github.com/gpuobs/gpuobs/generators/rules"
	"github.com/gpuobs/gpuobs/generators/runbooks"
	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/kept"
	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/plan"
)

// Generator renders one kind of output into the directory it owns.
type Generator struct {
	Name     string
	Dir      string
	Generate func(*plan.Plan) ([]emit.File, error)
}

// Options choose optional outputs, and where checks of the output are remembered.
type Options struct {
	// RulesFormats are the rule file formats written besides plain files (operator, mimir).
	RulesFormats []string
	// Checked remembers the rule files and Alertmanager configurations that loaded in
	// Prometheus' and Alertmanager's own loaders: the same bytes are not loaded again. Nil
	// loads every one. It is read and saved by the caller: generators do not touch the disk.
	Checked *kept.Memo
}

// All is every generator, in output order.
func All(opts Options) []Generator {
	return []Generator{
		{Name: "rules", Dir: output.RulesDir, Generate: func(p *plan.Plan) ([]emit.File, error) { return rules.Generate(p, opts.Checked) }},
		{Name: "promtool tests", Dir: output.TestsDir, Generate: promtooltests.Generate},
		{Name: "runbooks", Dir: output.RunbooksDir, Generate: runbooks.Generate},
		{Name: "alertmanager", Dir: output.AlertmanagerDir, Generate: func(p *plan.Plan) ([]emit.File, error) { return alertmanager.Generate(p, opts.Checked) }},
		{Name: "dashboards", Dir: output.DashboardsDir, Generate: dashboards.Generate},
		{Name: "dashboard ConfigMaps", Dir: output.SidecarDir, Generate: dashboards.Sidecar},
		{Name: "v2 dashboards", Dir: output.DashboardsV2Dir, Generate: dashboards.GenerateV2},
		{Name: "catalog reference", Dir: output.DocsDir, Generate: catalogdoc.Generate},
		{Name: "exporter configuration", Dir: output.ExporterDir, Generate: exporter.Generate},
		{Name: "rule formats", Dir: output.RulesDir, Generate: func(p *plan.Plan) ([]emit.File, error) {
			return ruleformats.Generate(p, opts.RulesFormats, opts.Checked)
		}},
		// Prometheus Operator users get the Alertmanager side as a resource too.
		{Name: "AlertmanagerConfig", Dir: output.AlertmanagerDir, Generate: func(p *plan.Plan) ([]emit.File, error) {
			if !slices.Contains(opts.RulesFormats, output.OperatorFormat) {
				return nil, nil
			}
			return alertmanager.Operator(p)
		}},
	}
}

// Run renders every output of the plan, concurrently (each generator is pure), and returns the
// files, in generator order, and the directories they own.
func Run(p *plan.Plan, opts Options) (files []emit.File, managed []string, err error) {
	all := All(opts)
	outs := make([][]emit.File, len(all))
	errs := make([]error, len(all))
	var wg sync.WaitGroup
	for i, g := range all {
		wg.Go(func() { outs[i], errs[i] = g.Generate(p) })
	}
	wg.Wait()
	for i, g := range all {
		if errs[i] != nil {
			return nil, nil, fmt.Errorf("%s: %w", g.Name, errs[i])
		}
		files = append(files, outs[i]...)
		if !slices.Contains(managed, g.Dir) {
			managed = append(managed, g.Dir)
		}
	}
	return files, managed, nil
}
