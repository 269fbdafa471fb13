// Package rules renders the plan's rule groups as Prometheus rule files: recording rules and
// alerting rules, each validated with Prometheus' own rule-file loader (unless the same bytes
// passed it before: kept.Memo).
package rules

import (
	"fmt"

	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/kept"
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/promql"
)

// File is the document of a Prometheus rule file.
type File struct {
	Groups []plan.Group `yaml:"groups"`
}

// Generate renders the plan's rule files (rules/recording.yaml and rules/alerts.yaml, or those
// of rules/shard/ and rules/global/ in a sharded topology), each rule's comments above it; a
// file that does not load in Prometheus is an error. checked remembers the files that loaded
// (nil: none).
func Generate(p *plan.Plan, checked *kept.Memo) ([]emit.File, error) {
	var files []emit.File
	for _, f := range p.RuleFiles() {
		body, err := emit.CommentRules(emit.MustYAML(File{Groups: f.Groups}), plan.RuleComments(f.Groups))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Path, err)
		}
		files = append(files, emit.YAML(f.Path, body))
	}
	for _, f := range files {
		if err := checked.Run(promql.RuleFileCheck, f.Content, promql.CheckRuleFile); err != nil {
			return nil, fmt.Errorf("%s does not load in Prometheus: %w", f.Path, err)
		}
	}
	return files, nil
}
