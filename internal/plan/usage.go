package plan

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/promql"
)

// Usage is the usage index: what reads which metric, and what the exporter must collect.
type Usage struct {
	// Users maps every metric to what reads it directly: recording rules (their name in
	// backquotes), alerts (by name) and dashboards (by level), in that order.
	Users map[string][]string
	// Counters are the fields the exporter's counter file must collect: its default set and
	// every field a rule, alert or dashboard reads, in field id order.
	Counters []string
	// LabelRows are the exporter's label fields that a rule, alert or dashboard reads (the
	// driver version): dcgm-exporter adds a label only for a counter-file row typed label.
	LabelRows []string
}

// Missing lists, by alert, the DCGM fields an alert reads (directly or through recording
// rules) that the exporter does not collect, for the alerts that then never fire: every branch
// of the expression needs one of them. An alert that falls back to a collected field (the XID
// alerts read the per-code count or the last-XID gauge) is not listed.
func (p *Plan) Missing() map[string][]string {
	return p.blindWithout(func(f model.Field, name string) bool { return !p.Model.Collected(name) })
}

// BlindOnDefaultSet lists, by alert, the DCGM fields outside dcgm-exporter's default counter
// set that an alert reads, for the alerts that never fire on that set (an exporter deployed
// without the generated counter file).
func (p *Plan) BlindOnDefaultSet() map[string][]string {
	return p.blindWithout(func(f model.Field, _ string) bool { return !f.Default })
}

// blindWithout lists, by alert, the fields an alert reads that absent says are not collected,
// for the alerts that then never fire: every branch of the expression needs one of them.
func (p *Plan) blindWithout(absent func(f model.Field, name string) bool) map[string][]string {
	rd := newReader(p.Recorded)
	uncollected := func(metric string) bool {
		f, isField := p.Model.Fields[metric]
		return isField && absent(f, metric)
	}
	out := map[string][]string{}
	for _, name := range model.SortedKeys(p.Alerts) {
		var missing []string
		for _, f := range p.Alerts[name].Fields {
			if uncollected(f) {
				missing = append(missing, f)
			}
		}
		if len(missing) == 0 {
			continue
		}
		if n, err := promql.Parse(p.Alerts[name].Expr); err != nil || rd.empty(n, uncollected, map[string]bool{}) {
			out[name] = missing
		}
	}
	return out
}

// empty reports whether an expression yields no series while the metrics dead names have
// none: a recorded metric is empty when every rule recording it (that its selector can read)
// is; `or` when both sides are, `unless` when its left side is; absent() and vector() never.
func (rd reader) empty(n *promql.Node, dead func(metric string) bool, visiting map[string]bool) bool {
	switch n.Kind {
	case promql.Selector:
		if dead(n.Name) {
			return true
		}
		rules := rd.byName[n.Name]
		if len(rules) == 0 || visiting[n.Name] {
			return false
		}
		visiting[n.Name] = true
		defer delete(visiting, n.Name)
		for _, r := range rules {
			if allows(n.Matchers, r.Labels) && (r.Parsed == nil || !rd.empty(r.Parsed, dead, visiting)) {
				return false
			}
		}
		return true
	case promql.Call:
		if slices.Contains([]string{"absent", "absent_over_time", "vector", "time"}, n.Name) {
			return false
		}
	case promql.Binary:
		left, right := rd.empty(n.Args[0], dead, visiting), rd.empty(n.Args[1], dead, visiting)
		switch n.Name {
		case "or":
			return left && right
		case "unless":
			return left
		}
		return left || right
	}
	for _, a := range n.Args {
		if rd.empty(a, dead, visiting) {
			return true
		}
	}
	return false
}

// reader follows expressions through recording rules.
type reader struct{ byName map[string][]Recorded }

func newReader(recorded []Recorded) reader {
	r := reader{byName: map[string][]Recorded{}}
	for _, rule := range recorded {
		r.byName[rule.Name] = append(r.byName[rule.Name], rule)
	}
	return r
}

