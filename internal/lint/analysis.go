package lint

import (
	"slices"
	"sort"
	"strings"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/promql"
)

// labelSet is the set of labels an expression's series carry. open means more labels may be
// there than listed (the metric's labels are not known).
type labelSet struct {
	names map[string]bool
	open  bool
}

func newLabelSet(open bool, names ...string) labelSet {
	s := labelSet{names: map[string]bool{}, open: open}
	for _, n := range names {
		s.names[n] = true
	}
	return s
}

func (s labelSet) has(name string) bool { return s.names[name] }

// mayHave reports whether the series may carry the label.
func (s labelSet) mayHave(name string) bool { return s.open || s.names[name] }

func (s labelSet) sorted() []string {
	out := make([]string, 0, len(s.names))
	for n := range s.names {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func (s labelSet) with(names ...string) labelSet {
	out := newLabelSet(s.open, s.sorted()...)
	for _, n := range names {
		out.names[n] = true
	}
	return out
}

func (s labelSet) without(names ...string) labelSet {
	out := newLabelSet(s.open, s.sorted()...)
	for _, n := range names {
		delete(out.names, n)
	}
	return out
}

func (s labelSet) union(o labelSet) labelSet {
	out := s.with(o.sorted()...)
	out.open = s.open || o.open
	return out
}

func (s labelSet) only(names ...string) labelSet {
	out := newLabelSet(false)
	for _, n := range names {
		if s.mayHave(n) {
			out.names[n] = true
		}
	}
	return out
}

// exporterLabels are the labels a DCGM field's series can carry.
func exporterLabels(m *model.Model, field string) labelSet {
	l := m.Labels
	s := newLabelSet(false, l.Cluster, l.Host, l.GPU, l.UUID, l.PCIBusID, l.Device, l.ModelName, l.DriverVersion,
		"job", "instance", l.Namespace, l.Pod, l.Container, l.MIGInstance, l.MIGProfile)
	if !m.Exporter.HonorLabels {
		s = s.with("namespace", "pod", "container")
	}
	if m.Fields[field].Kind == model.KindLastEvent {
		s = s.with("err_code", "err_msg")
	}
	if m.Fields[field].Entity == model.EntityNVLink {
		s = s.with("gpu_uuid", "model_name", "link")
	}
	return s
}

// metricLabels are the labels of a metric: a DCGM field's, a known metric's, a recorded
// metric's (from its rule), or unknown (open).
func (in *Inputs) metricLabels(name string) labelSet {
	if _, ok := in.Model.Fields[name]; ok {
		return exporterLabels(in.Model, name)
	}
	if mt, ok := in.Model.Metrics[name]; ok {
		return newLabelSet(false, mt.Labels...)
	}
	if mt, ok := in.histogramSeries(name); ok {
		if strings.HasSuffix(name, "_bucket") {
			return newLabelSet(false, append(slices.Clip(mt.Labels), "le")...)
		}
		return newLabelSet(false, mt.Labels...)
	}
	if rules := in.recorded[name]; len(rules) > 0 {
		if s, ok := in.labelsMemo[name]; ok {
			return s
		}
		in.labelsMemo[name] = newLabelSet(true) // breaks cycles
		// A name recorded by several rules carries the labels of any of them.
		s := newLabelSet(false)
		for _, r := range rules {
			if r.Expr.Node == nil {
				s = newLabelSet(true)
				break
			}
			s = s.union(in.outputLabels(r.Expr.Node).with(keys(r.Labels)...))
		}
		in.labelsMemo[name] = s
		return s
	}
	return newLabelSet(true)
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// outputLabels are the labels of the series an expression produces.
func (in *Inputs) outputLabels(n *promql.Node) labelSet {
	switch n.Kind {
	case promql.Selector:
		return in.metricLabels(n.Name)
	case promql.Number, promql.String:
		return newLabelSet(false)
	case promql.Unary, promql.Subquery:
		return in.outputLabels(n.Args[0])
	case promql.Aggregate:
		inner := in.outputLabels(n.Args[len(n.Args)-1])
		switch {
		case n.Name == "topk" || n.Name == "bottomk" || n.Name == "limitk" || n.Name == "limit_ratio":
			return inner
		case n.Without:
			return inner.without(n.Grouping...)
		default:
			out := newLabelSet(false, n.Grouping...)
			if n.Name == "count_values" && len(n.Args) > 1 && n.Args[0].Kind == promql.String {
				out = out.with(n.Args[0].Name)
			}
			return out
		}
	case promql.Call:
		switch n.Name {
		case "label_replace", "label_join":
			out := in.outputLabels(n.Args[0])
			if len(n.Args) > 1 && n.Args[1].Kind == promql.String {
				out = out.with(n.Args[1].Name)
			}
			return out
		case "histogram_quantile":
			return in.outputLabels(n.Args[len(n.Args)-1]).without("le")
		case "absent", "absent_over_time":
			out := newLabelSet(false)
			promql.Walk(n, func(c *promql.Node, _ []*promql.Node) {
				for _, m := range c.Matchers {
					if c.Kind == promql.Selector && m.Type == "=" {
						out.names[m.Name] = true
					}
				}
			})
			return out
		case "time", "pi", "scalar", "vector":
			return newLabelSet(false)
		}
		for _, a := range n.Args {
			if a.Kind != promql.Number && a.Kind != promql.String {
				return in.outputLabels(a)
			}
		}
		return newLabelSet(false)
	case promql.Binary:
		l, r := in.outputLabels(n.Args[0]), in.outputLabels(n.Args[1])
		scalar := func(x *promql.Node) bool { return isScalar(x) }
		switch {
		case scalar(n.Args[0]):
			return r
		case scalar(n.Args[1]):
			return l
		case n.Name == "or":
			return l.union(r)
		case n.Name == "and" || n.Name == "unless":
			return l
		case n.Card == "many-to-one":
			return l.with(n.Include...)
		case n.Card == "one-to-many":
			return r.with(n.Include...)
		case n.Matching && n.On:
			return l.only(n.MatchOn...)
		case n.Matching:
			return l.without(n.MatchOn...)
		default:
			return l
		}
	}
	return newLabelSet(true)
}

// isScalar reports whether an expression yields a scalar (literals and scalar functions).
func isScalar(n *promql.Node) bool {
	switch n.Kind {
	case promql.Number:
		return true
	case promql.Unary:
		return isScalar(n.Args[0])
	case promql.Call:
		return n.Name == "scalar" || n.Name == "time" || n.Name == "pi"
	case promql.Binary:
		return isScalar(n.Args[0]) && isScalar(n.Args[1])
	}
	return false
}

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
				return u + "/s"
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
// matcher (a template variable in a dashboard) as one value.
func (in *Inputs) project(n *promql.Node) projection {
	// topk(k, x) without grouping returns at most k series.
	if n.Kind == promql.Aggregate && (n.Name == "topk" || n.Name == "bottomk" || n.Name == "limitk") &&
		len(n.Grouping) == 0 && !n.Without && len(n.Args) == 2 && n.Args[0].Kind == promql.Number {
		p := in.project(n.Args[1])
		if k := int(n.Args[0].Value); k >= 0 && k < p.series {
			p.series = k
		}
		return p
	}
	out := in.outputLabels(n)
	pinned := map[string]bool{}
	promql.Walk(n, func(c *promql.Node, _ []*promql.Node) {
		for _, m := range c.Matchers {
			if m.Type == "=" {
				pinned[m.Name] = true
			}
		}
	})
	l, f := in.Model.Labels, in.Model.Fleet
	present := func(names ...string) string {
		for _, name := range names {
			if out.has(name) && !pinned[name] {
				return name
			}
		}
		return ""
	}
	p := projection{series: 1}
	mul := func(label string, by int) {
		if label != "" {
			p.series *= by
			p.factor = label
		}
	}
	cluster := present(l.Cluster)
	host := present(l.Host, l.Node, "instance")
	gpu := present(l.UUID, l.PCIBusID, l.GPU, l.Device)
	mig := present(l.MIGInstance)
	pod := present(l.Pod, "pod", l.Container, "container")
	ns := present(l.Namespace, "namespace")
	namespacePinned := pinned[l.Namespace] || pinned["namespace"]
	podPinned := pinned[l.Pod] || pinned["pod"]
	switch {
	case (gpu != "" || mig != "" || pod != "") && (namespacePinned || podPinned) && host != "":
		// The GPUs of one namespace (spread over hosts), or of one pod (one host).
		if !pinned[l.Cluster] {
			mul(firstNonEmpty(cluster, host), f.Clusters)
		}
		perNamespace := max(1, f.NodesPerCluster*f.GPUsPerNode/max(1, f.NamespacesPerCluster))
		if podPinned {
			perNamespace = f.GPUsPerNode
		}
		mul(firstNonEmpty(gpu, pod, mig), perNamespace)
		if mig != "" {
			mul(mig, f.MIGInstancesPerGPU)
		}
	case gpu != "" || mig != "" || host != "" || pod != "":
		// Host-scoped series exist per host of every cluster.
		if !pinned[l.Cluster] {
			mul(firstNonEmpty(cluster, host, gpu, pod), f.Clusters)
		}
		if !pinned[l.Host] && !pinned[l.Node] {
			mul(firstNonEmpty(host, gpu, pod), f.NodesPerCluster)
		}
		switch {
		case gpu != "" || mig != "":
			mul(firstNonEmpty(gpu, mig), f.GPUsPerNode)
			if mig != "" {
				mul(mig, f.MIGInstancesPerGPU)
			}
		case pod != "":
			mul(pod, f.PodsPerNode)
		}
	case ns != "":
		mul(cluster, f.Clusters)
		mul(ns, f.NamespacesPerCluster)
	case cluster != "":
		mul(cluster, f.Clusters)
	}
	return p
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

// Labeler reports which labels the results of expressions carry, reasoning as the checks do
// over the catalog's fields and metrics and the recording rules gpuobs generates.
type Labeler struct{ in *Inputs }

// NewLabeler prepares a Labeler for a catalog.
func NewLabeler(m *model.Model) *Labeler { return &Labeler{in: NewInputs(m, nil)} }

// Labels are the label names of expr's result, and whether others may appear (open).
func (l *Labeler) Labels(expr string) (names []string, open bool, err error) {
	n, err := promql.Parse(expr)
	if err != nil {
		return nil, false, err
	}
	s := l.in.outputLabels(n)
	return s.sorted(), s.open, nil
}
