package semdiff

import (
	"maps"
	"slices"
	"strings"

	"github.com/gpuobs/gpuobs/internal/output"
)

// Kinds of change.
const (
	Added   = "added"
	Removed = "removed"
	Changed = "changed"
)

// Report is what changed from a base output to a head output.
type Report struct {
	Base     string          `json:"base"`
	Head     string          `json:"head"`
	Alerts   []AlertChange   `json:"alerts"`
	Records  []RecordChange  `json:"records"`
	Panels   []PanelChange   `json:"panels"`
	Counters []CounterChange `json:"counters"`
	// Receivers are the receivers whose integrations changed.
	Receivers []ReceiverChange `json:"receivers,omitempty"`
	// Files are the other generated files that differ (runbooks, promtool tests, the catalog
	// reference, dashboard ConfigMaps, and dashboards whose change lies outside their panels'
	// queries: thresholds, units, text).
	Files []FileChange `json:"files,omitempty"`
	// Unrouted is set when a side has no Alertmanager configuration: receivers and silencers
	// are then unknown on that side.
	Unrouted []string `json:"unrouted,omitempty"`
}

// AlertChange is an alert added, removed, or changed in its definition or its routing.
type AlertChange struct {
	Name   string `json:"name"`
	Change string `json:"change"`
	// Fields are the definition's changes: expr, for, labels.<name>, annotations.<name>.
	Fields []FieldChange `json:"fields,omitempty"`
	// Base and Head are the alert on each side (nil where it does not exist).
	Base *Alert `json:"base,omitempty"`
	Head *Alert `json:"head,omitempty"`
	// RoutingChanged is set when the receivers or the silencing alerts differ.
	RoutingChanged bool `json:"routingChanged"`
}

// FieldChange is one field's value on each side ("" where absent).
type FieldChange struct {
	Field string `json:"field"`
	Base  string `json:"base"`
	Head  string `json:"head"`
}

// RecordChange is a recording rule added, removed or redefined, and what reads it.
type RecordChange struct {
	Name   string `json:"name"`
	Change string `json:"change"`
	// File is the rule file that holds it (head side; base side for a removed record).
	File string `json:"file"`
	Base string `json:"base,omitempty"`
	Head string `json:"head,omitempty"`
	// ReadBy are the alerts, records and panels that read it (head side; base side for a
	// removed record).
	ReadBy []string `json:"readBy,omitempty"`
}

// PanelChange is a dashboard panel added or removed, or its queries changed.
type PanelChange struct {
	Dashboard string   `json:"dashboard"`
	Title     string   `json:"title"`
	Change    string   `json:"change"`
	Added     []string `json:"queriesAdded,omitempty"`
	Removed   []string `json:"queriesRemoved,omitempty"`
}

// FileChange is a generated file added, removed or changed that no other change accounts for.
type FileChange struct {
	Path   string `json:"path"`
	Change string `json:"change"`
}

// CounterChange is an exporter counter field added or removed, or its type changed.
type CounterChange struct {
	Field  string `json:"field"`
	Change string `json:"change"`
	Base   string `json:"base,omitempty"`
	Head   string `json:"head,omitempty"`
}

// RoutingChanges counts the alerts whose receivers or silencers differ (an alert on one side
// only counts when it reaches a receiver there).
func (r *Report) RoutingChanges() int {
	n := 0
	for _, a := range r.Alerts {
		if a.RoutingChanged {
			n++
		}
	}
	return n
}

// Empty reports whether nothing changed.
func (r *Report) Empty() bool {
	return len(r.Alerts)+len(r.Records)+len(r.Panels)+len(r.Counters)+len(r.Receivers)+len(r.Files) == 0
}

