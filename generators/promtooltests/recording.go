package promtooltests

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gpuobs/gpuobs/internal/conventions"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/synth"
)

// kubePod is a pod as kube-state-metrics reports it.
type kubePod struct {
	cluster, node string // node is empty while unscheduled
	pod           synth.Pod
	phase         string
	// device is the device NVIDIA's DRA driver names for what the pod holds (gpu-0, or a
	// MIG device gpu-0-mig-<profile>-<start>-<size>), and share the part of a GPU it is.
	device string
	share  float64
}

// migSlices are the memory slices (of plan.DRAMemorySlices) a MIG profile's placement takes.
var migSlices = map[string]int{"1g.10gb": 1, "2g.20gb": 2, "3g.40gb": 4, "4g.40gb": 4, "7g.80gb": 8}

// draCluster is the cluster whose nodes hand GPUs out through DRA in a mixed fleet (every
// cluster under dra): the one with the MIG GPU and a pod scheduled but still Pending.
const draCluster = "prod-a"

// viaDRA reports whether the nodes of cluster hand GPUs out through DRA.
func viaDRA(m *model.Model, cluster string) bool {
	return m.Kubernetes.GPUAllocation == model.AllocationDRA || (m.Kubernetes.GPUAllocation == model.AllocationMixed && cluster == draCluster)
}

// recordingFleet is a small fleet of two clusters: whole GPUs held by pods, an idle GPU and a
// MIG GPU whose two instances belong to two namespaces; where the device plugin time-slices
// (sharing.replicas), a GPU that pods of two namespaces share.
func recordingFleet(m *model.Model) []synth.GPU {
	pod := func(ns, name string) *synth.Pod { return &synth.Pod{Namespace: ns, Name: name, Container: "main"} }
	var shared []synth.GPU
	if m.Sharing.Replicas > 1 {
		shared = append(shared, synth.GPU{Cluster: "prod-b", Host: "host-b2", Instance: "10.0.2.2:9400", Index: 0, Seq: 6, Model: synth.ModelName,
			Pod: pod("team-a", "notebook-1"), Shared: []*synth.Pod{pod("team-b", "notebook-2")}})
	}
	return append(shared, []synth.GPU{
		{Cluster: "prod-a", Host: "host-a1", Instance: "10.0.1.1:9400", Index: 0, Seq: 0, Model: synth.ModelName, Pod: pod("team-a", "train-0")},
		{Cluster: "prod-a", Host: "host-a1", Instance: "10.0.1.1:9400", Index: 1, Seq: 1, Model: synth.ModelName},
		{Cluster: "prod-a", Host: "host-a2", Instance: "10.0.1.2:9400", Index: 0, Seq: 2, Model: synth.ModelName,
			MIG: []synth.MIGInstance{{ID: 1, Profile: "3g.40gb", Pod: pod("team-a", "infer-0")}, {ID: 2, Profile: "3g.40gb", Pod: pod("team-b", "infer-1")}}},
		{Cluster: "prod-a", Host: "host-a2", Instance: "10.0.1.2:9400", Index: 1, Seq: 3, Model: synth.ModelName, Pod: pod("team-b", "train-1")},
		{Cluster: "prod-b", Host: "host-b1", Instance: "10.0.2.1:9400", Index: 0, Seq: 4, Model: synth.ModelName, Pod: pod("team-a", "train-2")},
		{Cluster: "prod-b", Host: "host-b1", Instance: "10.0.2.1:9400", Index: 1, Seq: 5, Model: synth.ModelName, Pod: pod("team-b", "notebook-0")},
	}...)
}

// kubePods are the fleet's pods plus the ones whose requests must not count: a completed pod
// (kube-state-metrics keeps its requests) and one not yet scheduled. One pod is scheduled
// and still Pending: it holds its GPU already.
func kubePods(fleet []synth.GPU) []kubePod {
	var out []kubePod
	for _, g := range fleet {
		whole := fmt.Sprintf("gpu-%d", g.Index)
		if g.Pod != nil {
			for _, p := range append([]*synth.Pod{g.Pod}, g.Shared...) {
				out = append(out, kubePod{cluster: g.Cluster, node: g.Host, pod: *p, phase: "Running", device: whole, share: 1})
			}
		}
		start := 0
		for _, mi := range g.MIG {
			size := migSlices[mi.Profile]
			if mi.Pod != nil {
				out = append(out, kubePod{cluster: g.Cluster, node: g.Host, pod: *mi.Pod, phase: "Running",
					device: fmt.Sprintf("%s-mig-%d-%d-%d", whole, mi.ID, start, size), share: float64(size) / plan.DRAMemorySlices})
			}
			start += size
		}
	}
	return append(out,
		kubePod{cluster: "prod-a", node: "host-a1", pod: synth.Pod{Namespace: "team-a", Name: "done-0", Container: "main"}, phase: "Succeeded"},
		// On host-a1's idle GPU.
		kubePod{cluster: "prod-a", node: "host-a1", pod: synth.Pod{Namespace: "team-b", Name: "starting-0", Container: "main"}, phase: "Pending", device: "gpu-1", share: 1},
		kubePod{cluster: "prod-b", pod: synth.Pod{Namespace: "team-a", Name: "unscheduled-0", Container: "main"}, phase: "Pending"},
	)
}

