//go:build bench

package bench

import (
	"fmt"
	"strings"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/promql/ruleeval"
	"github.com/gpuobs/gpuobs/internal/synth"
)

// The training fabric's shape: node_exporter (the job the infiniband and nccl sections read by
// default) reports portsPerNode InfiniBand ports a node, one HCA a GPU; a training job holds
// the pods of one namespace in a block of jobBlock GPUs (sixteen pods over many nodes: a
// multi-node job), and one rank in stragglerEvery reaches its collectives late: its peers
// wait for it, and it reads a third of their execution time.
const (
	nodeExporterJob = "node-exporter"
	portsPerNode    = gpusPerNode
	jobBlock        = 23 * 16
	stragglerEvery  = 100
)

// loadFabric adds the series the infiniband and nccl sections read to a store holding the
// fleet: every InfiniBand metric of the catalog on every node's ports; kube-state-metrics'
// owner of every pod (a training job); and the NCCL Inspector series the rules read (read, by
// name) of every pod's GPU, one rank, with the fan-out the catalog declares
// (metrics.<name>.fanout), and node_exporter's mtime of every GPU's inspector file, written
// every sample. Samples as load's.
func loadFabric(s *ruleeval.Store, m *model.Model, gpus []synth.GPU, read map[string]bool, start, step int64, samples int) error {
	seenHost := map[string]bool{}
	for _, g := range gpus {
		if !seenHost[g.Host] {
			seenHost[g.Host] = true
			if err := loadPorts(s, m, g, start, step, samples); err != nil {
				return err
			}
		}
		file := synth.Labels{m.Labels.Cluster: g.Cluster, "job": nodeExporterJob, "instance": g.Host,
			"file": "/var/lib/node_exporter/textfile_collector/nccl_inspector_metrics_" + strings.TrimPrefix(g.UUID(), "GPU-") + ".prom"}
		written := func(i int) float64 { return float64(start+int64(i)*step) / 1000 }
		if err := s.AddSeries("node_textfile_mtime_seconds", file, start, step, samples, written); err != nil {
			return err
		}
		for _, p := range g.Pods() {
			if err := loadRank(s, m, g, p, read, start, step, samples); err != nil {
				return err
			}
		}
	}
	return s.Commit()
}

// loadPorts adds a node's InfiniBand ports: active, moving a gigabyte a second, waiting a
// little for credits, counting no errors (one node in errorEvery counts symbol errors).
func loadPorts(s *ruleeval.Store, m *model.Model, g synth.GPU, start, step int64, samples int) error {
	for _, name := range model.SortedKeys(m.Metrics) {
		if m.Metrics[name].Section != "infiniband" {
			continue
		}
		value := portValues(name, g, step)
		for port := range portsPerNode {
			l := synth.Labels{m.Labels.Cluster: g.Cluster, "job": nodeExporterJob, "instance": g.Host, "device": fmt.Sprintf("mlx5_%d", port), "port": "1"}
			if err := s.AddSeries(name, l, start, step, samples, value); err != nil {
				return err
			}
		}
	}
	return nil
}

// portValues gives an InfiniBand series' samples: the port active (state 4), its byte counters
// rising a gigabyte a second, its wait counter a million ticks a second, its symbol errors ten
// a sample on one node in errorEvery, every other counter flat at 0.
func portValues(name string, g synth.GPU, step int64) func(int) float64 {
	perSample := 0.0
	switch name {
	case "node_infiniband_state_id":
		return func(int) float64 { return 4 }
	case "node_infiniband_port_data_received_bytes_total", "node_infiniband_port_data_transmitted_bytes_total":
		perSample = 1e9 * float64(step) / 1000
	case "node_infiniband_port_transmit_wait_total":
		perSample = 1e6 * float64(step) / 1000
	case "node_infiniband_symbol_error_total":
		if g.Seq%(errorEvery*gpusPerNode) == 0 {
			perSample = 10
		}
	}
	return func(i int) float64 { return perSample * float64(i) }
}

// loadRank adds a pod's owner (its namespace's training job in the GPU's block) and NCCL
// Inspector's series of its GPU: one per combination of the fanned-out labels, the
// communicators named as a framework names them (the same names in every job), each
// window's mean moving a little from dump to dump.
func loadRank(s *ruleeval.Store, m *model.Model, g synth.GPU, p *synth.Pod, read map[string]bool, start, step int64, samples int) error {
	owner := fmt.Sprintf("train-%d", g.Seq/jobBlock)
	ksm := synth.Labels{m.Labels.Cluster: g.Cluster, "job": m.KubeStateMetrics.Job, "namespace": p.Namespace, "pod": p.Name,
		"owner_kind": "PyTorchJob", "owner_name": owner, "owner_is_controller": "true", "uid": p.Name}
	if err := s.AddSeries("kube_pod_owner", ksm, start, step, samples, func(int) float64 { return 1 }); err != nil {
		return err
	}
	base := synth.Labels{m.Labels.Cluster: g.Cluster, "job": nodeExporterJob, "instance": g.Host, "node": p.Name, "gpu": "GPU0",
		"version": "v4.1", "slurm_job_id": "unknown", "n_nodes": "4", "nranks": "16", "algo_proto": "RING_LL128"}
	for _, name := range model.SortedKeys(m.Metrics) {
		fanout := m.Metrics[name].Fanout
		if len(fanout) == 0 || !read[name] {
			continue
		}
		level := 100.0 // GB/s
		if name == "nccl_collective_exec_time_microseconds" {
			level = 1000
			if g.Seq%stragglerEvery == 0 {
				level = 1000.0 / 3
			}
		}
		for _, l := range combinations(fanout, base) {
			if err := s.AddSeries(name, l, start, step, samples, func(i int) float64 { return level * (1 + 0.02*float64((i+g.Seq)%5)) }); err != nil {
				return err
			}
		}
	}
	return nil
}

// combinations lists base with every combination of the fanned-out labels' values (label-0,
// label-1, ...).
func combinations(fanout map[string]int, base synth.Labels) []synth.Labels {
	out := []synth.Labels{base}
	for _, label := range model.SortedKeys(fanout) {
		var next []synth.Labels
		for _, l := range out {
			for v := range fanout[label] {
				next = append(next, l.With(map[string]string{label: fmt.Sprintf("%s-%d", label, v)}))
			}
		}
		out = next
	}
	return out
}
