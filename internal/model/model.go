// Package model holds the validated gpuobs catalog: data only, from which the plan derives.
package model

import (
	"slices"
	"strings"
)

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

// Topology modes and global engines.
const (
	TopologySingle  = "single"
	TopologySharded = "sharded"
	EngineThanos    = "thanos"
	EngineMimir     = "mimir"
)

// Topology is where the rules run: one Prometheus, or shards under a global engine.
type Topology struct {
	// Mode is single or sharded.
	Mode string `json:"mode"`
	// ShardLabel is the external label that tells shards apart (cluster).
	ShardLabel string `json:"shardLabel"`
	// GlobalEngine evaluates the global layer: thanos (ruler over a querier) or mimir (ruler).
	GlobalEngine string `json:"globalEngine"`
	// GlobalQueryOffset is the query_offset of the global layer's groups: how far behind the
	// evaluation time they read, so that every shard's records for it have arrived.
	GlobalQueryOffset string `json:"globalQueryOffset"`
}

// Sharded reports whether the rules are split between shards and a global layer.
func (t Topology) Sharded() bool { return t.Mode == TopologySharded }

// Deploy configures the rule file formats besides plain Prometheus rule files.
type Deploy struct {
	// Operator is the Prometheus Operator PrometheusRule manifest.
	Operator struct {
		Name      string            `json:"name"`
		Namespace string            `json:"namespace"`
		Labels    map[string]string `json:"labels"`
	} `json:"operator"`
	// Mimir is the Mimir/Cortex ruler namespace the rules are loaded into.
	Mimir struct {
		Namespace string `json:"namespace"`
	} `json:"mimir"`
	// Grafana is how the dashboards are installed.
	Grafana GrafanaDeploy `json:"grafana"`
}

// The dashboard schemas gpuobs writes (deploy.grafana.schemas).
const (
	SchemaClassic = "classic"
	SchemaV2      = "v2"
)

// Writes reports whether the dashboards are written in a schema.
func (g GrafanaDeploy) Writes(schema string) bool { return slices.Contains(g.Schemas, schema) }

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

// Alertmanager configures routing, grouping and inhibition.
type Alertmanager struct {
	// Receivers names the receiver of each team by severity (critical, warning).
	Receivers map[string]map[Severity]string `json:"receivers"`
	// Integrations are the notifications of each receiver, by receiver name, in Alertmanager's
	// receiver schema (pagerduty_configs, slack_configs, ...), secrets by reference only.
	Integrations map[string]map[string]any `json:"integrations"`
	// SilentReceiver gets info alerts and whatever no route matches.
	SilentReceiver string `json:"silentReceiver"`
	// GroupBy lists the labels that make one notification, by alert family ("default").
	GroupBy map[string][]string `json:"groupBy"`
	// Timing is the notification timing by severity.
	Timing map[Severity]Timing `json:"timing"`
	// Inhibit names the alerts that silence others.
	Inhibit Inhibit `json:"inhibit"`
}

// Timing is when Alertmanager sends a group's notifications.
type Timing struct {
	GroupWait      string `json:"groupWait"`
	GroupInterval  string `json:"groupInterval"`
	RepeatInterval string `json:"repeatInterval"`
}

// Inhibit names the alerts that silence others.
type Inhibit struct {
	// GPUGone silences every other alert on its GPU.
	GPUGone string `json:"gpuGone"`
	// ExporterDown silences the alerts that read the exporter's series, on its node.
	ExporterDown string `json:"exporterDown"`
	// NodeUnschedulable silences the alerts of NodeUnschedulableFamilies on its node.
	NodeUnschedulable         string   `json:"nodeUnschedulable"`
	NodeUnschedulableFamilies []string `json:"nodeUnschedulableFamilies"`
	// KubeStateMetricsDown silences, in its cluster, the targets of every inhibition whose
	// source reads kube-state-metrics (that source is gone while it is down).
	KubeStateMetricsDown string `json:"kubeStateMetricsDown"`
	// LabelMismatch silences LabelMismatchTargets in its cluster: the alerts an exporter that
	// sends other label names than the catalog expects makes fire for every GPU.
	LabelMismatch        string   `json:"labelMismatch"`
	LabelMismatchTargets []string `json:"labelMismatchTargets"`
}