// reads lists every metric expr reads, directly or through the recording rules, sorted. A
// selector reaches only the rules of its name whose static labels its equality matchers allow:
// slo:sli_error:ratio_rate1h{slo="A"} reads SLO A's rule, not SLO B's.
func (rd reader) reads(expr string) ([]string, error) {
	seen := map[string]bool{}
	visited := map[string]bool{}
	var visit func(expr string) error
	visit = func(expr string) error {
		n, err := promql.Parse(expr)
		if err != nil {
			return err
		}
		var errs []error
		promql.Walk(n, func(c *promql.Node, _ []*promql.Node) {
			if c.Kind != promql.Selector || c.Name == "" {
				return
			}
			seen[c.Name] = true
			for _, r := range rd.byName[c.Name] {
				if key := r.Name + fmt.Sprint(r.Labels); allows(c.Matchers, r.Labels) && !visited[key] {
					visited[key] = true
					if err := visit(r.Expr); err != nil {
						errs = append(errs, err)
					}
				}
			}
		})
		return errors.Join(errs...)
	}
	if err := visit(expr); err != nil {
		return nil, err
	}
	return model.SortedKeys(seen), nil
}

// requires lists the metrics without whose series expr is empty, directly or through the
// recording rules it reads, sorted: a selector requires its metric; a or b what both require;
// a unless b what a requires; any other operation, aggregation or function what its operands
// require, except absent(), absent_over_time() and vector(), which need nothing.
func (rd reader) requires(expr string) ([]string, error) {
	n, err := promql.Parse(expr)
	if err != nil {
		return nil, err
	}
	var errs []error
	var req func(n *promql.Node, seen map[string]bool) map[string]bool
	req = func(n *promql.Node, seen map[string]bool) map[string]bool {
		switch {
		case n.Kind == promql.Selector:
			rules := rd.byName[n.Name]
			if len(rules) == 0 {
				return map[string]bool{n.Name: true}
			}
			// A record is empty only when every rule of its name the selector reaches is.
			var out map[string]bool
			for _, r := range rules {
				if !allows(n.Matchers, r.Labels) || seen[r.Name+fmt.Sprint(r.Labels)] {
					continue
				}
				rn, err := promql.Parse(r.Expr)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				inner := maps.Clone(seen)
				inner[r.Name+fmt.Sprint(r.Labels)] = true
				out = intersect(out, req(rn, inner))
			}
			return out
		case n.Kind == promql.Call && slices.Contains([]string{"absent", "absent_over_time", "vector"}, n.Name):
			return nil
		case n.Kind == promql.Binary && n.Name == "or":
			return intersect(req(n.Args[0], seen), req(n.Args[1], seen))
		case n.Kind == promql.Binary && n.Name == "unless":
			return req(n.Args[0], seen)
		}
		out := map[string]bool{}
		for _, a := range n.Args {
			maps.Copy(out, req(a, seen))
		}
		return out
	}
	out := req(n, map[string]bool{})
	return model.SortedKeys(out), errors.Join(errs...)
}

// intersect is what both sets hold; a nil set stands for "not yet any".
func intersect(a, b map[string]bool) map[string]bool {
	if a == nil {
		return maps.Clone(b)
	}
	out := map[string]bool{}
	for k := range a {
		if b[k] {
			out[k] = true
		}
	}
	return out
}

// dcgmFields are the DCGM fields among metrics.
func dcgmFields(m *model.Model, metrics []string) []string {
	var out []string
	for _, n := range metrics {
		if _, ok := m.Fields[n]; ok {
			out = append(out, n)
		}
	}
	return out
}

// allows reports whether a rule's static labels can satisfy a selector's equality matchers.
func allows(matchers []promql.Matcher, labels map[string]string) bool {
	for _, m := range matchers {
		if v, ok := labels[m.Name]; ok && m.Type == "=" && v != m.Value {
			return false
		}
	}
	return true
}

// read is one expression the catalog's rules and panels evaluate: the catalog path of what
// reads it (an SLO's records by the SLO), the name the counter file credits with it, and the
// expression parsed.
type read struct {
	what, user string
	expr       *promql.Node
}