func (p kubePod) holdsGPU() bool {
	return p.node != "" && (p.phase == "Pending" || p.phase == "Running")
}

var podPhases = []string{"Pending", "Running", "Succeeded", "Failed", "Unknown"}

// kubeSeries are kube-state-metrics' series for the fleet.
func kubeSeries(m *model.Model, fleet []synth.GPU, pods []kubePod, steps int) []series {
	ksm := m.KubeStateMetrics
	var out []series
	for _, n := range nodes(m, fleet) {
		base := synth.Labels{m.Labels.Cluster: n.cluster, "job": ksm.Job, m.Labels.Node: n.host}
		if viaDRA(m, n.cluster) {
			out = append(out, resourceSlice(m, n, fleet, pods, steps)...)
		} else {
			out = append(out, series{Series: synth.Series("kube_node_status_allocatable", base.With(map[string]string{"resource": ksm.GPUResource, "unit": "integer"})), Values: constant(float64(n.slots), steps)})
		}
		out = append(out, series{Series: synth.Series("kube_node_status_allocatable", base.With(map[string]string{"resource": "cpu", "unit": "core"})), Values: constant(96, steps)})
	}
	for _, p := range pods {
		base := synth.Labels{m.Labels.Cluster: p.cluster, "job": ksm.Job, "namespace": p.pod.Namespace, "pod": p.pod.Name}
		switch {
		case !viaDRA(m, p.cluster):
			req := base.With(map[string]string{"container": p.pod.Container, "resource": ksm.GPUResource, "unit": "integer"})
			if p.node != "" {
				req[m.Labels.Node] = p.node
			}
			out = append(out, series{Series: synth.Series("kube_pod_container_resource_requests", req), Values: constant(1, steps)})
		case p.holdsGPU():
			// The pod's claim, allocated (a completed pod's claim is deleted with it; an
			// unscheduled pod's is not allocated yet).
			out = append(out, series{Series: synth.Series("kube_resourceclaim_allocation_device_info", synth.Labels{m.Labels.Cluster: p.cluster, "job": ksm.Job,
				"resourceclaim": p.pod.Name + "-gpu", "namespace": p.pod.Namespace, "request": "gpu", "driver": m.Kubernetes.DRADriver, "pool": p.node, "device": p.device}), Values: constant(1, steps)})
		}
		for _, phase := range podPhases {
			v := 0.0
			if phase == p.phase {
				v = 1
			}
			out = append(out, series{Series: synth.Series("kube_pod_status_phase", base.With(map[string]string{"phase": phase})), Values: constant(v, steps)})
		}
	}
	return out
}

// slurmSeries are slurmctld's own per-node GPU counts for the fleet (/metrics/nodes): each
// node's GPUs, and the GPUs its jobs hold.
func slurmSeries(m *model.Model, fleet []synth.GPU, pods []kubePod, steps int) []series {
	var out []series
	for _, n := range nodes(m, fleet) {
		base := synth.Labels{m.Labels.Cluster: n.cluster, "job": m.Slurm.Job, m.Slurm.NodeLabel: n.host}
		out = append(out,
			series{Series: synth.Series("slurm_node_gpus", base), Values: constant(float64(n.gpus), steps)},
			series{Series: synth.Series("slurm_node_gpus_alloc", base), Values: constant(float64(heldGPUs(pods, n)), steps)},
		)
	}
	return out
}

// heldGPUs is how many GPUs of node n its jobs hold, as Slurm counts them: a GPU a job (or a
// job's MIG instance) holds counts once.
func heldGPUs(pods []kubePod, n node) int {
	held := map[string]bool{}
	for _, p := range pods {
		if p.holdsGPU() && p.cluster == n.cluster && p.node == n.host {
			held[strings.SplitN(p.device, "-mig-", 2)[0]] = true
		}
	}
	return len(held)
}

