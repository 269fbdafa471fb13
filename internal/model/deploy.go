package model

import "slices"

// Deploy configures the rule file formats besides plain Prometheus rule files.
type Deploy struct {
	// Operator is the Prometheus Operator PrometheusRule manifest.
	Operator struct {
		// Name and Namespace are the manifest's metadata; Labels select it for a Prometheus.
		Name      string            `json:"name"`
		Namespace string            `json:"namespace"`
		Labels    map[string]string `json:"labels"`
	} `json:"operator"`
	// Mimir is the Mimir/Cortex ruler namespace the rules are loaded into.
	Mimir struct {
		// Namespace is the ruler namespace.
		Namespace string `json:"namespace"`
	} `json:"mimir"`
	// Grafana is how the dashboards are installed.
	Grafana GrafanaDeploy `json:"grafana"`
}

// GrafanaDeploy is how the dashboards are installed in Grafana.
type GrafanaDeploy struct {
	// UIDPrefix starts every dashboard's UID and tags the dashboards that link to each other,
	// so that a second install in one Grafana organization keeps its own.
	UIDPrefix string `json:"uidPrefix"`
	// Editable lets users edit the dashboards in Grafana (provisioned dashboards lose such
	// edits at the next provisioning).
	Editable bool `json:"editable"`
	// Schemas are the dashboard schemas written: SchemaClassic (the dashboard JSON of file
	// provisioning and the sidecar), SchemaV2 (Grafana's dashboard.grafana.app/v2 resource).
	Schemas []string `json:"schemas"`
	// Sidecar, when enabled, also writes each dashboard as a ConfigMap that Grafana's sidecar
	// (kube-prometheus-stack) loads: in Namespace, with Labels.
	Sidecar struct {
		Enabled   bool              `json:"enabled"`
		Namespace string            `json:"namespace"`
		Labels    map[string]string `json:"labels"`
	} `json:"sidecar"`
}

// The dashboard schemas gpuobs writes (deploy.grafana.schemas).
const (
	SchemaClassic = "classic"
	SchemaV2      = "v2"
)

// Writes reports whether the dashboards are written in a schema.
func (g GrafanaDeploy) Writes(schema string) bool { return slices.Contains(g.Schemas, schema) }
