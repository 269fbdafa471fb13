// Package model holds the validated gpuobs catalog: data only, from which the plan derives.
package model

import "slices"

// Model is a loaded, validated catalog.
type Model struct {
	APIVersion       string           `json:"apiVersion"`
	Exporter         Exporter         `json:"exporter"`
	KubeStateMetrics KubeStateMetrics `json:"kubeStateMetrics"`
	Kubernetes       Kubernetes       `json:"kubernetes"`
	Labels           Labels           `json:"labels"`
	Identity         Identity         `json:"identity"`
	// Teams are the names of the teams that own alerts, by their role in the catalog.
	Teams map[string]string `json:"teams"`
	// Enabled switches catalog sections on and off, by name; catalog.Load removes what a
	// section switched off holds.
	Enabled map[string]bool `json:"enabled"`
	// Units are the units of measure fields are in, by name (Field.Unit).
	Units           map[string]Unit           `json:"units"`
	Fields          map[string]Field          `json:"fields"`
	Thresholds      map[string]float64        `json:"thresholds"`
	Windows         map[string]string         `json:"windows"`
	ThrottleReasons map[string]ThrottleReason `json:"throttleReasons"`
	XID             map[string][]int          `json:"xid"`
	Records         map[string]Record         `json:"records"`
	Alerts          map[string]Alert          `json:"alerts"`
	Fleet           Fleet                     `json:"fleet"`
	Lint            Lint                      `json:"lint"`
	// Prometheus is the target server: the feature flags it runs with.
	Prometheus   Prometheus           `json:"prometheus"`
	Metrics      map[string]Metric    `json:"metrics"`
	Runbooks     Runbooks             `json:"runbooks"`
	Recording    Recording            `json:"recording"`
	Tests        Tests                `json:"tests"`
	SLOs         map[string]SLO       `json:"slos"`
	Cost         Cost                 `json:"cost"`
	Sharing      Sharing              `json:"sharing"`
	Release      Release              `json:"release"`
	Dashboards   map[string]Dashboard `json:"dashboards"`
	Alertmanager Alertmanager         `json:"alertmanager"`
	Topology     Topology             `json:"topology"`
	Deploy       Deploy               `json:"deploy"`
}

// Valid reports whether v is one of all: the check validation makes of every enumerated
// catalog value.
func Valid[T ~string](v T, all []T) bool { return slices.Contains(all, v) }

// SortedKeys returns the keys of m in order, so that generators emit deterministic output.
func SortedKeys[K ~string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
