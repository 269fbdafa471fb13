package plan

import (
	"slices"
	"strings"
	"sync"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/promql/labelflow"
)

// Source is a rule that records a metric: its expression (nil when it does not parse) and the
// static labels it adds.
type Source struct {
	Expr   *promql.Node
	Labels map[string]string
}

// Labels resolves which labels the series of expressions carry: DCGM fields by the exporter's
// label profile, the catalog's metrics and their histogram series by their declared labels,
// recorded metrics by the expressions of the rules recording them, anything else as open.
// It is safe for concurrent use.
type Labels struct {
	m        *model.Model
	recorded map[string][]Source
	mu       sync.Mutex
	memo     map[string]labelflow.Set
	// targetLabels opens the label set of every scraped series: a scrape configuration adds
	// target labels (kubernetes_node, region, ...) that no catalog lists.
	targetLabels bool
	// external is a label every scraped series carries once it leaves its Prometheus (the
	// shard label of a sharded topology), empty for none.
	external string
}

// WithTargetLabels makes the resolver allow labels a scrape configuration adds to any scraped
// series, beyond the ones the catalog lists; recorded series keep exactly their rules' labels.
func (l *Labels) WithTargetLabels() *Labels {
	l.targetLabels = true
	return l
}

// NewLabels resolves labels over a catalog and the rules recording each metric name.
func NewLabels(m *model.Model, recorded map[string][]Source) *Labels {
	return &Labels{m: m, recorded: recorded, memo: map[string]labelflow.Set{}}
}

// newRecordedLabels resolves labels over the catalog and the plan's recording rules.
func newRecordedLabels(m *model.Model, recorded []Recorded) *Labels {
	sources := map[string][]Source{}
	for _, r := range recorded {
		sources[r.Name] = append(sources[r.Name], Source{Expr: r.Parsed, Labels: r.Labels})
	}
	return NewLabels(m, sources)
}

// Of is the labels of an expression's series.
func (l *Labels) Of(n *promql.Node) labelflow.Set {
	l.mu.Lock()
	defer l.mu.Unlock()
	return labelflow.Output(n, l.metric)
}

// Expr is the label names of an expression's result, and whether others may appear (open).
func (l *Labels) Expr(expr string) (names []string, open bool, err error) {
	n, err := promql.Parse(expr)
	if err != nil {
		return nil, false, err
	}
	s := l.Of(n)
	return s.Sorted(), s.Open, nil
}

func (l *Labels) metric(name string) labelflow.Set {
	s := l.scraped(name)
	if l.external != "" && l.recorded[name] == nil {
		s = s.With(l.external)
	}
	return s
}

// scraped is the labels of a metric's series as its rules or scrape configuration give them.
func (l *Labels) scraped(name string) labelflow.Set {
	if _, ok := l.m.Fields[name]; ok {
		s := exporterLabels(l.m, name)
		s.Open = l.targetLabels
		return s
	}
	if mt, ok := l.m.Metrics[name]; ok {
		return labelflow.NewSet(l.targetLabels, mt.Labels...)
	}
	if mt, ok := l.m.HistogramSeries(name); ok {
		if strings.HasSuffix(name, "_bucket") {
			return labelflow.NewSet(l.targetLabels, append(slices.Clip(mt.Labels), "le")...)
		}
		return labelflow.NewSet(l.targetLabels, mt.Labels...)
	}
	rules := l.recorded[name]
	if len(rules) == 0 {
		return labelflow.NewSet(true)
	}
	if s, ok := l.memo[name]; ok {
		return s
	}
	l.memo[name] = labelflow.NewSet(true) // breaks cycles
	// A name recorded by several rules carries the labels of any of them.
	s := labelflow.NewSet(false)
	for _, r := range rules {
		if r.Expr == nil {
			s = labelflow.NewSet(true)
			break
		}
		s = s.Union(labelflow.Output(r.Expr, l.metric).With(model.SortedKeys(r.Labels)...))
	}
	l.memo[name] = s
	return s
}

// exporterLabels are the labels a DCGM field's series can carry.
func exporterLabels(m *model.Model, field string) labelflow.Set {
	l := m.Labels
	s := labelflow.NewSet(false, l.Cluster, l.Host, l.GPU, l.UUID, l.PCIBusID, l.Device, l.ModelName, l.DriverVersion,
		"job", "instance", l.Namespace, l.Pod, l.Container, l.ExportedNamespace, l.ExportedPod, "exported_"+l.Container, l.MIGInstance, l.MIGProfile)
	if m.Fields[field].Kind == model.KindLastEvent {
		s = s.With("err_code", "err_msg")
	}
	if m.Fields[field].Entity == model.EntityNVLink {
		s = s.With("gpu_uuid", "model_name", "link")
	}
	return s
}
