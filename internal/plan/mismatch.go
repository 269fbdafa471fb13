package plan

import (
	"fmt"
	"slices"
	"time"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/promql"
)

// AbsentByExporterLabels lists, sorted, the alerts that an exporter label mismatch makes
// fire for every GPU or node: those with an unless whose right side reads the exporter's
// series with the host or cluster label on them, matched on that label, and whose left side's
// series keep their labels longer than the right side's do (another source's, such as
// kube-state-metrics' nodes, or the exporter's own over a longer past window). An exporter
// that sends the label empty or under another name leaves the right side matching nothing
// once its window has passed: every series on the left reads as one the exporter lacks.
// Alerts whose sides both read the exporter over the same window match each other under any
// labels, and alerts that only read its series (a threshold, a filter by maintenance) fire on
// real events still: a mismatch does not make them meaningless.
func (p *Plan) AbsentByExporterLabels() []string {
	rd := newReader(p.Recorded)
	l := p.Model.Labels
	var out []string
	for name, a := range p.Alerts {
		n, err := promql.Parse(a.Expr)
		if err != nil {
			continue
		}
		// A selector reads the exporter when it is a catalog field or a recording rule that
		// reads one (the rules its matchers can select).
		exporter := func(sel *promql.Node) bool {
			metrics, err := rd.reads(a.Expr[sel.Start:sel.End])
			return err == nil && len(dcgmFields(p.Model, metrics)) > 0
		}
		found := false
		promql.Walk(n, func(c *promql.Node, _ []*promql.Node) {
			if found || c.Kind != promql.Binary || c.Name != "unless" {
				return
			}
			reads, window := false, time.Duration(0)
			origins(c.Args[1], 0, func(sel *promql.Node, w time.Duration) {
				if exporter(sel) {
					reads, window = true, max(window, w)
				}
			})
			stable := false
			origins(c.Args[0], 0, func(sel *promql.Node, w time.Duration) { stable = stable || !exporter(sel) || w > window })
			rhs := p.Labels.Of(c.Args[1])
			for _, label := range []string{l.Host, l.Cluster} {
				found = found || stable && reads && label != "" && matchesOnLabel(c, label) && rhs.MayHave(label)
			}
		})
		if found {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// origins calls fn for each selector an expression's result series come from (their labels
// are its), with the window it is read over (0 for an instant): the left side of and/unless
// and of a one-to-one or many-to-one operation, the right of one-to-many, both of or; the
// vector an aggregation or a function reads.
func origins(n *promql.Node, window time.Duration, fn func(sel *promql.Node, window time.Duration)) {
	switch n.Kind {
	case promql.Selector:
		fn(n, window+n.Range)
	case promql.Subquery:
		origins(n.Args[0], window+n.Range, fn)
	case promql.Aggregate, promql.Unary:
		origins(n.Args[len(n.Args)-1], window, fn)
	case promql.Call:
		for _, a := range n.Args {
			origins(a, window, fn)
		}
	case promql.Binary:
		switch {
		case n.Name == "or":
			origins(n.Args[0], window, fn)
			origins(n.Args[1], window, fn)
		case n.Vector().Card == "one-to-many" || n.Args[0].Kind == promql.Number:
			origins(n.Args[1], window, fn)
		default:
			origins(n.Args[0], window, fn)
		}
	}
}

// matchesOnLabel reports whether a binary operation matches its sides on a label: on (...)
// naming it, or ignoring (...) / no modifier, which match on every label it does not name.
func matchesOnLabel(n *promql.Node, label string) bool {
	v := n.Vector()
	if v.On {
		return slices.Contains(v.MatchOn, label)
	}
	return !slices.Contains(v.MatchOn, label)
}

// checkLabelMismatchTargets holds alertmanager.inhibit.labelMismatchTargets, which the
// description and runbook texts name, to what a label mismatch does (AbsentByExporterLabels):
// every ticket it makes fire for every GPU or node is listed, each one listed is such a ticket,
// and no page is one (a ticket never silences a page). Without a labelMismatch source there is
// nothing to hold.
func checkLabelMismatchTargets(p *Plan) []error {
	ib := p.Model.Alertmanager.Inhibit
	if ib.LabelMismatch == "" {
		return nil
	}
	const path = "alertmanager.inhibit.labelMismatchTargets"
	derived := p.AbsentByExporterLabels()
	// The labels a mismatch empties, as the catalog names them.
	labels := p.Model.Labels.Host + " or " + p.Model.Labels.Cluster
	var errs []error
	for _, name := range derived {
		switch {
		case p.Model.Alerts[name].Severity == model.SeverityCritical:
			errs = append(errs, fmt.Errorf("alerts.%s: a page that an exporter label mismatch (%s) makes fire for every GPU or node: it fires where the exporter's series are absent matched on %s, which a mismatch empties, and a ticket cannot silence a page; make it a ticket (then list it in %s) or match on labels the exporter always sends", name, ib.LabelMismatch, labels, path))
		case !slices.Contains(ib.LabelMismatchTargets, name):
			errs = append(errs, fmt.Errorf("%s: lacks %s, which an exporter label mismatch (%s) makes fire for every GPU or node (it fires where the exporter's series are absent matched on %s, which a mismatch empties); list it, so that the mismatch silences it in its cluster", path, name, ib.LabelMismatch, labels))
		}
	}
	for i, name := range ib.LabelMismatchTargets {
		if _, ok := p.Alerts[name]; ok && !slices.Contains(derived, name) {
			errs = append(errs, fmt.Errorf("%s[%d]: %s does not fire under an exporter label mismatch (it reads no exporter series absent by %s), so silencing it would hide what it still says; remove it", path, i, name, labels))
		}
	}
	return errs
}
