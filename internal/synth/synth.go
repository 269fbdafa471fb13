// Package synth builds synthetic GPUs whose series carry exactly the labels dcgm-exporter
// sets, as configured in the catalog's label profile: identity, pod attribution, MIG.
package synth

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuobs/gpuobs/internal/model"
)

// Labels is one series' label set (without the metric name).
type Labels map[string]string

// Series renders metric{labels} with sorted label names, as promtool and the text format read it.
func Series(metric string, l Labels) string { return metric + l.Matchers() }

// Matchers renders the labels as a series selector's braces, names sorted: {a="1", b="2"}.
func (l Labels) Matchers() string {
	keys := make([]string, 0, len(l))
	size := 2
	for k, v := range l {
		keys = append(keys, k)
		size += len(k) + len(v) + 5
	}
	sort.Strings(keys)
	b := make([]byte, 0, size)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, k...)
		b = append(b, '=')
		b = appendQuoted(b, l[k])
	}
	return string(append(b, '}'))
}

// appendQuoted is strconv.AppendQuote, which looks up every rune in Unicode's printable
// tables, with a way round them for the values scenarios have: printable ASCII without a
// quote or a backslash, which quotes as it is.
func appendQuoted(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c > '~' || c == '"' || c == '\\' {
			return strconv.AppendQuote(b, s)
		}
	}
	return append(append(append(b, '"'), s...), '"')
}

// Project keeps the named labels that are set.
func (l Labels) Project(names []string) Labels {
	out := Labels{}
	for _, n := range names {
		if v, ok := l[n]; ok && v != "" {
			out[n] = v
		}
	}
	return out
}

