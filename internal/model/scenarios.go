package model

// Tests configures the generated promtool tests.
type Tests struct {
	// Interval is the step of the input series; EvalTime when the alerts are checked.
	Interval string `json:"interval"`
	EvalTime string `json:"evalTime"`
}

// AlertCase is one promtool scenario, played on its own cluster and host with its own GPUs.
type AlertCase struct {
	// Name names the scenario.
	Name string `json:"name"`
	// Fires says whether the alert fires at the evaluation time.
	Fires bool `json:"fires"`
	// Value is the alert's value when it fires (rendered in its description).
	Value *float64 `json:"value"`
	// Series are the input series on the scenario's GPUs.
	Series []CaseSeries `json:"series"`
	// Pod puts a pod on each GPU (each MIG instance).
	Pod bool `json:"pod"`
	// OnePod makes the pod on each GPU one pod that holds them all (a training pod that takes
	// its node's GPUs, as host-network pods do).
	OnePod bool `json:"onePod"`
	// MIG splits each GPU into two MIG instances.
	MIG bool `json:"mig"`
	// Health are the values of the exporter's health field on each GPU, "" for none.
	Health string `json:"health"`
	// ExtraHealth, when set, is a second health series per GPU without pod labels (pod churn).
	ExtraHealth string `json:"extraHealth"`
	// StockCounters is an exporter on its default counter set: the scenario's GPUs send none
	// of the counter file's own fields (else each sends the first of CounterFileFields, 0).
	StockCounters bool `json:"stockCounters"`
	// Up are the values of the exporter's up series.
	Up string `json:"up"`
	// NodeInfo, when set, are the values of kube-state-metrics' kube_node_info for the
	// scenario's host: the node as the Kubernetes API knows it.
	NodeInfo string `json:"nodeInfo"`
	// AlsoFires are the other alerts the scenario makes fire at the same time.
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

// RecordCase is one promtool case of a catalog record: input series with explicit labels and
// the exact samples that an expression over the record yields at the evaluation time.
type RecordCase struct {
	// Name names the case.
	Name string `json:"name"`
	// Expr is what the case queries: the record, or a selector over it.
	Expr string `json:"expr"`
	// Series are the input series; Expect the samples Expr yields at the evaluation time.
	Series []CaseSeries `json:"series"`
	Expect []Sample     `json:"expect"`
}

// CaseSeries is one input series of a scenario: on the scenario's GPUs, or with explicit
// labels (Extra, record cases).
type CaseSeries struct {
	// Metric is the series' name; Values its samples in promtool notation; Labels its own labels.
	Metric string            `json:"metric"`
	Values string            `json:"values"`
	Labels map[string]string `json:"labels"`
	// Entities selects, by index, which of the scenario's entities for this metric (GPUs, or
	// MIG instances, in order) carry the series; all when unset.
	Entities []int `json:"entities"`
	// WithoutPod makes the series carry no pod attribution: the pod on the GPU has exited and
	// the exporter reports the GPU as a new series.
	WithoutPod bool `json:"withoutPod"`
	// Histogram, when set, makes this entry the series of one latency histogram (Metric its
	// name, Labels their labels), written out when the catalog is decoded (HistogramSeries).
	Histogram *HistogramScenario `json:"histogram,omitempty"`
}

// HistogramScenario is a histogram for a promtool scenario, sampled once a minute from 0:
// Bounds are its bucket bounds in seconds (ascending), and each phase adds, every minute for
// its minutes, Counts[i] observations to bucket i (one more count than bounds: the last is
// above the highest bound) and Sum seconds. Whole follows a whole bound in the le label
// ('.0' as Python's client writes 1.0, ” as Go's and Rust's write 1).
type HistogramScenario struct {
	Bounds []float64        `json:"bounds"`
	Phases []HistogramPhase `json:"phases"`
	Whole  string           `json:"whole"`
}

// HistogramPhase is a stretch of a histogram scenario: what each of its minutes adds.
type HistogramPhase struct {
	Minutes int       `json:"minutes"`
	Counts  []float64 `json:"counts"`
	Sum     float64   `json:"sum"`
}

// Sample is one expected output series.
type Sample struct {
	// Labels and Value are the series' labels and its value.
	Labels map[string]string `json:"labels"`
	Value  float64           `json:"value"`
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