// SLO is a service level objective. The catalog expands it into the recording rules of its
// windows and its burn-rate alerts; the model keeps what validation and documents need.
type SLO struct {
	// Section is the catalog section the SLO belongs to ("" for the core).
	Section     string  `json:"section"`
	Team        string  `json:"team"`
	Objective   float64 `json:"objective"`
	Period      string  `json:"period"`
	Description string  `json:"description"`
	// By are the labels one SLO series is kept per (cluster, namespace, model_name).
	By []string `json:"by"`
	// Alerts are the SLO's burn-rate alerts by name suffix (FastBurn, SlowBurn): the alert
	// SLO<name><suffix> fires when any of its tiers does.
	Alerts map[string]SLOAlert `json:"alerts"`
	// Tiers are the burn-rate tiers: each fires when both windows burn faster than Factor.
	Tiers []BurnTier `json:"tiers"`
}

// SLOAlert is one burn-rate alert of an SLO.
type SLOAlert struct {
	Severity Severity `json:"severity"`
	For      string   `json:"for"`
}

// BurnTier is one multi-window burn-rate condition.
type BurnTier struct {
	// Alert is the suffix of the alert this tier belongs to.
	Alert  string  `json:"alert"`
	Factor float64 `json:"factor"`
	Long   string  `json:"long"`
	Short  string  `json:"short"`
}

// Cost is the price table that turns GPU time into money.
type Cost struct {
	Currency string `json:"currency"`
	// GPUHourly is the price of one GPU-hour by modelName (the exporter's SKU label).
	GPUHourly map[string]float64 `json:"gpuHourly"`
	// TeamLabel is the kube_namespace_labels label naming the team that owns a namespace.
	TeamLabel string `json:"teamLabel"`
}

// Sharing is how GPUs are shared among pods: MIG instances and time-slicing or MPS replicas.
type Sharing struct {
	// MIGProfileWeights is the share of its GPU a MIG instance stands for, by GPU_I_PROFILE.
	MIGProfileWeights map[string]float64 `json:"migProfileWeights"`
	// Replicas is how many devices the device plugin advertises per GPU (time-slicing, MPS).
	Replicas int `json:"replicas"`
}

// Release names the deployment label that tells canary from baseline series.
type Release struct {
	Label    string `json:"label"`
	Canary   string `json:"canary"`
	Baseline string `json:"baseline"`
}

// Dashboard is one level of the dashboard hierarchy (L1 fleet ... L5 one GPU).
type Dashboard struct {
	UID         string `json:"uid"`
	Title       string `json:"title"`
	Description string `json:"description"`
	// Vars maps the template variables the level takes to the alert labels that fill them,
	// for links into it.
	Vars map[string]string `json:"vars"`
	// Variables are the template variables besides the data source, in order.
	Variables []Variable `json:"variables"`
	// Links are the levels the dashboard links to, carrying its variables.
	Links       []string         `json:"links"`
	Rows        []Row            `json:"rows"`
	Annotations []DashAnnotation `json:"annotations"`
}

// Variable is a template variable filled by a query (label_values(...)).
type Variable struct {
	Name  string `json:"name"`
	Label string `json:"label"`
	Query string `json:"query"`
	Multi bool   `json:"multi"`
}

// Row is a titled row of panels.
type Row struct {
	Title  string  `json:"title"`
	Panels []Panel `json:"panels"`
}