// slurmRequested is the GPUs Slurm counts held by jobs, per node, summed by keep.
func slurmRequested(m *model.Model, fleet []synth.GPU, pods []kubePod, keep []string) []sample {
	var gs groups
	for _, n := range nodes(m, fleet) {
		gs.add(synth.Labels{m.Labels.Cluster: n.cluster, m.Labels.Node: n.host}.Project(keep), float64(heldGPUs(pods, n)))
	}
	return gs.samples(combiner("sum"))
}

// resourceSlice is what NVIDIA's DRA driver publishes for node n: each GPU, and the MIG
// devices of a MIG GPU, each once, beside a device of another driver that is no GPU.
func resourceSlice(m *model.Model, n node, fleet []synth.GPU, pods []kubePod, steps int) []series {
	devices := map[string]string{"nic-0": "nic.example.com"}
	for _, g := range fleet {
		if g.Cluster == n.cluster && g.Host == n.host {
			devices[fmt.Sprintf("gpu-%d", g.Index)] = m.Kubernetes.DRADriver
		}
	}
	for _, p := range pods {
		if p.cluster == n.cluster && p.node == n.host && p.device != "" {
			devices[p.device] = m.Kubernetes.DRADriver
		}
	}
	var out []series
	for _, name := range model.SortedKeys(devices) {
		out = append(out, series{Series: synth.Series("kube_resourceslice_device_info", synth.Labels{m.Labels.Cluster: n.cluster, "job": m.KubeStateMetrics.Job,
			"resourceslice": n.host + "-" + devices[name], "driver": devices[name], "pool_name": n.host, "node_name": n.host, "device_name": name}), Values: constant(1, steps)})
	}
	return out
}

type node struct {
	cluster, host string
	slots, gpus   int
}

func nodes(m *model.Model, fleet []synth.GPU) []node {
	var out []node
	index := map[string]int{}
	for _, g := range fleet {
		key := g.Cluster + "/" + g.Host
		i, ok := index[key]
		if !ok {
			i = len(out)
			index[key] = i
			out = append(out, node{cluster: g.Cluster, host: g.Host})
		}
		out[i].slots += g.Slots(m)
		out[i].gpus++
	}
	return out
}

// recordingTests checks every recording rule on the small fleet against an independent model
// of what the rule means (see expectedSamples).
func recordingTests(p *plan.Plan, steps int) testFile {
	m := p.Model
	fleet := recordingFleet(m)
	pods := kubePods(fleet)
	group := testGroup{Name: "recording rules on a two-cluster fleet with MIG and idle GPUs", Interval: m.Tests.Interval}
	seenUp := map[string]bool{}
	for _, g := range fleet {
		group.InputSeries = append(group.InputSeries, gpuSeries(m, g, steps, risingCounters, -1)...)
		if !seenUp[g.Instance] {
			seenUp[g.Instance] = true
			group.InputSeries = append(group.InputSeries, upSeries(m, g, constant(1, steps)))
		}
	}
	if m.Scheduler == model.SchedulerSlurm {
		group.InputSeries = append(group.InputSeries, slurmSeries(m, fleet, pods, steps)...)
	} else {
		group.InputSeries = append(group.InputSeries, kubeSeries(m, fleet, pods, steps)...)
	}
	byName := map[string]plan.Recorded{}
	for _, r := range p.Recorded {
		byName[r.Name] = r
	}
	for _, r := range p.Recorded {
		// A retention tier copies its record's value: the fleet's values hold still.
		source := r
		if r.TierOf != "" {
			source = byName[r.TierOf]
		}
		if source.FromCatalog {
			continue // tested through the scenarios of the alerts that read it
		}
		if r.TierOf != "" && source.Signal != nil && source.Signal.Rollup == model.RollupRate && r.Interval != m.Recording.Retention.Intervals[0] {
			continue // averages the test's first minutes, before the counter's rate window filled
		}
		var samples []sample
		if source.Signal != nil {
			samples = signalSamples(m, fleet, source, steps)
		} else {
			samples = allocationSamples(m, fleet, pods, source)
		}
		t := exprTest{Expr: r.Name, EvalTime: m.Tests.EvalTime, ExpSamples: []expSample{}}
		for _, s := range samples {
			t.ExpSamples = append(t.ExpSamples, expSample{Labels: synth.Series(r.Name, s.labels), Value: s.value})
		}
		sort.Slice(t.ExpSamples, func(i, j int) bool { return t.ExpSamples[i].Labels < t.ExpSamples[j].Labels })
		group.ExprTests = append(group.ExprTests, t)
	}
	return testFile{RuleFiles: ruleFiles(p), EvaluationInterval: m.Tests.Interval, FuzzyCompare: true, Tests: []testGroup{group}}
}