// reads lists every expression the recording rules, alerts and dashboards evaluate, each with
// its catalog path; one that does not parse is an error by its path.
func reads(m *model.Model, recorded []Recorded) ([]read, error) {
	var out []read
	var errs []error
	parse := func(what, user, expr string) {
		n, err := promql.Parse(expr)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", what, err))
			return
		}
		out = append(out, read{what, user, n})
	}
	for _, r := range recorded {
		what := "recording rule " + r.Name
		if slo := r.Labels["slo"]; slo != "" {
			what = "slos." + slo + " (" + what + ")"
		}
		out = append(out, read{what, "`" + r.Name + "`", r.Parsed})
	}
	for _, name := range model.SortedKeys(m.Alerts) {
		parse("alerts."+name+".expr", name, m.Alerts[name].Expr)
	}
	for _, level := range model.SortedKeys(m.Dashboards) {
		for _, expr := range DashboardExprs(m.Dashboards[level]) {
			parse("dashboards."+level, level, promql.FillGrafanaVariables(expr))
		}
	}
	return out, errors.Join(errs...)
}

// usage indexes who reads which metric directly, and derives the counter set from it. It also
// returns, for every metric read, the catalog paths of what reads it, for checkMetricsKnown.
func usage(m *model.Model, rs []read) (Usage, map[string][]string) {
	users, readBy := map[string][]string{}, map[string][]string{}
	driverLabelRead := false
	for _, r := range rs {
		driverLabelRead = driverLabelRead || readsLabel(r.expr, m.Labels.DriverVersion)
		promql.Walk(r.expr, func(c *promql.Node, _ []*promql.Node) {
			if c.Kind != promql.Selector || c.Name == "" {
				return
			}
			if !slices.Contains(users[c.Name], r.user) {
				users[c.Name] = append(users[c.Name], r.user)
			}
			if !slices.Contains(readBy[c.Name], r.what) {
				readBy[c.Name] = append(readBy[c.Name], r.what)
			}
		})
	}
	for k := range users {
		slices.SortStableFunc(users[k], func(a, b string) int { return rank(a) - rank(b) })
	}
	var counters []string
	for _, name := range model.SortedKeys(m.Fields) {
		if m.Fields[name].Default || len(users[name]) > 0 {
			counters = append(counters, name)
		}
	}
	slices.SortStableFunc(counters, func(a, b string) int { return cmp.Compare(m.Fields[a].ID, m.Fields[b].ID) })
	u := Usage{Users: users, Counters: counters}
	if driverLabelRead {
		u.LabelRows = []string{m.Exporter.DriverField}
	}
	return u, readBy
}

// readsLabel reports whether an expression names a label: in a matcher, a grouping, vector
// matching, or a string argument (label_replace, label_join, count_values).
func readsLabel(n *promql.Node, label string) bool {
	found := false
	promql.Walk(n, func(c *promql.Node, _ []*promql.Node) {
		for _, m := range c.Matchers {
			found = found || m.Name == label
		}
		v := c.Vector()
		found = found || slices.Contains(c.Grouping, label) || slices.Contains(v.MatchOn, label) || slices.Contains(v.Include, label) ||
			c.Kind == promql.String && c.Name == label
	})
	return found
}

// rank orders users: recording rules, alerts, dashboards.
func rank(user string) int {
	switch {
	case strings.HasPrefix(user, "`"):
		return 0
	case len(user) == 2 && user[0] == 'L':
		return 2
	}
	return 1
}

// RuleExprs lists the expression of every recording rule, in evaluation order, then of every
// alert, by name.
func (p *Plan) RuleExprs() []string {
	out := make([]string, 0, len(p.Recorded)+len(p.Model.Alerts))
	for _, r := range p.Recorded {
		out = append(out, r.Expr)
	}
	for _, name := range model.SortedKeys(p.Model.Alerts) {
		out = append(out, p.Model.Alerts[name].Expr)
	}
	return out
}

// DashboardExprs lists a dashboard's PromQL: panel queries, annotations, and the selectors
// of its label_values variables.
func DashboardExprs(d model.Dashboard) []string {
	var out []string
	for _, r := range d.Rows {
		for _, p := range r.Panels {
			for _, q := range p.Queries {
				out = append(out, q.Expr)
			}
		}
	}
	for _, a := range d.Annotations {
		out = append(out, a.Expr)
	}
	for _, v := range d.Variables {
		if inner, ok := strings.CutPrefix(v.Query, "label_values("); ok {
			if i := strings.LastIndex(inner, ","); i > 0 {
				out = append(out, inner[:i])
			}
		}
	}
	return out
}