// Panel is one dashboard panel.
type Panel struct {
	Title       string   `json:"title"`
	Type        string   `json:"type"`
	Description string   `json:"description"`
	Unit        string   `json:"unit"`
	Min         *float64 `json:"min"`
	Max         *float64 `json:"max"`
	// Thresholds are [value, color] steps, the first value null (the base).
	Thresholds [][2]any `json:"thresholds"`
	Queries    []Query  `json:"queries"`
	// Width is the panel's width in Grafana's 24-column grid.
	Width int `json:"width"`
	// Drill is the level each series links to, its variables taken from the series' labels:
	// the labels the level's vars name, or DrillVars (variable -> label) where the series
	// name them otherwise.
	Drill     string            `json:"drill"`
	DrillVars map[string]string `json:"drillVars"`
	Stack     bool              `json:"stack"`
}

// Query is one PromQL query of a panel.
type Query struct {
	Expr   string `json:"expr"`
	Legend string `json:"legend"`
}

// DashAnnotation marks events from a PromQL query on every panel's time axis.
type DashAnnotation struct {
	Name  string `json:"name"`
	Expr  string `json:"expr"`
	Color string `json:"color"`
	Title string `json:"title"`
}

// Exporter describes how dcgm-exporter is deployed and scraped.
type Exporter struct {
	// Version is the dcgm-exporter version profile (4.8.2, 4.8.3, 4.9).
	Version string `json:"version"`
	// Platform names the GPU platform profile (hgx, gb200): the fields only its GPUs report,
	// which the catalog, the counter file and the alerts then read.
	Platform             string `json:"platform"`
	Job                  string `json:"job"`
	HostLabel            string `json:"hostLabel"`
	HonorLabels          bool   `json:"honorLabels"`
	ThrottleReasonsField string `json:"throttleReasonsField"`
	HealthField          string `json:"healthField"`
	// DriverField is the DCGM field of the driver version, which the counter file's label row
	// names (the series' label is Labels.DriverVersion, the field's name unless relabelled).
	DriverField string `json:"driverField"`
	// VirtualGPUs is dcgm-exporter's --kubernetes-virtual-gpus: a shared GPU's series are
	// copied per pod, except PerProcessFields, where each pod reports its own processes'
	// value next to the device's series.
	VirtualGPUs      bool     `json:"virtualGPUs"`
	PerProcessFields []string `json:"perProcessFields"`
	// ExtraCounters are the fields the counter file collects beyond the default set.
	ExtraCounters []string `json:"extraCounters"`
	// CounterFileFields are the fields of ExtraCounters that every GPU reports while the
	// counter file collects them: where none arrives, the exporter runs its default set.
	CounterFileFields []string `json:"counterFileFields"`
	// StockCounterSetAlert is the alert that tickets a cluster on the default counter set
	// ("" for none); its runbook lists the alerts that set leaves blind.
	StockCounterSetAlert string `json:"stockCounterSetAlert"`
	// FieldNames renames catalog fields to the names the exporter exports (dcgm-exporter
	// 4.9 renames fields that DCGM 4.7 deprecates); applied to the whole catalog on load.
	FieldNames map[string]string `json:"fieldNames"`
	// Deployed, when set (gpuobs lint --exporter-counters), is the counter file actually
	// deployed: it replaces the default set and ExtraCounters.
	Deployed map[string]bool `json:"-"`
}

// KubeStateMetrics describes the kube-state-metrics series gpuobs reads.
type KubeStateMetrics struct {
	Job         string `json:"job"`
	GPUResource string `json:"gpuResource"`
	// MIGResources matches the resources of MIG devices under the GPU Operator's mixed
	// strategy (nvidia_com_mig_1g_10gb, ...).
	MIGResources string `json:"migResources"`
	// GPUResources matches every resource a GPU or a MIG device is scheduled as (derived in
	// the catalog from the two above): capacity and requests count slots, a whole GPU or one
	// MIG device, whatever the MIG strategy.
	GPUResources string `json:"gpuResources"`
}

// GPU allocation modes of a fleet's Kubernetes.
const (
	// AllocationDevicePlugin: GPUs are the nvidia.com/gpu extended resource of the device plugin.
	AllocationDevicePlugin = "device-plugin"
	// AllocationDRA: GPUs are devices of ResourceClaims, published by a DRA driver.
	AllocationDRA = "dra"
	// AllocationMixed: node pools of both.
	AllocationMixed = "mixed"
)

