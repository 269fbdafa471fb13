package lint

import (
	"strings"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/promql/labelflow"
)

// dcgmLooking reports whether a metric name looks like dcgm-exporter's: its DCGM_ fields and
// own metrics, or the lower-case names of --use-old-namespace.
func dcgmLooking(name string) bool {
	return strings.HasPrefix(name, "DCGM_") || strings.HasPrefix(name, "dcgm_")
}

// gpuRelated reports whether an expression reads a catalog field, a DCGM-looking metric, or a
// metric a rule records from one: the GPU checks (cardinality, MIG, units) apply to it.
func (in *Inputs) gpuRelated(n *promql.Node) bool {
	found := false
	promql.Walk(n, func(c *promql.Node, _ []*promql.Node) {
		found = found || (c.Kind == promql.Selector && in.gpuMetric(c.Name))
	})
	return found
}

func (in *Inputs) gpuMetric(name string) bool {
	if _, field := in.Model.Fields[name]; field || dcgmLooking(name) {
		return true
	}
	if v, ok := in.gpuMemo[name]; ok {
		return v
	}
	in.gpuMemo[name] = false // breaks cycles
	for _, r := range in.recorded[name] {
		if r.Expr.Node != nil && in.gpuRelated(r.Expr.Node) {
			in.gpuMemo[name] = true
			break
		}
	}
	return in.gpuMemo[name]
}

// outputLabels are the labels of the series an expression produces.
func (in *Inputs) outputLabels(n *promql.Node) labelflow.Set { return in.labels.Of(n) }

// unitOf is the unit of an expression's values, or "" when unknown or scaled.
func (in *Inputs) unitOf(n *promql.Node) string {
	switch n.Kind {
	case promql.Selector:
		if f, ok := in.Model.Fields[n.Name]; ok && f.Kind != model.KindBitmask && f.Kind != model.KindLastEvent {
			return f.Unit
		}
	case promql.Call:
		switch n.Name {
		case "rate", "irate", "deriv":
			if u := in.unitOf(n.Args[0]); u != "" {
				return in.Model.RateUnit(u)
			}
		case "increase", "delta", "avg_over_time", "min_over_time", "max_over_time", "last_over_time", "quantile_over_time", "abs", "ceil", "floor", "round", "clamp", "clamp_min", "clamp_max":
			for _, a := range n.Args {
				if a.Kind == promql.Selector || a.Kind == promql.Call || a.Kind == promql.Aggregate || a.Kind == promql.Subquery {
					return in.unitOf(a)
				}
			}
		}
	case promql.Aggregate:
		switch n.Name {
		case "sum", "avg", "min", "max", "topk", "bottomk", "quantile":
			return in.unitOf(n.Args[len(n.Args)-1])
		}
	case promql.Subquery, promql.Unary:
		return in.unitOf(n.Args[0])
	case promql.Binary:
		switch n.Name {
		case "+", "-", "and", "unless", "or":
			if u := in.unitOf(n.Args[0]); u != "" {
				return u
			}
			return in.unitOf(n.Args[1])
		}
		if comparison(n.Name) {
			return in.unitOf(n.Args[0])
		}
	}
	return ""
}

func comparison(op string) bool {
	switch op {
	case "==", "!=", ">", "<", ">=", "<=":
		return true
	}
	return false
}

// projection estimates how many series an expression yields at the catalog's fleet size, and
// names the label that multiplies it most.
type projection struct {
	series int
	factor string // label responsible for the finest fan-out
}

// project uses the label hierarchy cluster > host > GPU > MIG instance (a GPU's UUID, bus id,
// device and index identify it; pods sit on GPUs), counting a label pinned by an equality
// matcher, or a regular-expression matcher on a single-value dashboard variable, as one value.
func (in *Inputs) project(n *promql.Node, single map[string]bool) projection {
	// topk(k, x) without grouping returns at most k series.
	if n.Kind == promql.Aggregate && (n.Name == "topk" || n.Name == "bottomk" || n.Name == "limitk") &&
		len(n.Grouping) == 0 && !n.Without && len(n.Args) == 2 && n.Args[0].Kind == promql.Number {
		p := in.project(n.Args[1], single)
		if k := int(n.Args[0].Value); k >= 0 && k < p.series {
			p.series = k
		}
		return p
	}
	return in.scopeOf(n, single).project(in.Model.Fleet)
}

