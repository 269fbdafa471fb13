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

// Generate renders rules/recording.yaml and rules/alerts.yaml, each rule's comments above it.
func Generate(p *plan.Plan) ([]emit.File, error) {
	var files []emit.File
	for _, f := range []struct {
		path   string
		groups []plan.Group
	}{{RecordingFile, p.RecordingGroups}, {AlertsFile, p.AlertGroups}} {
		body, err := emit.CommentRules(emit.MustYAML(File{Groups: f.groups}), plan.RuleComments(f.groups))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.path, err)
		}
		files = append(files, emit.YAML(f.path, body))
	}
	for _, f := range files {
		if errs := promql.ValidateRuleFile(f.Content); len(errs) > 0 {
			return nil, fmt.Errorf("%s does not load in Prometheus: %v", f.Path, errs)
		}
	}
	return files, nil
}