// sample is one expected output series of a recording rule.
type sample struct {
	labels synth.Labels
	value  float64
}

// groups accumulates values under label sets, keeping first-seen order.
type groups struct {
	keys   []string
	labels map[string]synth.Labels
	values map[string][]float64
}

func (g *groups) add(l synth.Labels, v float64) {
	if g.labels == nil {
		g.labels, g.values = map[string]synth.Labels{}, map[string][]float64{}
	}
	key := synth.Series("", l)
	if _, ok := g.labels[key]; !ok {
		g.keys = append(g.keys, key)
		g.labels[key] = l
	}
	g.values[key] = append(g.values[key], v)
}

func (g *groups) samples(combine func([]float64) float64) []sample {
	out := make([]sample, 0, len(g.keys))
	for _, k := range g.keys {
		out = append(out, sample{labels: g.labels[k], value: combine(g.values[k])})
	}
	return out
}

// combiner models a PromQL aggregation: avg, sum, max or count, or a rollup (a rate sums).
func combiner(rollup string) func([]float64) float64 {
	return func(vs []float64) float64 {
		if rollup == "count" {
			return float64(len(vs))
		}
		acc := vs[0]
		for _, v := range vs[1:] {
			switch rollup {
			case "max":
				if v > acc {
					acc = v
				}
			default: // sum, avg, rate
				acc += v
			}
		}
		if rollup == "avg" {
			acc /= float64(len(vs))
		}
		return acc
	}
}

// signalSamples models a signal rule: per series the field's value (a counter's per-second
// increase, a throttle flag decoded with bit operations); per GPU one value, where the series
// of one GPU or MIG instance (copies for the pods of a shared GPU, or a device's value next to
// its pods' parts) count once, by the largest, a device-level value repeated on MIG instances
// counts once and MIG-native values combine by the rollup; each level combines the GPUs it
// holds by the rule's operation (averages over GPUs, never over averages). A namespace
// combines its pods' series weighed by their share of the GPU: a weighted average, a sum of
// shares of a value repeated for every instance or pod of a GPU, or a sum of the series' own
// values. A counter's per-GPU record holds its level at the evaluation time, after steps
// increases.
func signalSamples(m *model.Model, fleet []synth.GPU, r plan.Recorded, steps int) []sample {
	s := *r.Signal
	f := m.Fields[s.Field]
	combine, combineLevel := combiner(string(s.Rollup)), combiner(r.Op)
	value := func(g synth.GPU, e synth.Entity) float64 {
		switch {
		case len(s.ThrottleBits) > 0:
			for _, b := range s.ThrottleBits {
				if synth.ThrottleReasons(g)&b != 0 {
					return 1
				}
			}
			return 0
		case f.Kind == model.KindCounter && r.Name == conventions.GPUCounter(s.Name):
			return synth.CounterIncrease(f, g, e) * float64(steps)
		case s.Rollup == model.RollupRate:
			return synth.CounterIncrease(f, g, e) / 60
		default:
			return synth.GaugeValue(m, f, g, e)
		}
	}
	if r.Level == conventions.LevelNamespace {
		return namespaceSamples(m, fleet, s.Field, r.Op, value)
	}
	var grouped groups
	for _, g := range fleet {
		series := g.SeriesOf(m, s.Field)
		if len(series) == 0 {
			continue
		}
		var slots []float64
		slotOf := map[int]int{}
		for _, e := range series {
			id := 0
			if e.MIG != nil {
				id = e.MIG.ID
			}
			i, seen := slotOf[id]
			if !seen {
				slotOf[id], slots = len(slots), append(slots, value(g, e))
				continue
			}
			slots[i] = max(slots[i], value(g, e))
		}
		gpuValue := slots[0]
		if f.Entity != model.EntityMIGRepeated {
			gpuValue = combine(slots)
		}
		keep := map[string][]string{
			conventions.LevelGPU:     m.Identity.GPU,
			conventions.LevelNode:    {m.Labels.Cluster, m.Labels.Host},
			conventions.LevelCluster: {m.Labels.Cluster},
			conventions.LevelFleet:   {},
		}[r.Level]
		grouped.add(series[0].Labels.Project(keep), gpuValue)
	}
	return grouped.samples(combineLevel)
}

