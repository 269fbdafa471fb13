// Package ruleformats renders the generated rule groups in the formats that deploy them
// besides plain Prometheus rule files: a Prometheus Operator PrometheusRule manifest and a
// Mimir/Cortex ruler namespace file.
package ruleformats

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuobs/gpuobs/internal/conventions"
	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/promql"
)

// Formats gpuobs writes rules in; plain is always written.
const (
	Plain    = "plain"
	Operator = "operator"
	Mimir    = "mimir"
)

// Names lists the formats.
var Names = []string{Plain, Operator, Mimir}

// Output paths, relative to the output directory.
const (
	OperatorFile = conventions.RulesDir + "/operator/prometheusrule.yaml"
	MimirFile    = conventions.RulesDir + "/mimir/gpuobs.yaml"
)

// Check reports an unknown format name.
func Check(formats []string) error {
	for _, f := range formats {
		if !slices.Contains(Names, f) {
			return fmt.Errorf("unknown rules format %q: use %s", f, strings.Join(Names, ", "))
		}
	}
	return nil
}

// Generate renders the plan's rule groups, recording then alerting, in the requested formats.
func Generate(p *plan.Plan, formats []string) ([]emit.File, error) {
	m := p.Model
	groups := append(slices.Clone(p.RecordingGroups), p.AlertGroups...)
	var files []emit.File
	if slices.Contains(formats, Operator) {
		op := m.Deploy.Operator
		manifest := map[string]any{
			"apiVersion": "monitoring.coreos.com/v1",
			"kind":       "PrometheusRule",
			"metadata":   map[string]any{"name": op.Name, "namespace": op.Namespace, "labels": op.Labels},
			"spec":       map[string]any{"groups": groups},
		}
		f, err := render(OperatorFile, manifest, groups)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	if slices.Contains(formats, Mimir) {
		doc := map[string]any{"namespace": m.Deploy.Mimir.Namespace, "groups": groups}
		f, err := render(MimirFile, doc, groups)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// render writes doc, each rule's comments above it, and checks that its groups load in
// Prometheus.
func render(path string, doc any, groups []plan.Group) (emit.File, error) {
	body, err := emit.CommentRules(emit.MustYAML(doc), plan.RuleComments(groups))
	if err != nil {
		return emit.File{}, fmt.Errorf("%s: %w", path, err)
	}
	plain := emit.MustYAML(map[string]any{"groups": groups})
	if errs := promql.ValidateRuleFile(plain); len(errs) > 0 {
		return emit.File{}, fmt.Errorf("%s: its groups do not load in Prometheus: %v", path, errs)
	}
	return emit.YAML(path, body), nil
}
