// Package rules renders the plan's rule groups as Prometheus rule files: recording rules and
// alerting rules, each validated with Prometheus' own rule-file loader.
package rules

import (
	"fmt"

	"github.com/gpuobs/gpuobs/internal/conventions"
	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/promql"
)

// Output paths, relative to the output directory.
const (
	Dir           = conventions.RulesDir
	RecordingFile = conventions.RecordingRulesFile
	AlertsFile    = conventions.AlertRulesFile
)

// File is the document of a Prometheus rule file.
type File struct {
	Groups []plan.Group `yaml:"groups"`
}

// Generate renders rules/recording.yaml and rules/alerts.yaml.
func Generate(p *plan.Plan) ([]emit.File, error) {
	files := []emit.File{
		emit.YAML(RecordingFile, emit.MustYAML(File{Groups: p.RecordingGroups})),
		emit.YAML(AlertsFile, emit.MustYAML(File{Groups: p.AlertGroups})),
	}
	for _, f := range files {
		if errs := promql.ValidateRuleFile(f.Content); len(errs) > 0 {
			return nil, fmt.Errorf("%s does not load in Prometheus: %v", f.Path, errs)
		}
	}
	return files, nil
}
