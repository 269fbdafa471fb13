// Package model holds the validated gpuobs catalog that every generator reads.
package model

import "sort"

// Model is a loaded, validated catalog.
type Model struct {
	APIVersion       string                    `json:"apiVersion"`
	Exporter         Exporter                  `json:"exporter"`
	KubeStateMetrics KubeStateMetrics          `json:"kubeStateMetrics"`
	Labels           Labels                    `json:"labels"`
	Identity         Identity                  `json:"identity"`
	Fields           map[string]Field          `json:"fields"`
	Thresholds       map[string]float64        `json:"thresholds"`
	Windows          map[string]string         `json:"windows"`
	ThrottleReasons  map[string]ThrottleReason `json:"throttleReasons"`
	XID              map[string][]int          `json:"xid"`
	Records          map[string]Record         `json:"records"`
	Alerts           map[string]Alert          `json:"alerts"`
	Fleet            Fleet                     `json:"fleet"`
	Lint             Lint                      `json:"lint"`
	Metrics          map[string]Metric         `json:"metrics"`
	Runbooks         Runbooks                  `json:"runbooks"`
	Recording        Recording                 `json:"recording"`
	Tests            Tests                     `json:"tests"`
}

// Exporter describes how dcgm-exporter is deployed and scraped.
type Exporter struct {
	Job                  string `json:"job"`
	HostLabel            string `json:"hostLabel"`
	HonorLabels          bool   `json:"honorLabels"`
	ThrottleReasonsField string `json:"throttleReasonsField"`
	HealthField          string `json:"healthField"`
	// ExtraCounters are the fields the counter file collects beyond the default set.
	ExtraCounters []string `json:"extraCounters"`
}

// KubeStateMetrics describes the kube-state-metrics series gpuobs reads.
type KubeStateMetrics struct {
	Job         string `json:"job"`
	GPUResource string `json:"gpuResource"`
}

// Labels are the label names that the scraped series carry.
type Labels struct {
	Cluster       string `json:"cluster"`
	Host          string `json:"host"`
	GPU           string `json:"gpu"`
	UUID          string `json:"uuid"`
	PCIBusID      string `json:"pciBusId"`
	Device        string `json:"device"`
	ModelName     string `json:"modelName"`
	DriverVersion string `json:"driverVersion"`
	Namespace     string `json:"namespace"`
	Pod           string `json:"pod"`
	Container     string `json:"container"`
	MIGInstance   string `json:"migInstance"`
	MIGProfile    string `json:"migProfile"`
	Node          string `json:"node"`
}

// Identity lists the label sets that rules aggregate by.
type Identity struct {
	// GPU identifies one physical GPU in per-GPU recording rules.
	GPU []string `json:"gpu"`
	// GPUJoin matches one GPU across raw and recorded series.
	GPUJoin []string `json:"gpuJoin"`
	// Alert is what every GPU alert keeps, pod attribution included.
	Alert []string `json:"alert"`
}

// Entity levels of a DCGM field.
const (
	EntityGPU         = "gpu"
	EntityMIGRepeated = "mig-repeated"
	EntityMIGNative   = "mig-native"
	EntityNVLink      = "nvlink"
)

// Field kinds: the real semantics of a field's value.
const (
	KindCounter   = "counter"
	KindGauge     = "gauge"
	KindFlag      = "flag"
	KindBitmask   = "bitmask"
	KindLastEvent = "last-event"
)

// Rollups: how per-GPU values combine upward.
const (
	RollupNone = "none"
	RollupAvg  = "avg"
	RollupSum  = "sum"
	RollupMax  = "max"
	RollupRate = "rate"
)

// Field is one DCGM field as dcgm-exporter exports it.
type Field struct {
	ID        int    `json:"id"`
	Type      string `json:"type"`
	Kind      string `json:"kind"`
	Unit      string `json:"unit"`
	Family    string `json:"family"`
	Entity    string `json:"entity"`
	Help      string `json:"help"`
	Default   bool   `json:"default"`
	Profiling bool   `json:"profiling"`
	Rollup    string `json:"rollup"`
	// ByNamespace also rolls the field up by namespace, over pod-attributed series.
	ByNamespace bool `json:"byNamespace"`
}

