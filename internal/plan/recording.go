package plan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuobs/gpuobs/internal/conventions"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/promql"
)

// Recorded is one generated recording rule, with what it means.
type Recorded struct {
	Name string
	// Labels are static labels the rule adds.
	Labels map[string]string
	Expr   string
	// Parsed is Expr parsed, for readers that reason about it.
	Parsed *promql.Node
	Family string
	Level  string
	// Op is how the rule combines GPUs (avg, sum, max, count), for rules derived from a signal.
	Op string
	// Signal is set for rules derived from a signal.
	Signal *Signal
	// FromCatalog marks rules declared in the catalog's records; alert scenarios test them.
	FromCatalog bool
	// Comments are the catalog record's comment lines, written above the rule.
	Comments []string
	// Interval is the evaluation interval of a rule slower than recording.interval (a
	// retention tier, or a section's own: recording.sectionIntervals), and TierOf the record a
	// retention tier copies.
	Interval, TierOf string
}

func by(labels ...string) string { return "by (" + strings.Join(labels, ", ") + ")" }

// signalRules records one signal at node, namespace, cluster and fleet level.
//
// Per GPU, the series of a MIG GPU collapse first: a device-level value repeated on every MIG
// instance with max (never summed), MIG-native values by the signal's rollup. That per-GPU
// expression is recorded (gpu level) only when perGPU, because alerts or catalog records read
// it: a per-GPU copy of every signal would double the fleet's series. Otherwise node rules
// aggregate it inline from the raw series, or the raw series directly where collapsing first
// changes nothing (see needsCollapse).
//
// Sums and maxima build level on level. Averages record a node sum and count, so that every
// average (node, cluster, fleet) is over GPUs, never an average of averages.
func signalRules(m *model.Model, s Signal, perGPU bool) []Recorded {
	l := m.Labels
	window := m.Recording.RateWindow
	gpuAgg, upAgg := s.gpuAggregation(), s.upAggregation()
	name := func(level, op string) string { return conventions.RecordName(level, s.Name, s.operation(op, window)) }
	sig := s
	rule := func(level, op, expr string) Recorded {
		return Recorded{Name: name(level, op), Expr: expr, Family: s.Family, Level: level, Op: op, Signal: &sig}
	}
	var out []Recorded
	perGPUExpr := s.perGPU(m, window)
	if s.Rollup == model.RollupRate {
		// A GPU's series change identity whenever its pod exits, the exporter restarts or a MIG
		// layout changes, and an increment in the first sample of a new series is invisible to
		// rate() on the raw series. The counter of the GPU is recorded first, the largest of its
		// series whatever their pod or target labels, and every rate reads that.
		level := conventions.GPUCounter(s.Name)
		out = append(out, Recorded{Name: level, Expr: fmt.Sprintf("max %s (%s)", by(m.Identity.GPU...), s.Field), Family: s.Family, Level: conventions.LevelGPU, Op: "max", Signal: &sig})
		perGPUExpr = fmt.Sprintf("rate(%s[%s])", level, window)
	}
	switch {
	case perGPU:
		out = append(out, rule(conventions.LevelGPU, gpuAgg, perGPUExpr))
		perGPUExpr = name(conventions.LevelGPU, gpuAgg)
	case s.Rollup != model.RollupRate && !s.needsCollapse():
		perGPUExpr = s.source(window)
	}
	node := func(op string) string { return fmt.Sprintf("%s %s (%s)", op, by(l.Cluster, l.Host), perGPUExpr) }
	if upAgg == "avg" {
		// Sums and counts, never averages of averages; the fleet adds up the clusters', so a
		// sharded fleet's global layer reads a few series per shard, not one per node.
		sum, count := name(conventions.LevelNode, "sum"), name(conventions.LevelNode, "count")
		clusterSum, clusterCount := name(conventions.LevelCluster, "sum"), name(conventions.LevelCluster, "count")
		out = append(out,
			rule(conventions.LevelNode, "sum", node("sum")),
			rule(conventions.LevelNode, "count", node("count")),
			rule(conventions.LevelNode, "avg", sum+" / "+count),
			rule(conventions.LevelCluster, "sum", fmt.Sprintf("sum %s (%s)", by(l.Cluster), sum)),
			rule(conventions.LevelCluster, "count", fmt.Sprintf("sum %s (%s)", by(l.Cluster), count)),
			rule(conventions.LevelCluster, "avg", clusterSum+" / "+clusterCount),
			rule(conventions.LevelFleet, "avg", fmt.Sprintf("sum (%s) / sum (%s)", clusterSum, clusterCount)),
		)
	} else {
		out = append(out,
			rule(conventions.LevelNode, upAgg, node(upAgg)),
			rule(conventions.LevelCluster, upAgg, fmt.Sprintf("%s %s (%s)", upAgg, by(l.Cluster), name(conventions.LevelNode, upAgg))),
			rule(conventions.LevelFleet, upAgg, fmt.Sprintf("%s (%s)", upAgg, name(conventions.LevelCluster, upAgg))),
		)
	}
	// Namespaces are Kubernetes': a Slurm fleet's jobs have their own records (slurm/).
	if s.ByNamespace && m.Scheduler != model.SchedulerSlurm {
		r := rule(conventions.LevelNamespace, upAgg, namespaceRollup(m, s, window))
		if strings.Contains(r.Expr, conventions.GPUShare) {
			r.Comments = []string{
				"Reads the GPU shares of the cost group: at most one evaluation interval behind; a share changes only when a pod starts or stops.",
				"pint disable rule/dependency",
			}
		}
		out = append(out, r)
	}
	return out
}

