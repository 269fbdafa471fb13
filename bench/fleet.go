//go:build bench

// Package bench measures gpuobs: generation cost per rule, and the cost of evaluating the
// generated rules with Prometheus' own rule engine over a fleet shaped like dcgm-exporter's.
// Its files build only with -tags bench (make bench passes it): go test ./... neither links
// nor runs benchmarks it would not run.
package bench

import (
	"fmt"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/promql/ruleeval"
	"github.com/gpuobs/gpuobs/internal/synth"
)

// Fleet shape: 8 GPUs a node, 320 nodes a cluster, every 16th node MIG-partitioned (two
// instances a GPU), three GPUs in four held by a pod.
const (
	gpusPerNode     = 8
	nodesPerCluster = 320
	migEvery        = 16
)

// fleet builds n GPUs.
func fleet(n int) []synth.GPU {
	gpus := make([]synth.GPU, 0, n)
	for seq := 0; seq < n; seq++ {
		nodeIndex := seq / gpusPerNode
		g := synth.GPU{
			Cluster:  fmt.Sprintf("cluster-%d", nodeIndex/nodesPerCluster),
			Host:     fmt.Sprintf("gpu-node-%05d", nodeIndex),
			Instance: fmt.Sprintf("10.%d.%d.%d:9400", nodeIndex/65536, nodeIndex/256%256, nodeIndex%256),
			Index:    seq % gpusPerNode,
			Seq:      seq,
			Model:    synth.ModelName,
		}
		pod := func(i int) *synth.Pod {
			return &synth.Pod{Namespace: fmt.Sprintf("team-%d", seq%23), Name: fmt.Sprintf("job-%d-%d", seq, i), Container: "main"}
		}
		switch {
		case nodeIndex%migEvery == 0:
			g.MIG = []synth.MIGInstance{{ID: 1, Profile: "3g.40gb", Pod: pod(0)}, {ID: 2, Profile: "3g.40gb", Pod: pod(1)}}
		case seq%4 != 3:
			g.Pod = pod(0)
		}
		gpus = append(gpus, g)
	}
	return gpus
}

// collectedFields are the fields a deployment collects for these rules: the exporter's default
// counter set plus every catalog field the rule files read.
func collectedFields(m *model.Model, exprs []string) ([]string, error) {
	used := map[string]bool{}
	for name, f := range m.Fields {
		if f.Default {
			used[name] = true
		}
	}
	for _, e := range exprs {
		names, err := promql.MetricNames(e)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if _, ok := m.Fields[n]; ok {
				used[n] = true
			}
		}
	}
	return model.SortedKeys(used), nil
}

// load fills the store with the fleet's series: every used field on every entity of every
// GPU, up per exporter, and kube-state-metrics' allocation series; samples from start, step
// apart, the first being sample number first of the fleet's history (counters keep rising).
func load(s *ruleeval.Store, m *model.Model, gpus []synth.GPU, fields []string, start, step int64, first, samples int) error {
	seenUp := map[string]bool{}
	ksm := synth.Labels{"job": m.KubeStateMetrics.Job}
	for _, g := range gpus {
		for _, name := range fields {
			f := m.Fields[name]
			for _, e := range g.SeriesOf(m, name) {
				value := fieldValues(m, name, f, g, e)
				if err := s.AddSeries(name, e.Labels, start, step, samples, func(i int) float64 { return value(first + i) }); err != nil {
					return err
				}
			}
		}
		if !seenUp[g.Instance] {
			seenUp[g.Instance] = true
			if err := s.AddSeries("up", g.UpLabels(m), start, step, samples, func(int) float64 { return 1 }); err != nil {
				return err
			}
			if err := addNode(s, m, g, gpus, start, step, samples); err != nil {
				return err
			}
		}
		if m.Scheduler == model.SchedulerSlurm {
			continue // no kube-state-metrics: a job's GPUs are its hpc_job label
		}
		for _, p := range g.Pods() {
			pod := ksm.With(map[string]string{m.Labels.Cluster: g.Cluster, "namespace": p.Namespace, "pod": p.Name})
			req := pod.With(map[string]string{"container": p.Container, m.Labels.Node: g.Host, "resource": m.KubeStateMetrics.GPUResource})
			if err := s.AddSeries("kube_pod_container_resource_requests", req, start, step, samples, func(int) float64 { return 1 }); err != nil {
				return err
			}
			for _, phase := range []string{"Pending", "Running", "Succeeded", "Failed", "Unknown"} {
				v := 0.0
				if phase == "Running" {
					v = 1
				}
				if err := s.AddSeries("kube_pod_status_phase", pod.With(map[string]string{"phase": phase}), start, step, samples, func(int) float64 { return v }); err != nil {
					return err
				}
			}
		}
	}
	return s.Commit()
}