// With returns a copy of l with extra labels.
func (l Labels) With(extra map[string]string) Labels {
	out := make(Labels, len(l)+len(extra))
	for k, v := range l {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// Pod is a workload holding a GPU or a MIG instance.
type Pod struct {
	Namespace, Name, Container string
}

// MIGInstance is one GPU instance of a MIG-enabled GPU.
type MIGInstance struct {
	ID      int
	Profile string
	Pod     *Pod
}

// GPU is one synthetic GPU on one host.
type GPU struct {
	Cluster string
	Host    string
	// Instance is the exporter's scrape target.
	Instance string
	Index    int
	// Seq numbers the GPU fleet-wide; UUID and bus id derive from it.
	Seq   int
	Model string
	// Driver is the driver version; DriverVersion when empty.
	Driver string
	Pod    *Pod
	// Shared are the pods that time-slice the whole GPU with Pod (the device plugin's
	// replicas). The exporter attributes the GPU to Pod alone, unless it runs with
	// --kubernetes-virtual-gpus (exporter.virtualGPUs): then every pod gets its series.
	Shared []*Pod
	MIG    []MIGInstance
}

// VGPULabel is dcgm-exporter's label for the time-slicing replica a pod was given, under
// --kubernetes-virtual-gpus.
const VGPULabel = "vgpu"

// Default identity values of synthetic GPUs.
const (
	ExporterJob   = "dcgm-exporter"
	ModelName     = "NVIDIA H100 80GB HBM3"
	DriverVersion = "550.90.07"
)

// UUID is the GPU's deterministic UUID: GPU-%08x-%04x-4%03x-8000-%012x of the Seq hashed,
// its low 16 bits, its low 12 bits and itself (Seq is never negative). Written without fmt:
// the promtool tests ask for it for every series of every scenario's GPUs.
func (g GPU) UUID() string {
	b := make([]byte, 0, 40)
	b = appendHex(append(b, "GPU-"...), uint64(uint32(g.Seq)*2654435761), 8)
	b = appendHex(append(b, '-'), uint64(g.Seq&0xffff), 4)
	b = appendHex(append(b, "-4"...), uint64(g.Seq&0xfff), 3)
	b = appendHex(append(b, "-8000-"...), uint64(g.Seq), 12)
	return string(b)
}

// PCIBusID is the GPU's PCI bus id, 00000000:%02X:00.0 of 0x18 + 0x10 a GPU index.
func (g GPU) PCIBusID() string {
	return "00000000:" + strings.ToUpper(string(appendHex(nil, uint64(0x18+g.Index*0x10), 2))) + ":00.0"
}

// appendHex appends v in lowercase hexadecimal, zero-padded to width digits.
func appendHex(b []byte, v uint64, width int) []byte {
	var digits [16]byte
	hex := strconv.AppendUint(digits[:0], v, 16)
	for range width - len(hex) {
		b = append(b, '0')
	}
	return append(b, hex...)
}

// Slots is how many schedulable GPU resources the GPU offers: its MIG instances, or one,
// times the device plugin's time-slicing replicas.
func (g GPU) Slots(m *model.Model) int {
	if len(g.MIG) > 0 {
		return len(g.MIG) * m.Sharing.Replicas
	}
	return m.Sharing.Replicas
}

// base holds the labels every series of the GPU carries.
func (g GPU) base(m *model.Model) Labels {
	l := m.Labels
	// Room for the pod's and a MIG instance's labels: Entities adds them in place.
	out := make(Labels, 20)
	out[l.Cluster] = g.Cluster
	out[l.Host] = g.Host
	out[l.GPU] = strconv.Itoa(g.Index)
	out[l.UUID] = g.UUID()
	out[l.PCIBusID] = g.PCIBusID()
	out[l.Device] = "nvidia" + strconv.Itoa(g.Index)
	out[l.ModelName] = g.Model
	out[l.DriverVersion] = cmp.Or(g.Driver, DriverVersion)
	out["job"] = m.Exporter.Job
	out["instance"] = g.Instance
	addExporterPod(out, m, g.Host)
	return out
}

// TargetPod is the exporter target's own pod, as its up series and the GPU series carry it.
func (g GPU) TargetPod(m *model.Model) Labels { return exporterPod(m, g.Host) }

// TargetPod is the pod of the exporter target that reports the entity.
func (e Entity) TargetPod(m *model.Model) Labels { return exporterPod(m, e.Labels[m.Labels.Host]) }

// exporterPod holds the scrape target's own pod labels (exporter.targetPodLabels) as the
// exporter's series carry them: with honorLabels: false they win over the exporter's (which
// arrive as exported_*); with honorLabels: true they fill in where the exporter sends none, on
// every GPU no pod holds (the GPU Operator's ServiceMonitor).
func exporterPod(m *model.Model, host string) Labels {
	l := Labels{}
	addExporterPod(l, m, host)
	return l
}

// addExporterPod sets exporterPod's labels in l: none where the exporter is scraped as a
// host (a Slurm fleet's).
func addExporterPod(l Labels, m *model.Model, host string) {
	names := m.Exporter.TargetPodLabels
	if len(names) == 3 {
		l[names[0]], l[names[1]], l[names[2]] = "gpu-operator", "nvidia-dcgm-exporter-"+host, "nvidia-dcgm-exporter"
	}
}

// withPod is l with the pod's labels, a copy; l itself when there is no pod.
func withPod(m *model.Model, l Labels, p *Pod) Labels {
	if p == nil {
		return l
	}
	return addPod(maps.Clone(l), m, p)
}

// addPod sets the pod's labels in l, and returns it; on a Slurm fleet, the pod is a job, its
// name the job's id in the job label (hpc_job).
func addPod(l Labels, m *model.Model, p *Pod) Labels {
	switch {
	case p == nil:
	case m.Scheduler == model.SchedulerSlurm:
		l[m.Labels.Job] = p.Name
	default:
		l[m.Labels.Namespace], l[m.Labels.Pod], l[m.Labels.Container] = p.Namespace, p.Name, p.Container
	}
	return l
}

// Entity is one reporting entity of a GPU: the whole GPU, or one MIG instance, as one pod
// sees it when the exporter copies a shared GPU's series to every pod.
type Entity struct {
	Labels Labels
	// MIG is the instance, or nil for a whole GPU.
	MIG *MIGInstance
	// Part is the part of the device's value the series holds: 1, or 1/n for the series of
	// one of n pods that reports its own processes' value (a per-process field under virtual
	// GPUs).
	Part float64
	// Holders is how many pods' series report this GPU or instance.
	Holders int
	// Pod is the workload's pod the series belongs to, nil where none holds it (the series
	// then carries no pod labels, or its exporter target's own).
	Pod *Pod
}

// Entities returns the series label sets that a field of the given entity level has on this
// GPU: one for a whole GPU (one per pod when the exporter copies a time-sliced GPU to each of
// its pods); one per instance on a MIG GPU; none for GPU-only fields on MIG.
func (g GPU) Entities(m *model.Model, entity model.Entity) []Entity {
	base := g.base(m)
	if len(g.MIG) == 0 {
		if !m.Exporter.VirtualGPUs || len(g.Shared) == 0 {
			return []Entity{{Labels: addPod(base, m, g.Pod), Part: 1, Holders: 1, Pod: g.Pod}}
		}
		pods := g.Pods()
		out := make([]Entity, len(pods))
		for i, p := range pods {
			out[i] = Entity{Labels: withPod(m, base, p).With(map[string]string{VGPULabel: fmt.Sprint(i)}), Part: 1, Holders: len(pods), Pod: p}
		}
		return out
	}
	if entity == model.EntityGPU {
		return nil
	}
	out := make([]Entity, len(g.MIG))
	for i := range g.MIG {
		mi := &g.MIG[i]
		l := base.With(map[string]string{m.Labels.MIGInstance: fmt.Sprint(mi.ID), m.Labels.MIGProfile: mi.Profile})
		out[i] = Entity{Labels: withPod(m, l, mi.Pod), MIG: mi, Part: 1, Holders: 1, Pod: mi.Pod}
	}
	return out
}

// SeriesOf returns the entities a metric's series are reported for: Entities of its level,
// and under virtual GPUs, for a per-process field on a GPU or instance that pods hold, the
// device's own series without pod labels next to one series per pod holding its part.
func (g GPU) SeriesOf(m *model.Model, metric string) []Entity {
	entities := g.Entities(m, EntityOf(m, metric))
	if !m.Exporter.VirtualGPUs || !slices.Contains(m.Exporter.PerProcessFields, metric) {
		return entities
	}
	var out []Entity
	devices := map[*MIGInstance]bool{} // the GPU or instances whose device series is out
	for _, e := range entities {
		if e.Pod == nil {
			out = append(out, e) // no pod: the device's series alone
			continue
		}
		if !devices[e.MIG] {
			devices[e.MIG] = true
			device := e
			device.Labels = e.WithoutPod(m)
			device.Pod = nil
			delete(device.Labels, VGPULabel)
			out = append(out, device)
		}
		e.Part = 1 / float64(e.Holders)
		out = append(out, e)
	}
	return out
}

// Share is the share of its GPU that the pod of an entity holds: the MIG instance's profile
// weight (1/n of the GPU for a profile the catalog lacks), or 1 for a whole GPU, split among
// the pods whose series report it.
func (g GPU) Share(m *model.Model, e Entity) float64 {
	weight := 1.0
	if e.MIG != nil {
		w, ok := m.Sharing.MIGProfileWeights[e.MIG.Profile]
		if !ok {
			w = 1 / float64(len(g.MIG))
		}
		weight = w
	}
	return weight / float64(e.Holders)
}

// WithoutPod is the entity's label set once its pod has exited: the same series without pod
// attribution.
func (e Entity) WithoutPod(m *model.Model) Labels {
	return e.withoutPodLabels(m).With(e.TargetPod(m))
}

func (e Entity) withoutPodLabels(m *model.Model) Labels {
	out := e.Labels.With(nil)
	for _, name := range []string{m.Labels.Namespace, m.Labels.Pod, m.Labels.Container, m.Labels.Job} {
		delete(out, name)
	}
	return out
}

// Attribution is the entity's label set as attribution reads it: without pod labels where no
// workload's pod holds it.
func (e Entity) Attribution(m *model.Model) Labels {
	if e.Pod != nil {
		return e.Labels
	}
	return e.withoutPodLabels(m)
}

// WithoutPod is the GPU's whole-GPU label set without pod attribution.
func (g GPU) WithoutPod(m *model.Model) Labels { return g.base(m) }

// UpLabels are the labels of the exporter target's up series.
func (g GPU) UpLabels(m *model.Model) Labels {
	return Labels{m.Labels.Cluster: g.Cluster, "job": m.Exporter.Job, "instance": g.Instance}.With(g.TargetPod(m))
}

// Pods lists every pod holding this GPU or one of its instances.
func (g GPU) Pods() []*Pod {
	if len(g.MIG) == 0 {
		if g.Pod == nil {
			return nil
		}
		return append([]*Pod{g.Pod}, g.Shared...)
	}
	var out []*Pod
	for _, mi := range g.MIG {
		if mi.Pod != nil {
			out = append(out, mi.Pod)
		}
	}
	return out
}

// EntityOf is the entity level of a metric: the catalog field's, or mig-repeated for
// series that are not catalog fields.
func EntityOf(m *model.Model, metric string) model.Entity {
	if f, ok := m.Fields[metric]; ok {
		return f.Entity
	}
	return model.EntityMIGRepeated
}
