// Package synth builds synthetic GPUs whose series carry exactly the labels dcgm-exporter
// sets, as configured in the catalog's label profile: identity, pod attribution, MIG.
package synth

import (
	"cmp"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuobs/gpuobs/internal/model"
)

// Labels is one series' label set (without the metric name).
type Labels map[string]string

// Series renders metric{labels} with sorted label names, as promtool and the text format read it.
func Series(metric string, l Labels) string {
	keys := make([]string, 0, len(l))
	for k := range l {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(metric)
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(strconv.Quote(l[k]))
	}
	b.WriteByte('}')
	return b.String()
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
	MIG    []MIGInstance
}

// Default identity values of synthetic GPUs.
const (
	ExporterJob   = "dcgm-exporter"
	ModelName     = "NVIDIA H100 80GB HBM3"
	DriverVersion = "550.90.07"
)

// UUID is the GPU's deterministic UUID.
func (g GPU) UUID() string {
	return fmt.Sprintf("GPU-%08x-%04x-4%03x-8000-%012x", uint32(g.Seq)*2654435761, g.Seq&0xffff, g.Seq&0xfff, g.Seq)
}

// Slots is how many schedulable GPU resources the GPU offers: its MIG instances, or one.
func (g GPU) Slots() int {
	if len(g.MIG) > 0 {
		return len(g.MIG)
	}
	return 1
}

// base holds the labels every series of the GPU carries.
func (g GPU) base(m *model.Model) Labels {
	l := m.Labels
	out := Labels{
		l.Cluster:       g.Cluster,
		l.Host:          g.Host,
		l.GPU:           fmt.Sprint(g.Index),
		l.UUID:          g.UUID(),
		l.PCIBusID:      fmt.Sprintf("00000000:%02X:00.0", 0x18+g.Index*0x10),
		l.Device:        fmt.Sprintf("nvidia%d", g.Index),
		l.ModelName:     g.Model,
		l.DriverVersion: cmp.Or(g.Driver, DriverVersion),
		"job":           m.Exporter.Job,
		"instance":      g.Instance,
	}
	if !m.Exporter.HonorLabels {
		// With honorLabels: false the target's own pod labels win: they name the exporter.
		out["namespace"] = "gpu-operator"
		out["pod"] = "nvidia-dcgm-exporter-" + g.Host
		out["container"] = "nvidia-dcgm-exporter"
	}
	return out
}

func withPod(m *model.Model, l Labels, p *Pod) Labels {
	if p == nil {
		return l
	}
	return l.With(map[string]string{m.Labels.Namespace: p.Namespace, m.Labels.Pod: p.Name, m.Labels.Container: p.Container})
}

// Entity is one reporting entity of a GPU: the whole GPU, or one MIG instance.
type Entity struct {
	Labels Labels
	// MIG is the instance, or nil for a whole GPU.
	MIG *MIGInstance
}

// Entities returns the series label sets that a field of the given entity level has on this
// GPU: one for a whole GPU; one per instance on a MIG GPU; none for GPU-only fields on MIG.
func (g GPU) Entities(m *model.Model, entity model.Entity) []Entity {
	base := g.base(m)
	if len(g.MIG) == 0 {
		return []Entity{{Labels: withPod(m, base, g.Pod)}}
	}
	if entity == model.EntityGPU {
		return nil
	}
	out := make([]Entity, len(g.MIG))
	for i := range g.MIG {
		mi := &g.MIG[i]
		l := base.With(map[string]string{m.Labels.MIGInstance: fmt.Sprint(mi.ID), m.Labels.MIGProfile: mi.Profile})
		out[i] = Entity{Labels: withPod(m, l, mi.Pod), MIG: mi}
	}
	return out
}

// WithoutPod is the entity's label set once its pod has exited: the same series without pod
// attribution.
func (e Entity) WithoutPod(m *model.Model) Labels {
	out := e.Labels.With(nil)
	delete(out, m.Labels.Namespace)
	delete(out, m.Labels.Pod)
	delete(out, m.Labels.Container)
	return out
}

// WithoutPod is the GPU's whole-GPU label set without pod attribution.
func (g GPU) WithoutPod(m *model.Model) Labels { return g.base(m) }

// UpLabels are the labels of the exporter target's up series.
func (g GPU) UpLabels(m *model.Model) Labels {
	return Labels{m.Labels.Cluster: g.Cluster, "job": m.Exporter.Job, "instance": g.Instance}
}

// Pods lists every pod holding this GPU or one of its instances.
func (g GPU) Pods() []*Pod {
	if len(g.MIG) == 0 {
		if g.Pod == nil {
			return nil
		}
		return []*Pod{g.Pod}
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
