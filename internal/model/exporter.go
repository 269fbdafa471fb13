package model

import (
	"slices"
	"strings"
)

// Exporter describes how dcgm-exporter is deployed and scraped.
type Exporter struct {
	// Version is the dcgm-exporter version profile (4.8.2, 4.8.3, 4.9, 4.10).
	Version string `json:"version"`
	// Platform names the GPU platform profile (hgx, gb200): the fields only its GPUs report,
	// which the catalog, the counter file and the alerts then read.
	Platform string `json:"platform"`
	// Job is the Prometheus job of the dcgm-exporter targets.
	Job string `json:"job"`
	// HostLabel is the label naming the host (Hostname or hostname, by version).
	HostLabel string `json:"hostLabel"`
	// OwnPodTargets matches a series to its own scrape target's up series by the pod labels
	// ("on (cluster, instance, namespace, pod) up"): a series whose pod is its target's own
	// (the exporter's, on a GPU no pod holds or wherever the target's labels win) is no
	// workload's.
	OwnPodTargets string `json:"ownPodTargets"`
	// TargetPodLabels name the scrape target's own namespace, pod and container on its up
	// series.
	TargetPodLabels []string `json:"targetPodLabels"`
	// WorkloadTemplate and AttributedTemplate are the catalog's exporter.workload() and
	// exporter.attributed() of "<series>" (see Workload and Attributed).
	WorkloadTemplate   string `json:"workloadTemplate"`
	AttributedTemplate string `json:"attributedTemplate"`
	// HealthTemplate is the catalog's exporter.health() of "<matchers>" (see Health).
	HealthTemplate string `json:"healthTemplate"`
	// UnattributedHealth selects the health series (Health) that no workload's pod holds.
	UnattributedHealth string `json:"unattributedHealth"`
	// ThrottleReasonsField is the clock-event bitmask field the exporter collects.
	ThrottleReasonsField string `json:"throttleReasonsField"`
	// HealthFields are default-collected fields that tell a GPU (or MIG instance) is there,
	// read in turn: a GPU is present while it sends any of them (a vGPU guest sends no
	// temperature), gone when it sends none. The first is what scenarios send.
	HealthFields []string `json:"healthFields"`
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
	// FieldRenames are the fields dcgm-exporter renamed, by the version that renamed them
	// (name before -> name after): lint maps a name of the other side to the catalog's.
	FieldRenames map[string]map[string]string `json:"fieldRenames"`
	// Managed is the cloud that runs the exporter for the team (gke, aks), or "".
	Managed string `json:"managed"`
	// ManagedFields are the fields a managed exporter sends; nil where the exporter reads a
	// counter file (the team's, or its default set).
	ManagedFields []string `json:"managedFields"`
	// Deployed, when set (gpuobs lint --exporter-counters), is the counter file actually
	// deployed: it replaces the default set and ExtraCounters.
	Deployed map[string]bool `json:"-"`
}

// Collected reports whether the exporter's counter set collects a field.
func (m *Model) Collected(field string) bool {
	if m.Exporter.Deployed != nil {
		return m.Exporter.Deployed[field]
	}
	if m.Exporter.ManagedFields != nil {
		return slices.Contains(m.Exporter.ManagedFields, field)
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

// RenamedField is a name dcgm-exporter gives a field of the catalog in another version: the
// catalog's name, the version that renamed it, and whether Name is the name before it.
type RenamedField struct {
	Catalog, Version string
	Before           bool
}

// OtherVersionName reports whether name is the name dcgm-exporter gives a field of the
// catalog in another version (exporter.fieldRenames) than the catalog's, and which.
func (m *Model) OtherVersionName(name string) (RenamedField, bool) {
	for _, version := range SortedKeys(m.Exporter.FieldRenames) {
		for before, after := range m.Exporter.FieldRenames[version] {
			if _, ok := m.Fields[after]; ok && name == before {
				return RenamedField{Catalog: after, Version: version, Before: true}, true
			}
			if _, ok := m.Fields[before]; ok && name == after {
				return RenamedField{Catalog: before, Version: version}, true
			}
		}
	}
	return RenamedField{}, false
}

// Health selects the series of the health fields, each GPU's (or MIG instance's) first that
// it sends, with matchers (a selector's inside, or "") on each: the catalog's
// exporter.health(), whose template HealthTemplate is.
func (e Exporter) Health(matchers string) string {
	if matchers == "" {
		return strings.ReplaceAll(e.HealthTemplate, "{<matchers>}", "")
	}
	return strings.ReplaceAll(e.HealthTemplate, "<matchers>", matchers)
}

// Workload copies, on the series of an expression over the exporter's series, the workload's
// pod from the labels a scrape renamed it to (exported_*) to the labels the catalog reads it by.
func (e Exporter) Workload(series string) string {
	return strings.ReplaceAll(e.WorkloadTemplate, seriesPiece, series)
}

// Attributed keeps the series of an expression over the exporter's series that a workload's
// pod holds, the pod where the catalog reads it: not the ones whose pod labels are their
// exporter target's own.
func (e Exporter) Attributed(series string) string {
	return strings.ReplaceAll(e.AttributedTemplate, seriesPiece, series)
}

// seriesPiece stands for the expression in WorkloadTemplate and AttributedTemplate.
const seriesPiece = "<series>"
