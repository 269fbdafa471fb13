// Package exporter generates dcgm-exporter's configuration from the catalog: the counter file
// holding the exporter's default fields and every field the generated rules and dashboards
// read, as a CSV, a Kubernetes ConfigMap and a Helm values snippet.
package exporter

import (
	"fmt"
	"strings"

	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/plan"
)

// The generated ConfigMap (output.ExporterConfigMap, for the GPU Operator's
// dcgmExporter.config.name).
const (
	// ConfigMapName is the name of the generated ConfigMap, and CSVKey its key.
	ConfigMapName = "gpuobs-dcgm-counters"
	CSVKey        = "dcgm-metrics.csv"
)

// counterFile renders fields, then label rows, in dcgm-exporter's counter-file format.
func counterFile(m *model.Model, fields, labelRows []string) string {
	var b strings.Builder
	b.WriteString("# Format: DCGM field, Prometheus metric type, help message.\n")
	b.WriteString("# The exporter's default fields and every field gpuobs' rules and dashboards read;\n")
	b.WriteString("# label rows for the labels they read (the exporter adds a label only for such a row).\n")
	for _, name := range fields {
		f := m.Fields[name]
		fmt.Fprintf(&b, "%s, %s, %s\n", name, f.Type, strings.ReplaceAll(f.Help, ",", ";"))
	}
	for _, name := range labelRows {
		fmt.Fprintf(&b, "%s, label, %s\n", name, "Driver Version")
	}
	return b.String()
}

// Generate renders the counter file, the ConfigMap and the Helm values snippet.
func Generate(p *plan.Plan) ([]emit.File, error) {
	csv := counterFile(p.Model, p.Usage.Counters, p.Usage.LabelRows)
	configMap := map[string]any{
		"apiVersion": "v1",
		"kind":       "ConfigMap",
		"metadata": map[string]any{
			"name":   ConfigMapName,
			"labels": map[string]string{"app.kubernetes.io/managed-by": "gpuobs"},
		},
		"data": map[string]string{CSVKey: csv},
	}
	helm := map[string]any{
		// The chart turns customMetrics into a ConfigMap and points the exporter at it.
		"customMetrics": csv,
		"arguments":     []string{"-f", "/etc/dcgm-exporter/" + CSVKey},
	}
	files := []emit.File{{Path: output.Counters, Content: []byte("# " + output.Header + "\n" + csv)}}
	for _, doc := range []struct {
		path string
		body any
	}{{output.ExporterConfigMap, configMap}, {output.ExporterHelmValues, helm}} {
		files = append(files, emit.YAML(doc.path, emit.MustYAML(doc.body)))
	}
	return files, nil
}
