// Package model holds the validated gpuobs catalog: data only, from which the plan derives.
package model

import "slices"

// Model is a loaded, validated catalog.
type Model struct {
	// APIVersion is the catalog schema version (gpuobs/v1); validation refuses another.
	APIVersion string `json:"apiVersion"`
	// Exporter is how dcgm-exporter is deployed and scraped.
	Exporter Exporter `json:"exporter"`
	// KubeStateMetrics is how the kube-state-metrics series are scraped and named.
	KubeStateMetrics KubeStateMetrics `json:"kubeStateMetrics"`
	// Kubernetes is how the fleet's Kubernetes hands GPUs to pods.
	Kubernetes Kubernetes `json:"kubernetes"`
	// Scheduler is what hands GPUs to work: SchedulerKubernetes or SchedulerSlurm.
	Scheduler Scheduler `json:"scheduler"`
	// Slurm is a Slurm fleet's sources.
	Slurm Slurm `json:"slurm"`
	// Labels are the label names the scraped series carry.
	Labels Labels `json:"labels"`
	// Identity is the label sets rules aggregate by.
	Identity Identity `json:"identity"`
	// Teams are the names of the teams that own alerts, by their role in the catalog.
	Teams map[string]string `json:"teams"`
	// Enabled switches catalog sections on and off, by name; catalog.Load removes what a
	// section switched off holds.
	Enabled map[string]bool `json:"enabled"`
	// Units are the units of measure fields are in, by name (Field.Unit).
	Units map[string]Unit `json:"units"`
	// Fields are the DCGM fields, by name.
	Fields map[string]Field `json:"fields"`
	// Thresholds are the numeric thresholds of alerts and panels, by name.
	Thresholds map[string]float64 `json:"thresholds"`
	// Windows are named durations the expressions use (event: how long an XID or ECC event keeps
	// its alert firing).
	Windows map[string]string `json:"windows"`
	// ThrottleReasons are the kinds of throttling the clock-event bitmask tells, by name.
	ThrottleReasons map[string]ThrottleReason `json:"throttleReasons"`
	// XID lists the XID codes of each class (fatal, application, ...), by class.
	XID map[string][]int `json:"xid"`
	// Records are the recording rules the catalog declares, by key.
	Records map[string]Record `json:"records"`
	// Alerts are the alerting rules, by name.
	Alerts map[string]Alert `json:"alerts"`
	// Fleet is the fleet size lint projects cardinality for.
	Fleet Fleet `json:"fleet"`
	// Lint configures gpuobs lint.
	Lint Lint `json:"lint"`
	// Prometheus is the target server: the feature flags it runs with.
	Prometheus Prometheus `json:"prometheus"`
	// Metrics are the metrics other than DCGM fields that rules read, by name.
	Metrics map[string]Metric `json:"metrics"`
	// Engines are the LLM serving engines' profiles, by profile name.
	Engines map[string]Engine `json:"engines"`
	// Runbooks configures runbook links.
	Runbooks Runbooks `json:"runbooks"`
	// Recording configures recording rule evaluation.
	Recording Recording `json:"recording"`
	// Tests configures the generated promtool tests.
	Tests Tests `json:"tests"`
	// SLOs are the service level objectives, by name.
	SLOs map[string]SLO `json:"slos"`
	// Cost is the price table.
	Cost Cost `json:"cost"`
	// Sharing is how GPUs are shared among pods.
	Sharing Sharing `json:"sharing"`
	// Release names the label that tells canary from baseline series.
	Release Release `json:"release"`
	// Dashboards are the levels of the dashboard hierarchy, by name (L1 ... L5).
	Dashboards map[string]Dashboard `json:"dashboards"`
	// Alertmanager configures routing, grouping and inhibition.
	Alertmanager Alertmanager `json:"alertmanager"`
	// Topology is where the rules run.
	Topology Topology `json:"topology"`
	// Deploy configures the rule file formats and the dashboards' install.
	Deploy Deploy `json:"deploy"`
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
