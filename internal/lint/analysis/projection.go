package analysis

import (
	"maps"
	"slices"
	"strings"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/promql/labelflow"
)

// Projection is how many series an expression yields at the catalog's fleet size, and the
// label that multiplies it most.
type Projection struct {
	Series int
	// Factor is the label responsible for the finest fan-out, or "" for a single series.
	Factor string
}

// Project projects an expression's series at the catalog's fleet size over the label
// hierarchy cluster > host > GPU > MIG instance (a GPU's UUID, bus id, device and index
// identify it; pods sit on GPUs), counting a label pinned by an equality matcher, or by a
// regular-expression matcher on a dashboard variable that single names as single-value, as one
// value. single may be nil (a rule).
func (a *Analysis) Project(n *promql.Node, single map[string]bool) Projection {
	// topk(k, x) without grouping returns at most k series.
	if n.Kind == promql.Aggregate && (n.Name == "topk" || n.Name == "bottomk" || n.Name == "limitk") &&
		len(n.Grouping) == 0 && !n.Without && len(n.Args) == 2 && n.Args[0].Kind == promql.Number {
		p := a.Project(n.Args[1], single)
		if k := int(n.Args[0].Value); k >= 0 && k < p.Series {
			p.Series = k
		}
		return p
	}
	return a.scopeOf(n, single).project(a.model.Fleet)
}

// ProjectedSeries parses expr and projects its series at the catalog's fleet size, as the
// cardinality budget check does for a rule.
func (a *Analysis) ProjectedSeries(expr string) (int, error) {
	n, err := promql.Parse(expr)
	if err != nil {
		return 0, err
	}
	return a.Project(n, nil).Series, nil
}

// scope is what an expression's output labels say about where its series live: the label it
// keeps at each level of the hierarchy ("" when none), and which levels matchers pin.
type scope struct {
	cluster, host, gpu, mig, pod, ns                                 string
	namespacePinned, podPinned, gpuPinned, hostPinned, clusterPinned bool
	// fanout is the values per entity of each label beyond the hierarchy the output keeps
	// (metrics.<name>.fanout of a metric the expression reads), by label.
	fanout map[string]int
}

// scopeOf reads an expression's scope: its output labels, less those pinned by an equality
// matcher or a regular-expression matcher on a single-value dashboard variable.
func (a *Analysis) scopeOf(n *promql.Node, single map[string]bool) scope {
	out := a.Labels(n)
	l := a.model.Labels
	// Labels that say nothing of a workload: the hierarchy's, the SKU, driver and MIG profile
	// (one may hold the whole fleet), and the scrape job.
	notWorkload := map[string]bool{l.Cluster: true, l.Host: true, l.Node: true, "instance": true, l.UUID: true, l.PCIBusID: true, l.GPU: true, l.Device: true,
		l.MIGInstance: true, l.MIGProfile: true, l.Pod: true, "pod": true, l.Container: true, "container": true, l.Namespace: true, "namespace": true,
		l.ExportedNamespace: true, l.ExportedPod: true, l.ModelName: true, l.DriverVersion: true, "job": true, l.Job: true}
	pinned, workload := map[string]bool{}, false
	promql.Walk(n, func(c *promql.Node, _ []*promql.Node) {
		for _, m := range c.Matchers {
			byVariable := strings.Contains(m.Value, "$") && (m.Type == "=" || m.Type == "=~" && single[strings.Trim(m.Value, "${}")])
			if m.Type == "=" || byVariable {
				pinned[m.Name] = true
			}
			// A dashboard variable that picks one value of a label of workloads (a job id, a
			// team) scopes the query to one workload, as a pinned namespace does.
			workload = workload || byVariable && !notWorkload[m.Name]
		}
	})
	present := func(names ...string) string { return keptLabel(out, pinned, names) }
	s := scope{
		cluster: present(l.Cluster),
		host:    present(l.Host, l.Node, "instance"),
		gpu:     present(l.UUID, l.PCIBusID, l.GPU, l.Device, "gpu"),
		mig:     present(l.MIGInstance),
		pod:     present(l.Pod, "pod", l.Container, "container"),
		// A Slurm job (labels.job, dcgm-exporter's hpc_job) is a workload as a namespace is: a
		// new value, and its series, with every job (fleet.namespacesPerCluster at once).
		ns: present(l.Namespace, "namespace", l.Job),

		// A workload's namespace and pod: where the exporter's arrive, or where a scrape whose
		// target's labels win renames them (exported_*).
		namespacePinned: pinned[l.Namespace] || pinned["namespace"] || pinned[l.ExportedNamespace] || pinned[l.Job] || workload,
		podPinned:       pinned[l.Pod] || pinned["pod"] || pinned[l.ExportedPod],
		// A GPU lives on one host of one cluster: pinning it pins them.
		gpuPinned: pinned[l.UUID] || pinned[l.PCIBusID],
	}
	s.hostPinned = s.gpuPinned || pinned[l.Host] || pinned[l.Node] || pinned["instance"]
	s.clusterPinned = s.hostPinned || pinned[l.Cluster]
	s.fanout = a.fanoutKept(n, func(label string) bool { return out.Has(label) && !pinned[label] && !notWorkload[label] })
	return s
}