// namespaceRollup attributes a signal to namespaces over its pod-attributed series, each
// weighed by the pod's share of its GPU (conventions.GPUShare, recorded only for a workload's
// pods, not the exporter's own): an average weighs a 1g MIG
// instance a seventh of a whole GPU and a time-sliced pod by its part; a sum splits a value
// repeated for every MIG instance or pod of a GPU by their shares, and takes a value of the
// series' own (a MIG instance's framebuffer, a pod's processes' under virtual GPUs) as it is.
func namespaceRollup(m *model.Model, s Signal, window string) string {
	l := m.Labels
	raw := s.source(window, fmt.Sprintf(`%s!=""`, l.Namespace))
	// The pod where the catalog reads it, whichever way the scrape delivered it: a series of the
	// exporter's own pod has no share and leaves the joins.
	attributed := m.Exporter.Workload(raw)
	slotPod := append(slices.Clone(m.Identity.GPUJoin), l.MIGInstance, l.Namespace, l.Pod)
	on := "on (" + strings.Join(slotPod, ", ") + ")"
	weighted := fmt.Sprintf("%s * %s group_left () %s", attributed, on, conventions.GPUShare)
	perNamespace := by(l.Cluster, l.Namespace)
	switch agg := s.upAggregation(); {
	case agg == "avg":
		return fmt.Sprintf("sum %[1]s (%[2]s) / sum %[1]s (%[3]s and %[4]s %[5]s)", perNamespace, weighted, conventions.GPUShare, on, attributed)
	case agg == "sum" && s.copiedToPods():
		return fmt.Sprintf("sum %s (%s)", perNamespace, weighted)
	default:
		// The shares join only the series a workload's pod holds; alone, the series of the
		// exporter's own pod are left out here.
		return fmt.Sprintf("%s %s (%s)", agg, perNamespace, m.Exporter.Attributed(raw))
	}
}

// gpuInfo maps each GPU (or MIG instance) to the workload that holds it (a pod, a Slurm job):
// its health series by the alert identity, the workload wherever the scrape put it, and where
// the series carry none (or their exporter target's own pod), without the workload's labels,
// as a GPU no workload holds.
func gpuInfo(m *model.Model) string {
	held := fmt.Sprintf("group %s (%s)", by(m.Identity.Alert...), m.Exporter.Attributed(m.Exporter.Health("")))
	unheld := slices.DeleteFunc(slices.Clone(m.Identity.Alert), func(s string) bool { return slices.Contains(m.Identity.Workload, s) })
	return fmt.Sprintf("%s or group %s (%s)", held, by(unheld...), m.Exporter.UnattributedHealth)
}