// GPUAllocations lists the allocation modes.
var GPUAllocations = []string{AllocationDevicePlugin, AllocationDRA, AllocationMixed}

// Kubernetes is how the fleet's Kubernetes hands GPUs to pods.
type Kubernetes struct {
	// GPUAllocation is one of GPUAllocations.
	GPUAllocation string `json:"gpuAllocation"`
	// DRADriver is the DRA driver that publishes the GPUs (its ResourceSlices and the
	// allocation results of claims name it).
	DRADriver string `json:"draDriver"`
	// DRADeviceClass is the DeviceClass of the GPUs, which a ResourceQuota limits as
	// <class>.deviceclass.resource.k8s.io/devices.
	DRADeviceClass string `json:"draDeviceClass"`
	// KubeletJob is the Prometheus job of the kubelets, which report DRA prepare failures.
	KubeletJob string `json:"kubeletJob"`
}

// DevicePlugin reports whether some nodes hand GPUs out through the device plugin.
func (k Kubernetes) DevicePlugin() bool { return k.GPUAllocation != AllocationDRA }

// DRA reports whether some nodes hand GPUs out through DRA.
func (k Kubernetes) DRA() bool { return k.GPUAllocation != AllocationDevicePlugin }

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
	// Team is the label every alert carries with its owning team, which routing matches on.
	Team string `json:"team"`
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

// Entity is the level a DCGM field is reported at.
type Entity string

// Entity levels of a DCGM field.
const (
	EntityGPU         Entity = "gpu"
	EntityMIGRepeated Entity = "mig-repeated"
	EntityMIGNative   Entity = "mig-native"
	EntityNVLink      Entity = "nvlink"
)

// Entities lists every entity level.
var Entities = []Entity{EntityGPU, EntityMIGRepeated, EntityMIGNative, EntityNVLink}

// Kind is the real semantics of a field's value.
type Kind string

// Field kinds.
const (
	KindCounter   Kind = "counter"
	KindGauge     Kind = "gauge"
	KindFlag      Kind = "flag"
	KindBitmask   Kind = "bitmask"
	KindLastEvent Kind = "last-event"
)

// Kinds lists every field kind.
var Kinds = []Kind{KindCounter, KindGauge, KindFlag, KindBitmask, KindLastEvent}

// Rollup is how per-GPU values combine upward.
type Rollup string

// Rollups.
const (
	RollupNone Rollup = "none"
	RollupAvg  Rollup = "avg"
	RollupSum  Rollup = "sum"
	RollupMax  Rollup = "max"
	RollupRate Rollup = "rate"
)

// Rollups lists every rollup.
var Rollups = []Rollup{RollupNone, RollupAvg, RollupSum, RollupMax, RollupRate}

// Valid reports whether v is one of all: the check validation makes of every enumerated
// catalog value.
func Valid[T ~string](v T, all []T) bool { return slices.Contains(all, v) }

// Field is one DCGM field as dcgm-exporter exports it.
type Field struct {
	ID        int    `json:"id"`
	Type      string `json:"type"`
	Kind      Kind   `json:"kind"`
	Unit      string `json:"unit"`
	Family    string `json:"family"`
	Entity    Entity `json:"entity"`
	Help      string `json:"help"`
	Default   bool   `json:"default"`
	Profiling bool   `json:"profiling"`
	Rollup    Rollup `json:"rollup"`
	// ByNamespace also rolls the field up by namespace, over pod-attributed series.
	ByNamespace bool `json:"byNamespace"`
}

// ThrottleReason is a set of bits of the clock-event bitmask that mean one kind of throttling.
type ThrottleReason struct {
	Bits []int  `json:"bits"`
	Help string `json:"help"`
}

