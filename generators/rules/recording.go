package rules

import (
	"fmt"
	"strings"

	"github.com/gpuobs/gpuobs/internal/conventions"
	"github.com/gpuobs/gpuobs/internal/model"
)

// Recorded is one generated recording rule, with what it means.
type Recorded struct {
	Name   string
	Expr   string
	Family string
	Level  string
	// Signal is set for rules derived from a signal.
	Signal *Signal
	// FromCatalog marks rules declared in the catalog's records; alert scenarios test them.
	FromCatalog bool
}

func by(labels ...string) string { return "by (" + strings.Join(labels, ", ") + ")" }

// signalRules records one signal at every level. Averages are taken over GPUs at each level
// (never an average of averages); sums and maxima build on the level below, which is cheaper.
func signalRules(m *model.Model, s Signal) []Recorded {
	l := m.Labels
	window := m.Recording.RateWindow
	gpuAgg, upAgg := s.gpuAggregation(), s.upAggregation()
	gpuName := conventions.RecordName(conventions.LevelGPU, s.Name, s.operation(gpuAgg, window))
	name := func(level string) string {
		return conventions.RecordName(level, s.Name, s.operation(upAgg, window))
	}
	// Namespace attribution reads the pod-attributed raw series. A device-level value repeated
	// on every MIG instance would be counted once per instance, so only whole GPUs count there.
	nsMatchers := []string{fmt.Sprintf(`%s!=""`, l.Namespace)}
	if s.Entity == model.EntityMIGRepeated {
		nsMatchers = append(nsMatchers, fmt.Sprintf(`%s=""`, l.MIGInstance))
	}
	clusterFrom, fleetFrom := name(conventions.LevelNode), name(conventions.LevelCluster)
	if upAgg == model.RollupAvg {
		clusterFrom, fleetFrom = gpuName, gpuName
	}
	sig := s
	rule := func(level, name, expr string) Recorded {
		return Recorded{Name: name, Expr: expr, Family: s.Family, Level: level, Signal: &sig}
	}
	out := []Recorded{
		rule(conventions.LevelGPU, gpuName, fmt.Sprintf("%s %s (%s)", gpuAgg, by(m.Identity.GPU...), s.source(window))),
		rule(conventions.LevelNode, name(conventions.LevelNode), fmt.Sprintf("%s %s (%s)", upAgg, by(l.Cluster, l.Host), gpuName)),
	}
	if s.ByNamespace {
		// A second read of the raw series: only for what workloads use.
		out = append(out, rule(conventions.LevelNamespace, name(conventions.LevelNamespace), fmt.Sprintf("%s %s (%s)", upAgg, by(l.Cluster, l.Namespace), s.source(window, nsMatchers...))))
	}
	return append(out,
		rule(conventions.LevelCluster, name(conventions.LevelCluster), fmt.Sprintf("%s %s (%s)", upAgg, by(l.Cluster), clusterFrom)),
		rule(conventions.LevelFleet, name(conventions.LevelFleet), fmt.Sprintf("%s (%s)", upAgg, fleetFrom)),
	)
}

// Allocation signal names, shared with the tests that check them.
const (
	AllocatableSignal = "kube_gpu_allocatable"
	RequestedSignal   = "kube_gpu_requested"
	AllocationSignal  = "kube_gpu_allocation"
	ReportingSignal   = "dcgm_gpus_reporting"
	AttributedSignal  = "dcgm_gpus_attributed"
	allocationFamily  = "allocation"
)

// allocationRules record GPUs allocatable and requested by pods (kube-state-metrics) next to
// the GPUs that dcgm-exporter sees and the ones it attributes to pods.
func allocationRules(m *model.Model) []Recorded {
	l, ksm := m.Labels, m.KubeStateMetrics
	rec := func(level, signal, op string) string { return conventions.RecordName(level, signal, op) }
	allocatable := fmt.Sprintf(`kube_node_status_allocatable{job="%s", resource="%s"}`, ksm.Job, ksm.GPUResource)
	// Requests count while the pod is scheduled and Pending or Running: kube-state-metrics
	// keeps exposing the requests of completed pods.
	requested := fmt.Sprintf(`kube_pod_container_resource_requests{job="%[1]s", resource="%[2]s", %[3]s!=""}
  * on (%[4]s, namespace, pod) group_left ()
  max by (%[4]s, namespace, pod) (kube_pod_status_phase{job="%[1]s", phase=~"Pending|Running"} == 1)`, ksm.Job, ksm.GPUResource, l.Node, l.Cluster)
	gpus := fmt.Sprintf("group %s (%s)", by(m.Identity.GPUJoin...), m.Exporter.HealthField)
	out := []Recorded{
		{Level: conventions.LevelNode, Name: rec(conventions.LevelNode, AllocatableSignal, "sum"), Expr: fmt.Sprintf("sum %s (%s)", by(l.Cluster, l.Node), allocatable)},
		{Level: conventions.LevelCluster, Name: rec(conventions.LevelCluster, AllocatableSignal, "sum"), Expr: fmt.Sprintf("sum %s (%s)", by(l.Cluster), rec(conventions.LevelNode, AllocatableSignal, "sum"))},
		{Level: conventions.LevelFleet, Name: rec(conventions.LevelFleet, AllocatableSignal, "sum"), Expr: fmt.Sprintf("sum (%s)", rec(conventions.LevelCluster, AllocatableSignal, "sum"))},
		{Level: conventions.LevelNode, Name: rec(conventions.LevelNode, RequestedSignal, "sum"), Expr: fmt.Sprintf("sum %s (%s)", by(l.Cluster, l.Node), requested)},
		{Level: conventions.LevelNamespace, Name: rec(conventions.LevelNamespace, RequestedSignal, "sum"), Expr: fmt.Sprintf("sum %s (%s)", by(l.Cluster, "namespace"), requested)},
		{Level: conventions.LevelCluster, Name: rec(conventions.LevelCluster, RequestedSignal, "sum"), Expr: fmt.Sprintf("sum %s (%s)", by(l.Cluster), rec(conventions.LevelNode, RequestedSignal, "sum"))},
		{Level: conventions.LevelFleet, Name: rec(conventions.LevelFleet, RequestedSignal, "sum"), Expr: fmt.Sprintf("sum (%s)", rec(conventions.LevelCluster, RequestedSignal, "sum"))},
	}
	for _, level := range []string{conventions.LevelNode, conventions.LevelCluster, conventions.LevelFleet} {
		out = append(out, Recorded{Level: level, Name: rec(level, AllocationSignal, "ratio"),
			Expr: fmt.Sprintf("%s / %s", rec(level, RequestedSignal, "sum"), rec(level, AllocatableSignal, "sum"))})
	}
	out = append(out,
		Recorded{Level: conventions.LevelCluster, Name: rec(conventions.LevelCluster, ReportingSignal, "count"), Expr: fmt.Sprintf("count %s (%s)", by(l.Cluster), gpus)},
		Recorded{Level: conventions.LevelFleet, Name: rec(conventions.LevelFleet, ReportingSignal, "count"), Expr: fmt.Sprintf("sum (%s)", rec(conventions.LevelCluster, ReportingSignal, "count"))},
		Recorded{Level: conventions.LevelNamespace, Name: rec(conventions.LevelNamespace, AttributedSignal, "count"),
			Expr: fmt.Sprintf(`count %s (group %s (%s{%s!=""}))`, by(l.Cluster, l.Namespace), by(append(append([]string{}, m.Identity.GPUJoin...), l.Namespace)...), m.Exporter.HealthField, l.Namespace)},
	)
	for i := range out {
		out[i].Family = allocationFamily
	}
	return out
}