// addNode adds what the scheduler reports of g's node: kube-state-metrics' allocatable GPUs,
// or slurmctld's GPUs of the node and those its jobs hold.
func addNode(s *ruleeval.Store, m *model.Model, g synth.GPU, gpus []synth.GPU, start, step int64, samples int) error {
	constant := func(v float64) func(int) float64 { return func(int) float64 { return v } }
	if m.Scheduler != model.SchedulerSlurm {
		node := synth.Labels{"job": m.KubeStateMetrics.Job, m.Labels.Cluster: g.Cluster, m.Labels.Node: g.Host, "resource": m.KubeStateMetrics.GPUResource}
		return s.AddSeries("kube_node_status_allocatable", node, start, step, samples, constant(gpusPerNode))
	}
	held := 0
	first := g.Seq - g.Index
	for _, other := range gpus[first:min(len(gpus), first+gpusPerNode)] {
		if len(other.Pods()) > 0 {
			held++
		}
	}
	node := synth.Labels{"job": m.Slurm.Job, m.Labels.Cluster: g.Cluster, m.Slurm.NodeLabel: g.Host}
	if err := s.AddSeries("slurm_node_gpus", node, start, step, samples, constant(gpusPerNode)); err != nil {
		return err
	}
	return s.AddSeries("slurm_node_gpus_alloc", node, start, step, samples, constant(float64(held)))
}

// slurmJobs makes the fleet's pods Slurm jobs: a node's whole GPUs held by one job, each MIG
// instance by its own.
func slurmJobs(gpus []synth.GPU) {
	for i := range gpus {
		node := gpus[i].Seq / gpusPerNode
		for j, p := range gpus[i].Pods() {
			p.Name = fmt.Sprint(4_000_000 + 4*node + j)
		}
	}
}

// Shares of an unhealthy fleet: error counters rise on one GPU in errorEvery, one GPU in
// throttleEvery has a throttle reason set; the others count nothing and are idle-or-busy.
const (
	errorEvery    = 100
	throttleEvery = 16
)

// fieldValues gives each field plausible samples: gauges wobble around a healthy value, usage
// counters rise, error counters rise on a few GPUs only, flags and XIDs stay 0, and the bitmask
// shows a real throttle reason on a few GPUs.
func fieldValues(m *model.Model, name string, f model.Field, g synth.GPU, e synth.Entity) func(int) float64 {
	switch {
	case name == m.Exporter.ThrottleReasonsField:
		v := 0.0
		if g.Seq%throttleEvery == 0 {
			v = float64(synth.ThrottleReasons(g))
		}
		return func(int) float64 { return v }
	case f.Kind == model.KindCounter && f.Unit == "count" && g.Seq%errorEvery != 0:
		return func(int) float64 { return 3 }
	case f.Kind == model.KindCounter:
		inc := synth.CounterIncrease(f, g, e)
		return func(i int) float64 { return inc * float64(i) }
	case f.Kind == model.KindFlag || f.Kind == model.KindLastEvent || f.Kind == model.KindLifetime || f.Family == "xid":
		return func(int) float64 { return 0 }
	default:
		v := synth.GaugeValue(m, f, g, e)
		return func(i int) float64 { return v * (1 + 0.02*float64((i+g.Seq)%5)) }
	}
}
