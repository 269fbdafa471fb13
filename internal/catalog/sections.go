package catalog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/promql"
)

// retentionSection is the section of the retention tiers (recording.retention), which no
// entry names: it switches the tiers off.
const retentionSection = "retention"

// sections applies enabled: it removes what each section switched off holds (its alerts,
// records, SLOs with the alerts and records expanded from them, metrics, and the retention
// tiers), then what reads only what went: dashboard panels, variables and annotations,
// runbook queries, and scenario expectations of removed alerts. A rule left that reads what
// went is a problem naming both, and so is a section name nothing uses.
func (v *validator) sections(m *model.Model) {
	v.knownSections(m)
	off := map[string]bool{}
	for name, on := range m.Enabled {
		off[name] = !on
	}
	if off[retentionSection] {
		m.Recording.Retention.Intervals = nil
	}
	gone := map[string]string{} // metric name -> the section it went with
	removedSLOs := map[string]string{}
	for name, s := range m.SLOs {
		if off[s.Section] {
			removedSLOs[name] = s.Section
			delete(m.SLOs, name)
		}
	}
	// An entry goes with its section, or with the SLO it was expanded from.
	goesWith := func(section string, labels map[string]string) (string, bool) {
		if off[section] {
			return section, true
		}
		s, ok := removedSLOs[labels["slo"]]
		return s, ok
	}
	kept := map[string]bool{}
	for key, r := range m.Records {
		name := key
		if r.Record != "" {
			name = r.Record
		}
		if section, ok := goesWith(r.Section, r.Labels); ok {
			gone[name] = section
			delete(m.Records, key)
		} else {
			kept[name] = true
		}
	}
	for name := range kept {
		delete(gone, name) // another rule still records it
	}
	for name, mt := range m.Metrics {
		if off[mt.Section] {
			gone[name] = mt.Section
			delete(m.Metrics, name)
		}
	}
	removedAlerts := map[string]bool{}
	for name, a := range m.Alerts {
		if _, ok := goesWith(a.Section, a.Labels); ok {
			removedAlerts[name] = true
			delete(m.Alerts, name)
		}
	}
	if len(gone) == 0 && len(removedAlerts) == 0 {
		return
	}
	reads := func(expr string) (string, bool) { return readsGone(expr, gone) }
	for _, key := range model.SortedKeys(m.Records) {
		if name, ok := reads(m.Records[key].Expr); ok {
			v.add("records."+key+".expr", "%s", readsWhatWent(m.Records[key].Section, name, gone[name]))
		}
	}
	for _, name := range model.SortedKeys(m.Alerts) {
		a := m.Alerts[name]
		if metric, ok := reads(a.Expr); ok {
			v.add("alerts."+name+".expr", "%s", readsWhatWent(a.Section, metric, gone[metric]))
		}
		a.Runbook.Queries = slices.DeleteFunc(a.Runbook.Queries, func(q model.RunbookQuery) bool { _, ok := reads(q.Expr); return ok })
		for i := range a.Tests {
			a.Tests[i].AlsoFires = slices.DeleteFunc(slices.Clone(a.Tests[i].AlsoFires), func(f model.AlsoFiring) bool { return removedAlerts[f.Alert] })
		}
		m.Alerts[name] = a
	}
	for name, d := range m.Dashboards {
		m.Dashboards[name] = withoutReaders(d, reads)
	}
}

// readsWhatWent says that a rule of section reads a metric that went with another section.
func readsWhatWent(section, metric, wentWith string) string {
	if section == "" {
		return fmt.Sprintf("reads %s, which went with section %s (enabled.%s is false); this rule is not in a section: switch %s on, or remove the rule", metric, wentWith, wentWith, wentWith)
	}
	return fmt.Sprintf("reads %s, which went with section %s; section %s needs it: switch %s off too (enabled+: { %s: false }), or %s on", metric, wentWith, section, section, section, wentWith)
}

// knownSections reports each section an entry names that enabled does not list (the entry
// stays), and each section switched off that no entry names (nor the retention tiers).
func (v *validator) knownSections(m *model.Model) {
	used := map[string]bool{retentionSection: true}
	check := func(path, section string) {
		if _, listed := m.Enabled[section]; listed {
			used[section] = true
		} else if section != "" {
			v.add(path+".section", "is %q, which enabled does not list; add enabled+: { %s: true }", section, section)
		}
	}
	for _, name := range model.SortedKeys(m.Alerts) {
		check("alerts."+name, m.Alerts[name].Section)
	}
	for _, name := range model.SortedKeys(m.Records) {
		check("records."+name, m.Records[name].Section)
	}
	for _, name := range model.SortedKeys(m.SLOs) {
		check("slos."+name, m.SLOs[name].Section)
	}
	for _, name := range model.SortedKeys(m.Metrics) {
		check("metrics."+name, m.Metrics[name].Section)
	}
	for _, name := range model.SortedKeys(m.Enabled) {
		// A switch left on for a section a catalog emptied is harmless; one switched off
		// for a section no entry names is a typo that switches nothing off.
		if !used[name] && !m.Enabled[name] {
			v.add("enabled."+name, "is not a section of the catalog; the sections are %s", strings.Join(model.SortedKeys(used), ", "))
		}
	}
}

// readsGone reports a metric that went which an expression reads (a histogram's series by
// its name), or false; an expression that does not parse reads nothing here (validation
// reports it).
func readsGone(expr string, gone map[string]string) (string, bool) {
	// A metric an expression reads is written in it: most expressions name none that went,
	// and are not parsed.
	if !mentionsAny(expr, gone) {
		return "", false
	}
	names, err := promql.MetricNames(promql.FillGrafanaVariables(expr))
	if err != nil {
		return "", false
	}
	for _, n := range names {
		for _, base := range []string{n, strings.TrimSuffix(n, "_bucket"), strings.TrimSuffix(n, "_count"), strings.TrimSuffix(n, "_sum")} {
			if _, ok := gone[base]; ok {
				return base, true
			}
		}
	}
	return "", false
}

// mentionsAny reports whether one of the names appears in expr's text.
func mentionsAny(expr string, names map[string]string) bool {
	for name := range names {
		if strings.Contains(expr, name) {
			return true
		}
	}
	return false
}

// withoutReaders drops the panels, rows left empty, variables and annotations of a dashboard
// that read what went.
func withoutReaders(d model.Dashboard, reads func(string) (string, bool)) model.Dashboard {
	readsAny := func(qs []model.Query) bool {
		return slices.ContainsFunc(qs, func(q model.Query) bool { _, ok := reads(q.Expr); return ok })
	}
	var rows []model.Row
	for _, r := range d.Rows {
		r.Panels = slices.DeleteFunc(slices.Clone(r.Panels), func(p model.Panel) bool { return readsAny(p.Queries) })
		if len(r.Panels) > 0 {
			rows = append(rows, r)
		}
	}
	d.Rows = rows
	d.Variables = slices.DeleteFunc(slices.Clone(d.Variables), func(x model.Variable) bool {
		_, ok := reads(labelValuesExpr(x.Query))
		return ok
	})
	d.Annotations = slices.DeleteFunc(slices.Clone(d.Annotations), func(a model.DashAnnotation) bool { _, ok := reads(a.Expr); return ok })
	return d
}

// labelValuesExpr is the expression of a variable query label_values(expr, label), or the
// query itself.
func labelValuesExpr(query string) string {
	inner, ok := strings.CutPrefix(query, "label_values(")
	if !ok {
		return query
	}
	if i := strings.LastIndex(inner, ","); i >= 0 {
		return inner[:i]
	}
	return strings.TrimSuffix(inner, ")")
}
