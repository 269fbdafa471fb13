// Package ruleformats renders the generated rule groups in the formats that deploy them
// besides plain Prometheus rule files: a Prometheus Operator PrometheusRule manifest and a
// Mimir/Cortex ruler namespace file.
package ruleformats

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/kept"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/promql"
)

// Formats gpuobs writes rules in; plain is always written.
const (
	Plain    = "plain"
	Operator = output.OperatorFormat
	Mimir    = output.MimirFormat
)

// Names lists the formats.
var Names = []string{Plain, Operator, Mimir}

// Check reports an unknown format name.
func Check(formats []string) error {
	for _, f := range formats {
		if !slices.Contains(Names, f) {
			return fmt.Errorf("unknown rules format %q: use %s", f, strings.Join(Names, ", "))
		}
	}
	return nil
}

// LayerLabel is the label of a sharded topology's PrometheusRule manifests that tells the
// shard's from the global layer's: the shards' Prometheus select one value, the ThanosRuler the
// other.
const LayerLabel = "gpuobs.dev/layer"

// Generate renders the plan's rule groups, recording then alerting, in the requested formats:
// one document per format, or one per layer of a sharded topology (prometheusrule-shard.yaml,
// prometheusrule-global.yaml; gpuobs-shard.yaml, gpuobs-global.yaml). checked remembers the
// groups that loaded in Prometheus (nil: none).
func Generate(p *plan.Plan, formats []string, checked *kept.Memo) ([]emit.File, error) {
	m := p.Model
	byLayer := map[plan.Layer][]plan.Group{}
	var layers []plan.Layer
	for _, f := range p.RuleFiles() {
		if _, seen := byLayer[f.Layer]; !seen {
			layers = append(layers, f.Layer)
		}
		byLayer[f.Layer] = append(byLayer[f.Layer], f.Groups...)
	}
	var files []emit.File
	if slices.Contains(formats, Mimir) && m.Topology.Sharded() && m.Topology.GlobalEngine == model.EngineMimir {
		files = append(files, remoteWrite(p))
	}
	for _, layer := range layers {
		groups := byLayer[layer]
		if slices.Contains(formats, Operator) {
			op := m.Deploy.Operator
			name, labels := op.Name, op.Labels
			if layer != "" {
				name = op.Name + "-" + string(layer)
				labels = maps.Clone(op.Labels)
				if labels == nil {
					labels = map[string]string{}
				}
				labels[LayerLabel] = string(layer)
			}
			manifest := map[string]any{
				"apiVersion": "monitoring.coreos.com/v1",
				"kind":       "PrometheusRule",
				"metadata":   map[string]any{"name": name, "namespace": op.Namespace, "labels": labels},
				"spec":       map[string]any{"groups": groups},
			}
			f, err := render(output.LayerFile(output.OperatorRules, string(layer)), manifest, groups, checked)
			if err != nil {
				return nil, err
			}
			files = append(files, f)
		}
		if slices.Contains(formats, Mimir) {
			namespace := m.Deploy.Mimir.Namespace
			if layer != "" {
				namespace += "-" + string(layer)
			}
			f, err := render(output.LayerFile(output.MimirRules, string(layer)), map[string]any{"namespace": namespace, "groups": groups}, groups, checked)
			if err != nil {
				return nil, err
			}
			files = append(files, f)
		}
	}
	return files, nil
}

// remoteWrite renders the write_relabel_configs of a shard's remote_write to Mimir: keep the
// records the global layer reads and the retention tiers, nothing else (the raw series and
// the other records stay in the shard).
func remoteWrite(p *plan.Plan) emit.File {
	var names []string
	for _, n := range p.GlobalInputs() {
		names = append(names, regexp.QuoteMeta(n))
	}
	keep := strings.Join(append(names, plan.RetentionKeepRegex(p.Model)), "|")
	doc := map[string]any{"write_relabel_configs": []any{map[string]any{
		"source_labels": []string{"__name__"}, "regex": keep, "action": "keep",
	}}}
	body := "# The write_relabel_configs of each shard's remote_write to Mimir: the records the global\n" +
		"# layer (rules/mimir/gpuobs-global.yaml) reads, and the retention tiers.\n" + string(emit.MustYAML(doc))
	return emit.YAML(output.MimirRemoteWrite, []byte(body))
}

// render writes doc, each rule's comments above it, and checks that its groups load in
// Prometheus (checked remembers those that did).
func render(path string, doc any, groups []plan.Group, checked *kept.Memo) (emit.File, error) {
	body, err := emit.CommentRules(emit.MustYAML(doc), plan.RuleComments(groups))
	if err != nil {
		return emit.File{}, fmt.Errorf("%s: %w", path, err)
	}
	plain := emit.MustYAML(map[string]any{"groups": groups})
	if err := checked.Run(promql.RuleFileCheck, plain, promql.CheckRuleFile); err != nil {
		return emit.File{}, fmt.Errorf("%s: its groups do not load in Prometheus: %w", path, err)
	}
	return emit.YAML(path, body), nil
}
