package model

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
	// GroupWait is how long a new group waits for more alerts before its first notification.
	GroupWait string `json:"groupWait"`
	// GroupInterval is how long a group waits before notifying of alerts added to it.
	GroupInterval string `json:"groupInterval"`
	// RepeatInterval is how long before a notification still firing is sent again.
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
	// ExportersDownInCluster silences, in its cluster, ExporterDown and LabelMismatchTargets
	// (the tickets of GPUs and nodes read as missing): most exporters down at once is one ticket.
	ExportersDownInCluster string `json:"exportersDownInCluster"`
}