// Compare reports every change from base to head; the names label the sides in the report.
func Compare(baseName string, base *Output, headName string, head *Output) *Report {
	r := &Report{Base: baseName, Head: headName}
	if !base.routed {
		r.Unrouted = append(r.Unrouted, baseName)
	}
	if !head.routed {
		r.Unrouted = append(r.Unrouted, headName)
	}
	for _, k := range unionKeys(base.Alerts, head.Alerts) {
		if c, ok := compareAlert(k, base.Alerts[k], head.Alerts[k]); ok {
			r.Alerts = append(r.Alerts, c)
		}
	}
	for _, k := range unionKeys(base.Records, head.Records) {
		b, h := base.Records[k], head.Records[k]
		c := RecordChange{Name: k}
		switch {
		case b == nil:
			c.Change, c.File, c.Head, c.ReadBy = Added, h.File, h.Expr, head.readers(h.Name)
		case h == nil:
			c.Change, c.File, c.Base, c.ReadBy = Removed, b.File, b.Expr, base.readers(b.Name)
		case b.Expr != h.Expr:
			c.Change, c.File, c.Base, c.Head, c.ReadBy = Changed, h.File, b.Expr, h.Expr, head.readers(h.Name)
		default:
			continue
		}
		r.Records = append(r.Records, c)
	}
	for _, k := range unionKeys(base.Panels, head.Panels) {
		b, h := base.Panels[k], head.Panels[k]
		switch {
		case b == nil:
			r.Panels = append(r.Panels, PanelChange{Dashboard: h.Dashboard, Title: h.Title, Change: Added, Added: h.Queries})
		case h == nil:
			r.Panels = append(r.Panels, PanelChange{Dashboard: b.Dashboard, Title: b.Title, Change: Removed, Removed: b.Queries})
		default:
			added, removed := setDiff(h.Queries, b.Queries), setDiff(b.Queries, h.Queries)
			if len(added)+len(removed) > 0 {
				r.Panels = append(r.Panels, PanelChange{Dashboard: h.Dashboard, Title: h.Title, Change: Changed, Added: added, Removed: removed})
			}
		}
	}
	for _, k := range unionKeys(base.Counters, head.Counters) {
		b, inBase := base.Counters[k]
		h, inHead := head.Counters[k]
		switch {
		case !inBase:
			r.Counters = append(r.Counters, CounterChange{Field: k, Change: Added, Head: h})
		case !inHead:
			r.Counters = append(r.Counters, CounterChange{Field: k, Change: Removed, Base: b})
		case b != h:
			r.Counters = append(r.Counters, CounterChange{Field: k, Change: Changed, Base: b, Head: h})
		}
	}
	r.Receivers = compareReceivers(base.Receivers, head.Receivers)
	accounted := r.accounted()
	for _, k := range unionKeys(base.Files, head.Files) {
		b, inBase := base.Files[k]
		h, inHead := head.Files[k]
		switch {
		case !inBase:
			r.Files = append(r.Files, FileChange{Path: k, Change: Added})
		case !inHead:
			r.Files = append(r.Files, FileChange{Path: k, Change: Removed})
		case b != h && !accounted(k):
			r.Files = append(r.Files, FileChange{Path: k, Change: Changed})
		}
	}
	return r
}

// accounted reports whether the report's other changes account for a changed file: a rule
// file holding a changed rule (and the formats that repeat the rule files, when any rule
// changed), a dashboard with changed panels, the Alertmanager files when routing or a receiver
// changed, the exporter's files when a counter field changed.
func (r *Report) accounted() func(path string) bool {
	files := map[string]bool{}
	for _, c := range r.Alerts {
		for _, a := range []*Alert{c.Base, c.Head} {
			if a != nil && (len(c.Fields) > 0 || c.Change != Changed) {
				files[a.File] = true
			}
		}
	}
	for _, c := range r.Records {
		files[c.File] = true
	}
	for _, c := range r.Panels {
		files[c.Dashboard] = true
	}
	dirs := map[string]bool{
		output.AlertmanagerDir: r.RoutingChanges()+len(r.Receivers) > 0,
		output.ExporterDir:     len(r.Counters) > 0,
	}
	rulesChanged := len(r.Records) > 0 || slices.ContainsFunc(r.Alerts, func(c AlertChange) bool { return len(c.Fields) > 0 || c.Change != Changed })
	return func(p string) bool {
		dir, _, _ := strings.Cut(p, "/")
		repeats := slices.ContainsFunc(output.RepeatedRuleFormats, func(f string) bool { return strings.HasPrefix(p, output.RulesDir+"/"+f+"/") })
		return files[p] || dirs[dir] || repeats && rulesChanged
	}
}

// compareAlert compares one alert's sides; ok is false when nothing differs.
func compareAlert(name string, b, h *Alert) (AlertChange, bool) {
	c := AlertChange{Name: name, Base: b, Head: h}
	switch {
	case b == nil:
		c.Change, c.RoutingChanged = Added, len(h.Receivers) > 0
		return c, true
	case h == nil:
		c.Change, c.RoutingChanged = Removed, len(b.Receivers) > 0
		return c, true
	}
	c.Change = Changed
	field := func(f, bv, hv string) {
		if bv != hv {
			c.Fields = append(c.Fields, FieldChange{Field: f, Base: bv, Head: hv})
		}
	}
	field("expr", b.Expr, h.Expr)
	field("for", b.For, h.For)
	field("keep_firing_for", b.KeepFiringFor, h.KeepFiringFor)
	for _, l := range unionKeys(b.Labels, h.Labels) {
		field("labels."+l, b.Labels[l], h.Labels[l])
	}
	for _, a := range unionKeys(b.Annotations, h.Annotations) {
		field("annotations."+a, b.Annotations[a], h.Annotations[a])
	}
	c.RoutingChanged = !slices.Equal(b.Receivers, h.Receivers) || !slices.Equal(b.SilencedBy, h.SilencedBy)
	return c, len(c.Fields) > 0 || c.RoutingChanged
}

// readers are the alerts, records and panels of an output that read a metric.
func (o *Output) readers(metric string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(o.Alerts)) {
		if slices.Contains(o.Alerts[k].reads, metric) {
			out = append(out, "alert "+k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(o.Records)) {
		if slices.Contains(o.Records[k].reads, metric) {
			out = append(out, "record "+k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(o.Panels)) {
		if slices.Contains(o.Panels[k].reads, metric) {
			out = append(out, "panel "+k)
		}
	}
	return out
}

// unionKeys are the keys of two maps, sorted, each once.
func unionKeys[T any](a, b map[string]T) []string {
	keys := slices.AppendSeq(slices.Collect(maps.Keys(a)), maps.Keys(b))
	slices.Sort(keys)
	return slices.Compact(keys)
}

// setDiff are the strings of a that b lacks, in a's order.
func setDiff(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}