// scope is what an expression's output labels say about where its series live: the label it
// keeps at each level of the hierarchy ("" when none), and which levels matchers pin.
type scope struct {
	cluster, host, gpu, mig, pod, ns                                 string
	namespacePinned, podPinned, gpuPinned, hostPinned, clusterPinned bool
}

// scopeOf reads an expression's scope: its output labels, less those pinned by an equality
// matcher or a regular-expression matcher on a single-value dashboard variable.
func (in *Inputs) scopeOf(n *promql.Node, single map[string]bool) scope {
	out := in.outputLabels(n)
	l := in.Model.Labels
	// Labels that say nothing of a workload: the hierarchy's, the SKU, driver and MIG profile
	// (one may hold the whole fleet), and the scrape job.
	notWorkload := map[string]bool{l.Cluster: true, l.Host: true, l.Node: true, "instance": true, l.UUID: true, l.PCIBusID: true, l.GPU: true, l.Device: true,
		l.MIGInstance: true, l.MIGProfile: true, l.Pod: true, "pod": true, l.Container: true, "container": true, l.Namespace: true, "namespace": true,
		l.ModelName: true, l.DriverVersion: true, "job": true}
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
	present := func(names ...string) string {
		for _, name := range names {
			if out.Has(name) && !pinned[name] {
				return name
			}
		}
		return ""
	}
	s := scope{
		cluster: present(l.Cluster),
		host:    present(l.Host, l.Node, "instance"),
		gpu:     present(l.UUID, l.PCIBusID, l.GPU, l.Device),
		mig:     present(l.MIGInstance),
		pod:     present(l.Pod, "pod", l.Container, "container"),
		ns:      present(l.Namespace, "namespace"),

		namespacePinned: pinned[l.Namespace] || pinned["namespace"] || workload,
		podPinned:       pinned[l.Pod] || pinned["pod"],
		// A GPU lives on one host of one cluster: pinning it pins them.
		gpuPinned: pinned[l.UUID] || pinned[l.PCIBusID],
	}
	s.hostPinned = s.gpuPinned || pinned[l.Host] || pinned[l.Node] || pinned["instance"]
	s.clusterPinned = s.hostPinned || pinned[l.Cluster]
	return s
}

// project counts the series of a scope at the fleet's size.
func (s scope) project(f model.Fleet) projection {
	p := projection{series: 1}
	switch {
	case (s.gpu != "" || s.mig != "" || s.pod != "") && (s.namespacePinned || s.podPinned) && s.host != "":
		s.ofNamespace(&p, f)
	case s.gpu != "" || s.mig != "" || s.host != "" || s.pod != "":
		s.ofHosts(&p, f)
	case s.ns != "":
		p.mul(s.cluster, f.Clusters)
		p.mul(s.ns, f.NamespacesPerCluster)
	case s.cluster != "":
		p.mul(s.cluster, f.Clusters)
	}
	return p
}

// mul multiplies the series by a label's fan-out, when the expression keeps the label.
func (p *projection) mul(label string, by int) {
	if label != "" {
		p.series *= by
		p.factor = label
	}
}

// ofNamespace counts the GPUs of one namespace (spread over hosts), or of one pod (one host).
func (s scope) ofNamespace(p *projection, f model.Fleet) {
	if !s.clusterPinned {
		p.mul(firstNonEmpty(s.cluster, s.host), f.Clusters)
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
func (s scope) ofHosts(p *projection, f model.Fleet) {
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

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// level is the level prefix of a recording rule name (node in node:x:sum), or "".
func level(record string) string {
	parts := strings.SplitN(record, ":", 3)
	if len(parts) == 3 {
		return parts[0]
	}
	return ""
}

// ProjectedSeries estimates how many series expr yields at the catalog's fleet size: the
// projection cardinality/budget checks against.
func (in *Inputs) ProjectedSeries(expr string) (int, error) {
	n, err := promql.Parse(expr)
	if err != nil {
		return 0, err
	}
	return in.project(n, nil).series, nil
}