// formatShare is the share of a GPU that slices of its DRAMemorySlices memory slices hold,
// written exactly (0.125, 0.5).
func formatShare(slices int) string {
	return strconv.FormatFloat(float64(slices)/DRAMemorySlices, 'f', -1, 64)
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

// NVIDIA's DRA driver names a whole GPU gpu-<minor> and a MIG device
// gpu-<minor>-mig-<profile>-<placement start>-<placement size>, the placement in memory slices
// of the GPU (k8s-dra-driver-gpu, cmd/gpu-kubelet-plugin/deviceinfo.go).
const (
	draGPUDevice = `gpu-[0-9]+`
	draMIGPrefix = `gpu-[0-9]+-mig-[0-9]+-[0-9]+-`
	draMIGDevice = draMIGPrefix + `[0-9]+`
	// DRAMemorySlices is how many memory slices a MIG-capable GPU has (A100, H100, H200,
	// B200): a MIG device allocated through DRA counts as its slices' share of the GPU.
	DRAMemorySlices = 8
)

// allocationRules record which pod holds which GPU, GPUs allocatable and requested by pods
// (kube-state-metrics), next to the GPUs that dcgm-exporter sees and the ones it attributes
// to pods. Where GPUs are handed out through DRA, a node's allocatable GPUs are the GPUs its
// ResourceSlices publish, and requests are the devices allocated to claims (a MIG device as
// its share of the GPU); a mixed fleet adds up both.
func allocationRules(m *model.Model) []Recorded {
	l, ksm, k := m.Labels, m.KubeStateMetrics, m.Kubernetes
	rec := func(level, signal, op string) string { return conventions.RecordName(level, signal, op) }
	// Requests count while the pod is scheduled and Pending or Running: kube-state-metrics
	// keeps exposing the requests of completed pods.
	requested := fmt.Sprintf(`kube_pod_container_resource_requests{job="%[1]s", resource=~"%[2]s", %[3]s!=""}
  * on (%[4]s, namespace, pod) group_left ()
  max by (%[4]s, namespace, pod) (kube_pod_status_phase{job="%[1]s", phase=~"Pending|Running"} == 1)`, ksm.Job, ksm.GPUResources, l.Node, l.Cluster)
	// The GPUs of each node's ResourceSlices, each counted once whatever MIG devices it
	// publishes too; and the share of a GPU each device allocated to a claim holds (the
	// driver's pools are named after their nodes).
	draGPUs := fmt.Sprintf(`group by (%[1]s, %[2]s, gpu_device) (
  label_replace(
    label_replace(kube_resourceslice_device_info{job="%[3]s", driver="%[4]s", device_name=~"%[5]s|%[6]s"}, "%[2]s", "$1", "node_name", "(.+)"),
    "gpu_device", "$1", "device_name", "(%[5]s).*"
  )
)`, l.Cluster, l.Node, ksm.Job, k.DRADriver, draGPUDevice, draMIGDevice)
	claimed := func(device string) string {
		return fmt.Sprintf(`label_replace(kube_resourceclaim_allocation_device_info{job="%s", driver="%s", device=~"%s"}, "%s", "$1", "pool", "(.+)")`, ksm.Job, k.DRADriver, device, l.Node)
	}
	// A whole GPU counts 1; a MIG device, by its placement size, its slices' share.
	draClaimed := []string{claimed(draGPUDevice)}
	for slices := 1; slices <= DRAMemorySlices; slices++ {
		draClaimed = append(draClaimed, fmt.Sprintf("%s * %s", claimed(draMIGPrefix+strconv.Itoa(slices)), formatShare(slices)))
	}
	// Each mode's expression of a record, added up where the fleet has both.
	both := func(labels []string, devicePlugin, dra string) string {
		switch {
		case !k.DRA():
			return devicePlugin
		case !k.DevicePlugin():
			return dra
		}
		return fmt.Sprintf(`sum %s (label_replace(%s, "allocation", "device-plugin", "", "") or label_replace(%s, "allocation", "dra", "", ""))`, by(labels...), devicePlugin, dra)
	}
	node, namespace := []string{l.Cluster, l.Node}, []string{l.Cluster, "namespace"}
	allocatable := both(node,
		fmt.Sprintf(`sum %s (kube_node_status_allocatable{job="%s", resource=~"%s"})`, by(node...), ksm.Job, ksm.GPUResources),
		fmt.Sprintf("count %s (%s)", by(node...), draGPUs))
	requestedBy := func(labels []string) string {
		return both(labels, fmt.Sprintf("sum %s (%s)", by(labels...), requested), fmt.Sprintf("sum %s (%s)", by(labels...), strings.Join(draClaimed, " or ")))
	}
	slurm := m.Scheduler == model.SchedulerSlurm
	if slurm {
		// Slurm counts each node's GPUs and the GPUs its jobs hold (slurmctld's
		// /metrics/nodes), under its node label.
		allocatable, requestedBy = slurmNodeGPUs(m, "slurm_node_gpus"), func([]string) string { return slurmNodeGPUs(m, "slurm_node_gpus_alloc") }
	}
	gpus := fmt.Sprintf("group %s (%s)", by(m.Identity.GPUJoin...), conventions.GPUInfo)
	var out []Recorded
	if len(m.Exporter.HealthFields) > 1 {
		// The series that tell a GPU is there, read once for every rule that reads them: each
		// field's series grouped (their presence is what counts: value 1, no unit, so that no
		// reading of one unit stands in for another's), the first one a GPU sends taken.
		var fields []string
		for _, f := range m.Exporter.HealthFields {
			fields = append(fields, "group without () ("+f+")")
		}
		out = append(out, Recorded{Level: conventions.LevelGPUPod, Name: conventions.Health, Expr: strings.Join(fields, " or ")})
	}
	out = append(out, []Recorded{
		// Which pod holds which GPU, read once: alerts join it, GPU counts read it.
		{Level: conventions.LevelGPUPod, Name: conventions.GPUInfo, Expr: gpuInfo(m)},
		{Level: conventions.LevelNode, Name: rec(conventions.LevelNode, AllocatableSignal, "sum"), Expr: allocatable},
		{Level: conventions.LevelCluster, Name: rec(conventions.LevelCluster, AllocatableSignal, "sum"), Expr: fmt.Sprintf("sum %s (%s)", by(l.Cluster), rec(conventions.LevelNode, AllocatableSignal, "sum"))},
		{Level: conventions.LevelFleet, Name: rec(conventions.LevelFleet, AllocatableSignal, "sum"), Expr: fmt.Sprintf("sum (%s)", rec(conventions.LevelCluster, AllocatableSignal, "sum"))},
		{Level: conventions.LevelNode, Name: rec(conventions.LevelNode, RequestedSignal, "sum"), Expr: requestedBy(node)},
	}...)
	if !slurm {
		out = append(out, Recorded{Level: conventions.LevelNamespace, Name: rec(conventions.LevelNamespace, RequestedSignal, "sum"), Expr: requestedBy(namespace)})
	}
	out = append(out, []Recorded{
		{Level: conventions.LevelCluster, Name: rec(conventions.LevelCluster, RequestedSignal, "sum"), Expr: fmt.Sprintf("sum %s (%s)", by(l.Cluster), rec(conventions.LevelNode, RequestedSignal, "sum"))},
		{Level: conventions.LevelFleet, Name: rec(conventions.LevelFleet, RequestedSignal, "sum"), Expr: fmt.Sprintf("sum (%s)", rec(conventions.LevelCluster, RequestedSignal, "sum"))},
	}...)
	for _, level := range []string{conventions.LevelNode, conventions.LevelCluster, conventions.LevelFleet} {
		out = append(out, Recorded{Level: level, Name: rec(level, AllocationSignal, "ratio"),
			Expr: fmt.Sprintf("%s / %s", rec(level, RequestedSignal, "sum"), rec(level, AllocatableSignal, "sum"))})
	}
	out = append(out,
		Recorded{Level: conventions.LevelCluster, Name: rec(conventions.LevelCluster, ReportingSignal, "count"), Expr: fmt.Sprintf("count %s (%s)", by(l.Cluster), gpus)},
		Recorded{Level: conventions.LevelFleet, Name: rec(conventions.LevelFleet, ReportingSignal, "count"), Expr: fmt.Sprintf("sum (%s)", rec(conventions.LevelCluster, ReportingSignal, "count"))},
	)
	if !slurm {
		out = append(out, Recorded{Level: conventions.LevelNamespace, Name: rec(conventions.LevelNamespace, AttributedSignal, "count"),
			Expr: fmt.Sprintf(`count %s (group %s (%s{%s!=""}))`, by(l.Cluster, l.Namespace), by(append(append([]string{}, m.Identity.GPUJoin...), l.Namespace)...), conventions.GPUInfo, l.Namespace)})
	}
	for i := range out {
		out[i].Family = allocationFamily
		// The rules that read the parts of DRA device names.
		if strings.Contains(out[i].Expr, "-mig-") {
			out[i].Comments = draDeviceNameComments
		}
	}
	return out
}

// draDeviceNameComments explain, above the rules that read them, the selectors on the parts of
// a DRA device's name, which pint takes for a label that should have been split.
var draDeviceNameComments = []string{
	"NVIDIA's DRA driver names a MIG device gpu-<minor>-mig-<profile>-<placement start>-<placement size>, and kube-state-metrics has no label of its own for the parts: the selectors read them from the name.",
	"pint disable promql/regexp",
}

// slurmNodeGPUs sums one of slurmctld's per-node GPU counts (slurm_node_gpus,
// slurm_node_gpus_alloc) by cluster and node, the node under the label the node records use
// (labels.node) and named as the exporter names its host (slurm.hostFromNode), as
// kube-state-metrics' node is: a dashboard drills from a node record to the node's GPUs.
func slurmNodeGPUs(m *model.Model, metric string) string {
	l, s := m.Labels, m.Slurm
	series := fmt.Sprintf(`%s{job="%s"}`, metric, s.Job)
	if s.NodeLabel != l.Node || s.HostFromNode != (model.Rewrite{Regex: "(.+)", Replacement: "$1"}) {
		series = fmt.Sprintf(`label_replace(%s, "%s", "%s", "%s", "%s")`, series, l.Node, s.HostFromNode.Replacement, s.NodeLabel, s.HostFromNode.Regex)
	}
	return fmt.Sprintf("sum %s (%s)", by(l.Cluster, l.Node), series)
}