// ThrottleReason is a set of bits of the clock-event bitmask that mean one kind of throttling.
type ThrottleReason struct {
	Bits []int  `json:"bits"`
	Help string `json:"help"`
}

// Record is a recording rule declared in the catalog, keyed by its name.
type Record struct {
	Family string `json:"family"`
	Expr   string `json:"expr"`
}

// Severities of alerts: critical pages, warning tickets, info only shows.
const (
	SeverityCritical = "critical"
	SeverityWarning  = "warning"
	SeverityInfo     = "info"
)

// Alert is one alerting rule with its promtool scenarios.
type Alert struct {
	Family      string            `json:"family"`
	Severity    string            `json:"severity"`
	Team        string            `json:"team"`
	Expr        string            `json:"expr"`
	For         string            `json:"for"`
	Labels      map[string]string `json:"labels"`
	Summary     string            `json:"summary"`
	Description string            `json:"description"`
	Identity    []string          `json:"identity"`
	Tests       []AlertCase       `json:"tests"`
}

// AlertCase is one promtool scenario, played on its own synthetic GPU.
type AlertCase struct {
	Name        string       `json:"name"`
	Fires       bool         `json:"fires"`
	Value       *float64     `json:"value"`
	Series      []CaseSeries `json:"series"`
	Pod         bool         `json:"pod"`
	MIG         bool         `json:"mig"`
	Health      string       `json:"health"`
	ExtraHealth string       `json:"extraHealth"`
	Up          string       `json:"up"`
	AlsoFires   []AlsoFiring `json:"alsoFires"`
}

// CaseSeries is one input series of a scenario, on the scenario's GPU.
type CaseSeries struct {
	Metric string            `json:"metric"`
	Values string            `json:"values"`
	Labels map[string]string `json:"labels"`
}

// AlsoFiring names another alert that a scenario makes fire, with its value.
type AlsoFiring struct {
	Alert string  `json:"alert"`
	Value float64 `json:"value"`
}

// Fleet is the fleet size projections are made for.
type Fleet struct {
	Clusters             int `json:"clusters"`
	NodesPerCluster      int `json:"nodesPerCluster"`
	GPUsPerNode          int `json:"gpusPerNode"`
	MIGInstancesPerGPU   int `json:"migInstancesPerGPU"`
	NamespacesPerCluster int `json:"namespacesPerCluster"`
	PodsPerNode          int `json:"podsPerNode"`
}

// Lint configures gpuobs lint.
type Lint struct {
	// Budgets are the most series a rule (by level) or dashboard query (by L1..L5) may produce.
	Budgets map[string]int `json:"budgets"`
	// Disable lists checks (or areas) skipped everywhere.
	Disable []string `json:"disable"`
	// Ignore skips checks for files matching a path pattern.
	Ignore []LintIgnore `json:"ignore"`
}

// LintIgnore skips a check (or area) for files whose path matches Path (path.Match syntax).
type LintIgnore struct {
	Check string `json:"check"`
	Path  string `json:"path"`
}

// Metric is a metric other than a DCGM field that rules may read.
type Metric struct {
	Type   string   `json:"type"`
	Labels []string `json:"labels"`
}

// Collected reports whether the exporter's counter set collects a field.
func (m *Model) Collected(field string) bool {
	if f, ok := m.Fields[field]; ok && f.Default {
		return true
	}
	for _, c := range m.Exporter.ExtraCounters {
		if c == field {
			return true
		}
	}
	return false
}

// Runbooks configures runbook links.
type Runbooks struct {
	BaseURL string `json:"baseURL"`
}

// Recording configures recording rule evaluation.
type Recording struct {
	Interval   string `json:"interval"`
	RateWindow string `json:"rateWindow"`
}

// Tests configures the generated promtool tests.
type Tests struct {
	Interval string `json:"interval"`
	EvalTime string `json:"evalTime"`
}

// SortedKeys returns the keys of m in order, so that generators emit deterministic output.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// RunbookURL is the runbook link of an alert.
func (m *Model) RunbookURL(alert string) string {
	return m.Runbooks.BaseURL + alert + ".md"
}