// Record is a recording rule declared in the catalog. Its key is the metric it records, unless
// Record names it: several rules may record one metric with different static Labels.
type Record struct {
	// Section is the catalog section the record belongs to ("" for the core).
	Section string            `json:"section"`
	Record  string            `json:"record"`
	Labels  map[string]string `json:"labels"`
	Family  string            `json:"family"`
	Expr    string            `json:"expr"`
	// Tests are promtool cases for records that no alert reads.
	Tests []RecordCase `json:"tests"`
	// Comments are written above the rule in rule files, one per line: a peer linter's
	// suppression ("pint disable promql/impossible"), with the reason on the line before.
	Comments []string `json:"comments"`
}

// RecordCase is one promtool case of a catalog record: input series with explicit labels and
// the exact samples that an expression over the record yields at the evaluation time.
type RecordCase struct {
	Name string `json:"name"`
	// Expr is what the case queries: the record, or a selector over it.
	Expr   string       `json:"expr"`
	Series []CaseSeries `json:"series"`
	Expect []Sample     `json:"expect"`
}

// Sample is one expected output series.
type Sample struct {
	Labels map[string]string `json:"labels"`
	Value  float64           `json:"value"`
}

// Severity is an alert's tier: critical pages, warning tickets, info only shows.
type Severity string

// Severities.
const (
	SeverityCritical Severity = "critical"
	SeverityWarning  Severity = "warning"
	SeverityInfo     Severity = "info"
)

// Tier names a severity as the on-call sees it: critical pages, warning tickets; other values
// (info, or a hand-written rule's own) are named as they are, an empty one "no severity".
func (s Severity) Tier() string {
	switch s {
	case SeverityCritical:
		return "page"
	case SeverityWarning:
		return "ticket"
	case "":
		return "no severity"
	}
	return string(s)
}

// Severities lists every severity, most urgent first.
var Severities = []Severity{SeverityCritical, SeverityWarning, SeverityInfo}

// Alert is one alerting rule with its promtool scenarios.
type Alert struct {
	// Section is the catalog section the alert belongs to ("" for the core).
	Section  string   `json:"section"`
	Family   string   `json:"family"`
	Severity Severity `json:"severity"`
	Team     string   `json:"team"`
	Expr     string   `json:"expr"`
	For      string   `json:"for"`
	// KeepFiringFor keeps the alert firing this long after its condition clears
	// (keep_firing_for): an event alert whose events repeat within an incident then stays one
	// alert instead of resolving and firing again.
	KeepFiringFor string            `json:"keepFiringFor"`
	Labels        map[string]string `json:"labels"`
	Summary       string            `json:"summary"`
	Description   string            `json:"description"`
	// Identity is the labels that name the thing at fault, which scenarios, runbooks and
	// inhibit rules assume; when the catalog gives none, the plan derives it from the labels
	// the expression yields (catalog identity.alert less what never reaches the alert).
	Identity []string    `json:"identity"`
	Tests    []AlertCase `json:"tests"`
	Runbook  Runbook     `json:"runbook"`
}

// Runbook is the response guide of an alert.
type Runbook struct {
	Meaning string `json:"meaning"`
	Impact  string `json:"impact"`
	// Notes explain specifics, such as each XID code an alert covers.
	Notes []string `json:"notes"`
	// Queries are first-look PromQL; $label stands for the value of the alert's label.
	Queries    []RunbookQuery `json:"queries"`
	Diagnosis  []Step         `json:"diagnosis"`
	Mitigation []string       `json:"mitigation"`
	Escalation string         `json:"escalation"`
	// Dashboards are the levels (L1..L5) worth opening, most specific last.
	Dashboards []string `json:"dashboards"`
}

// RunbookQuery is one first-look query.
type RunbookQuery struct {
	Title string `json:"title"`
	Expr  string `json:"expr"`
}

// Step is one decision of a diagnosis flowchart: a question, what a yes means, and what a no
// means ("" goes on to the next step).
type Step struct {
	Check string `json:"check"`
	Yes   string `json:"yes"`
	No    string `json:"no"`
}