// namespaceSamples models a namespace rollup over the pod-attributed series of a field.
func namespaceSamples(m *model.Model, fleet []synth.GPU, field, op string, value func(synth.GPU, synth.Entity) float64) []sample {
	l := m.Labels
	repeated := m.Fields[field].Entity == model.EntityMIGRepeated ||
		(m.Exporter.VirtualGPUs && !slices.Contains(m.Exporter.PerProcessFields, field))
	var weighted, shares groups
	for _, g := range fleet {
		for _, e := range g.SeriesOf(m, field) {
			if e.Pod == nil {
				continue
			}
			key, v, share := e.Labels.Project([]string{l.Cluster, l.Namespace}), value(g, e), g.Share(m, e)
			switch {
			case op == "avg":
				weighted.add(key, v*share)
				shares.add(key, share)
			case op == "sum" && repeated:
				weighted.add(key, v*share)
			default:
				weighted.add(key, v)
			}
		}
	}
	if op != "avg" {
		return weighted.samples(combiner(op))
	}
	out := weighted.samples(combiner("sum"))
	for i, total := range shares.samples(combiner("sum")) {
		out[i].value /= total.value
	}
	return out
}

// allocationSamples models the allocation rules from the pods and nodes themselves.
func allocationSamples(m *model.Model, fleet []synth.GPU, pods []kubePod, r plan.Recorded) []sample {
	l := m.Labels
	keep := map[string][]string{
		conventions.LevelNode:      {l.Cluster, l.Node},
		conventions.LevelNamespace: {l.Cluster, "namespace"},
		conventions.LevelCluster:   {l.Cluster},
		conventions.LevelFleet:     {},
	}[r.Level]
	sum := combiner("sum")
	// A device-plugin node offers its slots (a MIG device or a time-slicing replica each); a
	// DRA node its GPUs, a MIG device allocated as its share of the GPU.
	slurm := m.Scheduler == model.SchedulerSlurm
	allocatable := func() []sample {
		var gs groups
		for _, n := range nodes(m, fleet) {
			v := float64(n.slots)
			if viaDRA(m, n.cluster) || slurm {
				v = float64(n.gpus)
			}
			gs.add(synth.Labels{l.Cluster: n.cluster, l.Node: n.host}.Project(keep), v)
		}
		return gs.samples(sum)
	}
	requested := func() []sample {
		if slurm {
			return slurmRequested(m, fleet, pods, keep)
		}
		var gs groups
		for _, p := range pods {
			if p.holdsGPU() {
				v := 1.0
				if viaDRA(m, p.cluster) {
					v = p.share
				}
				gs.add(synth.Labels{l.Cluster: p.cluster, l.Node: p.node, "namespace": p.pod.Namespace}.Project(keep), v)
			}
		}
		return gs.samples(sum)
	}
	switch r.Name {
	case conventions.Health:
		// Each series of the first health field (the one the fleet sends), every label kept.
		var out []sample
		for _, g := range fleet {
			for _, e := range g.SeriesOf(m, m.Exporter.HealthFields[0]) {
				out = append(out, sample{labels: e.Labels, value: 1})
			}
		}
		return out
	case conventions.GPUInfo:
		var gs groups
		for _, g := range fleet {
			for _, e := range g.Entities(m, m.Fields[m.Exporter.HealthFields[0]].Entity) {
				gs.add(e.Attribution(m).Project(m.Identity.Alert), 1)
			}
		}
		return gs.samples(func([]float64) float64 { return 1 })
	case conventions.RecordName(r.Level, plan.AllocatableSignal, "sum"):
		return allocatable()
	case conventions.RecordName(r.Level, plan.RequestedSignal, "sum"):
		return requested()
	case conventions.RecordName(r.Level, plan.AllocationSignal, "ratio"):
		alloc := map[string]float64{}
		for _, s := range allocatable() {
			alloc[synth.Series("", s.labels)] = s.value
		}
		var out []sample
		for _, s := range requested() {
			out = append(out, sample{labels: s.labels, value: s.value / alloc[synth.Series("", s.labels)]})
		}
		return out
	case conventions.RecordName(r.Level, plan.ReportingSignal, "count"):
		var gs groups
		for _, g := range fleet {
			gs.add(synth.Labels{l.Cluster: g.Cluster}.Project(keep), 1)
		}
		return gs.samples(sum)
	case conventions.RecordName(r.Level, plan.AttributedSignal, "count"):
		var gs groups
		for _, g := range fleet {
			seen := map[string]bool{}
			for _, p := range g.Pods() {
				if !seen[p.Namespace] {
					seen[p.Namespace] = true
					gs.add(synth.Labels{l.Cluster: g.Cluster, l.Namespace: p.Namespace}, 1)
				}
			}
		}
		return gs.samples(sum)
	}
	panic("no model for recording rule " + r.Name)
}