// keptLabel is the first of names the output labels out keep and no matcher pins, or "". A
// label kept under the name Prometheus gives a target label it renames on conflict
// (exported_node, honorLabels: false) sits at the same level; so do the conventional names
// (pod, gpu: NCCL Inspector's) where the catalog names its labels otherwise.
func keptLabel(out labelflow.Set, pinned map[string]bool, names []string) string {
	for _, name := range names {
		for _, kept := range []string{name, "exported_" + name} {
			if out.Has(kept) && !pinned[kept] {
				return kept
			}
		}
	}
	return ""
}

// fanoutKept is the fan-out (metrics.<name>.fanout) of each label of a metric n reads that
// kept says n keeps beyond the hierarchy (a label of the hierarchy is counted there).
func (a *Analysis) fanoutKept(n *promql.Node, kept func(label string) bool) map[string]int {
	out := map[string]int{}
	promql.Walk(n, func(c *promql.Node, _ []*promql.Node) {
		for label, values := range a.model.Metrics[c.Name].Fanout {
			if kept(label) {
				out[label] = max(out[label], values)
			}
		}
	})
	return out
}

// project counts the series of a scope at the fleet's size.
func (s scope) project(f model.Fleet) Projection {
	p := Projection{Series: 1}
	switch {
	case (s.gpu != "" || s.mig != "" || s.pod != "") && (s.namespacePinned || s.podPinned):
		s.ofNamespace(&p, f)
	case s.gpu != "" || s.mig != "" || s.host != "" || s.pod != "":
		s.ofHosts(&p, f)
	case s.ns != "":
		p.mul(s.cluster, f.Clusters)
		p.mul(s.ns, f.NamespacesPerCluster)
	case s.cluster != "":
		p.mul(s.cluster, f.Clusters)
	}
	// Labels beyond the hierarchy multiply last, the widest last, so that it names the factor.
	labels := slices.Sorted(maps.Keys(s.fanout))
	slices.SortStableFunc(labels, func(a, b string) int { return s.fanout[a] - s.fanout[b] })
	for _, label := range labels {
		if s.fanout[label] > 1 {
			p.mul(label, s.fanout[label])
		}
	}
	return p
}

// mul multiplies the series by a label's fan-out, when the expression keeps the label.
func (p *Projection) mul(label string, by int) {
	if label != "" {
		p.Series *= by
		p.Factor = label
	}
}

// ofNamespace counts the GPUs of one namespace (spread over hosts), or of one pod (one host).
func (s scope) ofNamespace(p *Projection, f model.Fleet) {
	if !s.clusterPinned {
		// The namespace (or pod) of that name in every cluster, told apart by whatever the
		// output keeps.
		p.mul(firstNonEmpty(s.cluster, s.host, s.gpu, s.pod, s.mig), f.Clusters)
	}
	perNamespace := max(1, f.NodesPerCluster*f.GPUsPerNode/max(1, f.NamespacesPerCluster))
	if s.podPinned {
		perNamespace = f.GPUsPerNode
	}
	p.mul(firstNonEmpty(s.gpu, s.pod, s.mig), perNamespace)
	if s.mig != "" {
		p.mul(s.mig, f.MIGInstancesPerGPU)
	}
}

// ofHosts counts host-scoped series, which exist per host of every cluster.
func (s scope) ofHosts(p *Projection, f model.Fleet) {
	if !s.clusterPinned {
		p.mul(firstNonEmpty(s.cluster, s.host, s.gpu, s.pod), f.Clusters)
	}
	if !s.hostPinned {
		p.mul(firstNonEmpty(s.host, s.gpu, s.pod), f.NodesPerCluster)
	}
	switch {
	case s.gpuPinned:
		if s.mig != "" {
			p.mul(s.mig, f.MIGInstancesPerGPU)
		}
	case s.gpu != "" || s.mig != "":
		p.mul(firstNonEmpty(s.gpu, s.mig), f.GPUsPerNode)
		if s.mig != "" {
			p.mul(s.mig, f.MIGInstancesPerGPU)
		}
	case s.pod != "":
		p.mul(s.pod, f.PodsPerNode)
	}
}

// firstNonEmpty is the first of its arguments that is not "".
func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