// AlertCase is one promtool scenario, played on its own cluster and host with its own GPUs.
type AlertCase struct {
	Name        string       `json:"name"`
	Fires       bool         `json:"fires"`
	Value       *float64     `json:"value"`
	Series      []CaseSeries `json:"series"`
	Pod         bool         `json:"pod"`
	MIG         bool         `json:"mig"`
	Health      string       `json:"health"`
	ExtraHealth string       `json:"extraHealth"`
	// StockCounters is an exporter on its default counter set: the scenario's GPUs send none
	// of the counter file's own fields (else each sends the first of CounterFileFields, 0).
	StockCounters bool   `json:"stockCounters"`
	Up            string `json:"up"`
	// NodeInfo, when set, are the values of kube-state-metrics' kube_node_info for the
	// scenario's host: the node as the Kubernetes API knows it.
	NodeInfo  string       `json:"nodeInfo"`
	AlsoFires []AlsoFiring `json:"alsoFires"`
	// GPUs is how many GPUs the scenario's host has (1 when unset).
	GPUs int `json:"gpus"`
	// Drivers sets the driver version of GPU i; unset GPUs keep the default.
	Drivers []string `json:"drivers"`
	// Models sets the modelName (SKU) of GPU i; unset GPUs keep the default.
	Models []string `json:"models"`
	// Owner names the workload (kube_pod_owner) that owns the scenario's pods, and OwnerKind
	// its kind (a Job when empty).
	Owner     string `json:"owner"`
	OwnerKind string `json:"ownerKind"`
	// Extra are series not on a GPU (kube-state-metrics, vLLM), with explicit labels; the
	// scenario's cluster label is added.
	Extra []CaseSeries `json:"extra"`
	// Target labels name a thing at fault that is not a GPU (an SLO, a cluster); when set, the
	// alert's identity is projected from them and the scenario's cluster.
	Target map[string]string `json:"target"`
	// Firing selects, by index, which of the scenario's GPU identities (one per GPU or MIG
	// instance, in order) the alert fires for; all when unset.
	Firing []int `json:"firing"`
	// Without are identity labels the alert lacks in this scenario (a fallback branch).
	Without []string `json:"without"`
	// Labels are identity labels the alert has beyond the GPU's (the code of an XID).
	Labels map[string]string `json:"labels"`
}

// CaseSeries is one input series of a scenario: on the scenario's GPUs, or with explicit
// labels (Extra, record cases).
type CaseSeries struct {
	Metric string            `json:"metric"`
	Values string            `json:"values"`
	Labels map[string]string `json:"labels"`
	// Entities selects, by index, which of the scenario's entities for this metric (GPUs, or
	// MIG instances, in order) carry the series; all when unset.
	Entities []int `json:"entities"`
	// WithoutPod makes the series carry no pod attribution: the pod on the GPU has exited and
	// the exporter reports the GPU as a new series.
	WithoutPod bool `json:"withoutPod"`
}

// AlsoFiring names another alert that a scenario makes fire, with its value.
type AlsoFiring struct {
	Alert string  `json:"alert"`
	Value float64 `json:"value"`
	// Firing selects the scenario's GPU identities it fires for, as AlertCase.Firing.
	Firing []int `json:"firing"`
	// Target as AlertCase.Target.
	Target map[string]string `json:"target"`
	// Labels as AlertCase.Labels.
	Labels map[string]string `json:"labels"`
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

// Prometheus describes the Prometheus servers the rules run on.
type Prometheus struct {
	// EnableFeatures are the server's --enable-feature flags: the experimental PromQL it
	// accepts (promql-experimental-functions for limitk and info, promql-binop-fill-modifiers
	// for fill).
	EnableFeatures []string `json:"enableFeatures"`
	// NativeHistograms says the servers keep the catalog's histograms as native histograms:
	// only the bare name has series, name_bucket, name_count and name_sum have none.
	NativeHistograms bool `json:"nativeHistograms"`
}

// Lint configures gpuobs lint.
type Lint struct {
	// Budgets are the most series a rule (by level) or dashboard query (by L1..L5) may produce.
	Budgets map[string]int `json:"budgets"`
	// Disable lists checks (or areas) skipped everywhere.
	Disable []string `json:"disable"`
	// Ignore skips checks for files matching a path pattern.
	Ignore []LintIgnore `json:"ignore"`
	// Policy is the team's own conventions, checked in files gpuobs did not generate (gpuobs'
	// output is held to gpuobs' conventions); an empty entry checks nothing.
	Policy LintPolicy `json:"policy"`
}

// LintPolicy is a team's alert and rule conventions.
type LintPolicy struct {
	// Severities are the allowed values of an alert's severity label; when set, an alert
	// without one is reported too.
	Severities []string `json:"severities"`
	// Annotations are the annotation keys every alert must have.
	Annotations []string `json:"annotations"`
	// RecordNames and AlertNames are regular expressions every recording rule and alert name
	// must match.
	RecordNames string `json:"recordNames"`
	AlertNames  string `json:"alertNames"`
}

// LintIgnore skips a check (or area) for files whose path matches Path (path.Match syntax).
type LintIgnore struct {
	Check string `json:"check"`
	Path  string `json:"path"`
}

// Metric is a metric other than a DCGM field that rules may read.
type Metric struct {
	// Section is the catalog section whose rules read the metric ("" for the core).
	Section string   `json:"section"`
	Type    string   `json:"type"`
	Labels  []string `json:"labels"`
}

// Collected reports whether the exporter's counter set collects a field.
func (m *Model) Collected(field string) bool {
	if m.Exporter.Deployed != nil {
		return m.Exporter.Deployed[field]
	}
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
	// GrafanaURL is where the generated dashboards are served; runbooks link into it.
	GrafanaURL string `json:"grafanaURL"`
}

// Recording configures recording rule evaluation.
type Recording struct {
	Interval   string `json:"interval"`
	RateWindow string `json:"rateWindow"`
	// Retention are the coarser copies of the long-lived records, for a long-term store.
	Retention Retention `json:"retention"`
}

// Retention is the retention tiers: the records of Levels copied at each of Intervals (each
// tier averages the one before it), each tier in its own group evaluated at its interval.
type Retention struct {
	Intervals []string `json:"intervals"`
	Levels    []string `json:"levels"`
}

// Tests configures the generated promtool tests.
type Tests struct {
	Interval string `json:"interval"`
	EvalTime string `json:"evalTime"`
}

// SortedKeys returns the keys of m in order, so that generators emit deterministic output.
func SortedKeys[K ~string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// RunbookURL is the runbook link of an alert.
func (m *Model) RunbookURL(alert string) string {
	return m.Runbooks.BaseURL + alert + ".md"
}

// AbsentHistogramForm reports whether name reads a catalog histogram in the form the servers
// do not keep (prometheus.nativeHistograms): name_bucket, name_count or name_sum of a native
// histogram, or the bare name of a classic one. It returns the histogram's name.
func (m *Model) AbsentHistogramForm(name string) (string, bool) {
	if m.Metrics[name].Type == "histogram" {
		return name, !m.Prometheus.NativeHistograms
	}
	for _, suffix := range histogramSuffixes {
		if base, ok := strings.CutSuffix(name, suffix); ok && m.Metrics[base].Type == "histogram" {
			return base, m.Prometheus.NativeHistograms
		}
	}
	return "", false
}

// histogramSuffixes name the series of a classic histogram (a summary has no _bucket).
var histogramSuffixes = []string{"_bucket", "_count", "_sum"}

// HistogramSeries resolves name_bucket, name_count and name_sum to the histogram or summary
// metric of the catalog they belong to.
func (m *Model) HistogramSeries(name string) (Metric, bool) {
	for _, suffix := range histogramSuffixes {
		base, ok := strings.CutSuffix(name, suffix)
		if !ok {
			continue
		}
		if mt, ok := m.Metrics[base]; ok && (mt.Type == "histogram" || (mt.Type == "summary" && suffix != "_bucket")) {
			return mt, true
		}
	}
	return Metric{}, false
}
