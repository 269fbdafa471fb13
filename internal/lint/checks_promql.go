package lint

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/gpuobs/gpuobs/internal/lint/analysis"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/source"
)

// at is a problem spanning a node of an expression.
func at(f *source.File, e *source.Expr, n *promql.Node, sev Severity, format string, args ...any) Problem {
	start, end := e.PosAt(n.Start), e.PosAt(n.End)
	width := 1
	if end.Line == start.Line && end.Col > start.Col {
		width = end.Col - start.Col
	}
	return Problem{Severity: sev, Path: f.Path, Pos: start, Width: width, Message: fmt.Sprintf(format, args...)}
}

type promqlSyntax struct{}

func (promqlSyntax) Name() string { return "promql/syntax" }
func (promqlSyntax) Doc() string  { return "expressions that Prometheus cannot parse" }
func (promqlSyntax) Run(in *Inputs, report func(Problem)) {
	check := func(f *source.File, e *source.Expr, what string) {
		if e.Err != nil {
			report(Problem{Severity: Error, Path: f.Path, Pos: e.PosAt(e.Err.Offset), Width: 1, Message: what + ": " + e.Err.Msg})
		}
	}
	for _, f := range in.Files {
		for _, r := range f.Rules {
			check(f, r.Expr, "invalid PromQL in "+r.Name())
		}
		if f.Dashboard != nil {
			for _, q := range f.Dashboard.Queries {
				check(f, q.Expr, fmt.Sprintf("invalid PromQL in panel %q", q.Panel))
			}
		}
	}
}

// counterSafe are functions that read a counter correctly, or do not read its value.
var counterSafe = map[string]bool{
	"rate": true, "irate": true, "increase": true, "resets": true, "changes": true, "absent": true,
	"absent_over_time": true, "present_over_time": true, "count_over_time": true, "timestamp": true,
}

// gaugeOnly are the range functions that read a gauge: on a counter, a reset reads as a fall.
var gaugeOnly = map[string]bool{"delta": true, "idelta": true, "deriv": true}

// counterOnly are functions that are only meaningful on counters.
var counterOnly = map[string]bool{"rate": true, "irate": true, "increase": true, "resets": true}

type promqlFeature struct{}

func (promqlFeature) Name() string { return "promql/feature" }
func (promqlFeature) Doc() string {
	return "PromQL the target Prometheus (prometheus.version) does not parse as it runs: a construct a later release added, or one that needs a feature flag prometheus.enableFeatures does not list (limitk, info, fill)"
}
func (promqlFeature) Run(in *Inputs, report func(Problem)) {
	target, err := promql.ParseVersion(in.Model.Prometheus.Version)
	if err != nil {
		return // the catalog's own check says so
	}
	enabled := in.Model.Prometheus.EnableFeatures
	in.Exprs(func(f *source.File, _ *source.Rule, _ *source.Query, e *source.Expr) {
		for _, l := range promql.Lacks(e.Node, target, enabled) {
			n := &promql.Node{Start: l.Start, End: l.End}
			report(at(f, e, n, Error, "%s", l.Message(target)))
		}
	})
	// Prometheus checks alert templates when it loads a rule file.
	in.Rules(func(r *source.Rule) {
		for _, values := range []struct {
			annotation bool
			texts      map[string]string
		}{{false, r.Labels}, {true, r.Annotations}} {
			for _, name := range model.SortedKeys(values.texts) {
				for _, l := range promql.TemplateLacks(values.texts[name], target) {
					pos, ok := r.LabelAt(name)
					if values.annotation {
						pos, ok = r.AnnotationAt(name)
					}
					if !ok {
						pos = r.Pos
					}
					report(Problem{Severity: Error, Path: r.File.Path, Pos: pos, Width: 1, Message: l.Message(target)})
				}
			}
		}
	})
}

type promqlFloatLabel struct{}

func (promqlFloatLabel) Name() string { return "promql/float-label" }
func (promqlFloatLabel) Doc() string {
	return "equality matchers on le or quantile with a whole number: Prometheus 3 stores them as floats (le=\"1.0\"), so le=\"1\" matches nothing"
}
func (promqlFloatLabel) Run(in *Inputs, report func(Problem)) {
	in.Selectors(func(f *source.File, e *source.Expr, n *promql.Node, _ []*promql.Node) {
		for _, m := range n.Matchers {
			if (m.Name == "le" || m.Name == "quantile") && (m.Type == "=" || m.Type == "!=") && wholeNumber.MatchString(m.Value) {
				op := "=~"
				if m.Type == "!=" {
					op = "!~"
				}
				report(at(f, e, n, Error, "%s%s%q matches nothing on Prometheus 3, which stores %s values as floats (%q): write %s%s\"%s(\\\\.0)?\" to match both", m.Name, m.Type, m.Value, m.Name, m.Value+".0", m.Name, op, m.Value))
			}
		}
	})
}

// wholeNumber matches a label value Prometheus 3 rewrites as a float: 1, 10, 250.
var wholeNumber = regexp.MustCompile(`^[0-9]+$`)

type promqlHistogramForm struct{}

func (promqlHistogramForm) Name() string { return "promql/histogram-form" }
func (promqlHistogramForm) Doc() string {
	return "a catalog histogram read in the form the servers do not keep (prometheus.nativeHistograms): _bucket, _count or _sum of a native histogram, the bare name of a classic one"
}
func (promqlHistogramForm) Run(in *Inputs, report func(Problem)) {
	in.Selectors(func(f *source.File, e *source.Expr, n *promql.Node, _ []*promql.Node) {
		if histogram, absent := in.Model.AbsentHistogramForm(n.Name); absent {
			report(at(f, e, n, Warning, "%s reads nothing: it is %s", n.Name, plan.HistogramFormAdvice(in.Model, histogram)))
		}
	})
}

type promqlBucketBound struct{}

func (promqlBucketBound) Name() string { return "promql/bucket-bound" }
func (promqlBucketBound) Doc() string {
	return "an le matcher on a catalog histogram's buckets that selects none of its known bounds (metrics.<name>.buckets): the selector reads nothing, and a share within the threshold reads all bad"
}
func (promqlBucketBound) Run(in *Inputs, report func(Problem)) {
	in.Selectors(func(f *source.File, e *source.Expr, n *promql.Node, _ []*promql.Node) {
		if miss, ok := plan.MissedBucket(in.Model, n); ok {
			report(at(f, e, n, Error, "%s", miss.Advice()))
		}
	})
}

type promqlCounter struct{}

func (promqlCounter) Name() string { return "promql/counter" }
func (promqlCounter) Doc() string {
	return "counters read without rate()/increase(), and gauges inside them, by the catalog's real semantics"
}
func (promqlCounter) Run(in *Inputs, report func(Problem)) {
	in.Exprs(func(f *source.File, r *source.Rule, _ *source.Query, e *source.Expr) {
		promql.Walk(e.Node, func(n *promql.Node, up []*promql.Node) {
			recordsCounter := r != nil && r.Record != "" && keepsCounter(up)
			if n.Kind == promql.Selector && !recordsCounter {
				checkCounter(in, f, e, n, up, report)
			}
		})
	})
}

// keepsCounter reports whether the ancestors of a selector only pick one of its series per
// group (max, min): a recording rule that does so records a counter, which its readers rate().
func keepsCounter(up []*promql.Node) bool {
	for _, a := range up {
		if a.Kind != promql.Aggregate || (a.Name != "max" && a.Name != "min") {
			return false
		}
	}
	return true
}

// checkCounter reports a counter read without rate() or increase(), and a rate() of what is
// not a counter.
func checkCounter(in *Inputs, f *source.File, e *source.Expr, n *promql.Node, up []*promql.Node, report func(Problem)) {
	k := in.Analysis.KindOf(n.Name)
	if k.Real == "" && namedCounter(n.Name, e.Node) && !in.Analysis.Recorded(n.Name) {
		checkNamedCounter(f, e, n, up, report)
	}
	if k.Real == "" || k.Real == model.KindLifetime {
		return
	}
	var parent *promql.Node
	if len(up) > 0 {
		parent = up[len(up)-1]
	}
	if k.Real != model.KindCounter {
		if parent != nil && parent.Kind == promql.Call && counterOnly[parent.Name] {
			msg := fmt.Sprintf("%s() on %s, which is a %s", parent.Name, n.Name, k.Real)
			if k.Declared == string(model.KindCounter) {
				msg += " (the exporter declares it a counter; its value is not cumulative)"
			}
			if strings.HasSuffix(k.Unit, "_per_second") {
				msg += ": it is already a per-second rate"
			}
			report(at(f, e, parent, Error, "%s", msg))
		}
		return
	}
	for i := len(up) - 1; i >= 0; i-- {
		a := up[i]
		if (a.Kind == promql.Call && counterSafe[a.Name]) || (a.Kind == promql.Aggregate && (a.Name == "count" || a.Name == "group")) {
			return
		}
		if a.Kind == promql.Binary && (a.Name == "and" || a.Name == "unless") && i+1 <= len(up) && inRHS(a, up, i, n) {
			return
		}
	}
	since := "its process last started: every restart of it resets the count"
	if _, field := in.Model.Fields[n.Name]; field {
		since = "the exporter or the GPU driver last restarted"
	}
	report(at(f, e, n, Warning, "counter %s is used without rate() or increase(): its raw value only counts since %s", n.Name, since))
}

// namedCounter reports whether a metric is a counter by its name: _total, or the _sum or
// _count of a histogram or summary whose partner series the same expression reads (a gauge
// may end in _count; a _sum beside its _count is a histogram's).
func namedCounter(name string, expr *promql.Node) bool {
	if strings.HasSuffix(name, "_total") {
		return true
	}
	partner := ""
	if base, ok := strings.CutSuffix(name, "_sum"); ok {
		partner = base + "_count"
	} else if base, ok := strings.CutSuffix(name, "_count"); ok {
		partner = base + "_sum"
	}
	found := false
	promql.Walk(expr, func(c *promql.Node, _ []*promql.Node) {
		found = found || (partner != "" && c.Kind == promql.Selector && c.Name == partner)
	})
	return found
}

// checkNamedCounter judges a metric the catalog does not know that is a counter by its name
// (_total, as Prometheus' and OpenMetrics' conventions name every counter): its raw value
// divided is a ratio over each counter's life since its process started, not over a recent
// window. A gauge function on one (delta, idelta, deriv) is an info, not a warning: exporters
// name gauges so too (AMD's device-metrics-exporter registers gpu_ecc_correct_total as a
// gauge, and delta() is right on it), and only the exposition's TYPE line tells.
func checkNamedCounter(f *source.File, e *source.Expr, n *promql.Node, up []*promql.Node, report func(Problem)) {
	if len(up) > 0 && up[len(up)-1].Kind == promql.Call && gaugeOnly[up[len(up)-1].Name] {
		fn := up[len(up)-1]
		report(at(f, e, fn, Info, "%s() on %s, a counter by its name: if it is one, every reset of it reads as a fall (increase() and rate() handle resets); if the exporter declares it a gauge (# TYPE %s gauge), suppress this", fn.Name, n.Name, n.Name))
		return
	}
	for i := len(up) - 1; i >= 0; i-- {
		a := up[i]
		switch {
		case a.Kind == promql.Call && counterSafe[a.Name], a.Kind == promql.Aggregate && (a.Name == "count" || a.Name == "group"):
			return
		case a.Kind == promql.Binary && a.Name == "/":
			report(at(f, e, n, Warning, "counter %s (a counter by its name) is divided raw: the ratio is over each counter's life since its process last started, not a recent window; divide rate()s or increase()s", n.Name))
			return
		}
	}
}

// inRHS reports whether n sits in the right-hand side of the binary node up[i].
func inRHS(bin *promql.Node, up []*promql.Node, i int, n *promql.Node) bool {
	child := n
	if i+1 < len(up) {
		child = up[i+1]
	}
	return len(bin.Args) == 2 && bin.Args[1] == child
}

type promqlUnknownMetric struct{}

func (promqlUnknownMetric) Name() string { return "promql/unknown-metric" }
func (promqlUnknownMetric) Doc() string {
	return "in gpuobs' output, metrics that are neither catalog fields, known metrics, nor recorded by a rule; everywhere, reads of a recording rule's former name (lint.renamed) and DCGM-looking names that are a typo of a catalog field"
}
func (promqlUnknownMetric) Run(in *Inputs, report func(Problem)) {
	fields := model.SortedKeys(in.Model.Fields)
	in.Selectors(func(f *source.File, e *source.Expr, n *promql.Node, _ []*promql.Node) {
		if n.Name == "" || in.Analysis.Known(n.Name) {
			return
		}
		// Another team's metrics are theirs to know: outside gpuobs' output only a DCGM name
		// close to a catalog field is surely a mistake.
		if now := in.Model.Lint.Renamed[n.Name]; now != "" {
			report(at(f, e, n, Warning, "%s was renamed %s: read the new name (lint.renamed)", n.Name, now))
			return
		}
		typo := ""
		if analysis.DCGMLooking(n.Name) {
			typo = plan.Closest(n.Name, fields, typoDistance)
		}
		switch {
		case typo != "":
			report(at(f, e, n, Warning, "unknown DCGM field %s; did you mean %s?", n.Name, typo))
		case f.Generated:
			report(at(f, e, n, Warning, "unknown metric %s: not a catalog field, not in the catalog's metrics, and no rule in the inputs records it", n.Name))
		}
	})
}

// typoDistance is how many edits make a DCGM name a typo of a catalog field: DCGM names share
// long prefixes, so real fields that the catalog lacks (DCGM_FI_DEV_VIDEO_CLOCK) are further.
const typoDistance = 2

type promqlMIGDoubleCount struct{}

func (promqlMIGDoubleCount) Name() string { return "promql/mig-double-count" }
func (promqlMIGDoubleCount) Doc() string {
	return "sums and counts of device-level fields that dcgm-exporter repeats on every MIG instance"
}
func (promqlMIGDoubleCount) Run(in *Inputs, report func(Problem)) {
	l := in.Model.Labels
	in.Selectors(func(f *source.File, e *source.Expr, n *promql.Node, up []*promql.Node) {
		if in.Model.Fields[n.Name].Entity != model.EntityMIGRepeated {
			return
		}
		for _, m := range n.Matchers {
			if m.Name == l.MIGInstance && m.Type == "=" && m.Value == "" {
				return // whole GPUs only
			}
		}
		// Walk outwards. The right side of "and"/"unless" only filters: its samples are never
		// summed. An aggregation that drops the instance label with max, min, avg or group
		// collapses the repeated values, which makes later sums safe; one that groups by the
		// instance label on purpose works per instance. A product matched on the instance label
		// weighs each instance's copy by a share of its own (gpuobs' namespace rollups split a
		// GPU's power by the shares of its instances). A sum or count that drops the instance
		// label before any of these counts the GPU once per instance.
		for i := len(up) - 1; i >= 0; i-- {
			a := up[i]
			if a.Kind == promql.Binary && (a.Name == "and" || a.Name == "unless") && inRHS(a, up, i, n) {
				return
			}
			if a.Kind == promql.Binary && a.Name == "*" && a.Vector().On && slices.Contains(a.Vector().MatchOn, l.MIGInstance) {
				return
			}
			if a.Kind != promql.Aggregate {
				continue
			}
			if !a.Without && slices.Contains(a.Grouping, l.MIGInstance) {
				return
			}
			if in.Analysis.Labels(a).Has(l.MIGInstance) {
				continue
			}
			switch a.Name {
			case "sum", "count":
				report(at(f, e, a, Error, "%s over %s, which dcgm-exporter repeats on every MIG instance: a MIG GPU counts once per instance; collapse per GPU first (max by (%s) (...)) or select %s=\"\"",
					a.Name, n.Name, strings.Join(in.Model.Identity.GPU, ", "), l.MIGInstance))
				return
			case "max", "min", "avg", "group":
				return
			}
		}
	})
}

type exporterNotCollected struct{}

func (exporterNotCollected) Name() string { return "exporter/not-collected" }
func (exporterNotCollected) Doc() string {
	return "DCGM fields the exporter's counter set does not collect, and DCGM fields the catalog does not know: rules on them never see data"
}
func (exporterNotCollected) Run(in *Inputs, report func(Problem)) {
	fields := model.SortedKeys(in.Model.Fields)
	in.Selectors(func(f *source.File, e *source.Expr, n *promql.Node, _ []*promql.Node) {
		_, field := in.Model.Fields[n.Name]
		renamed, otherVersion := in.Model.OtherVersionName(n.Name)
		switch {
		case field && !in.Model.Collected(n.Name):
			report(at(f, e, n, Warning, "%s", notCollected(in.Model, n.Name)))
		case !field && otherVersion:
			report(at(f, e, n, Warning, "%s", otherVersionName(n.Name, renamed)))
		case !field && (strings.HasPrefix(n.Name, "DCGM_FI_") || strings.HasPrefix(n.Name, "DCGM_EXP_")) && !in.Analysis.Known(n.Name) && plan.Closest(n.Name, fields, typoDistance) == "":
			report(at(f, e, n, Warning, "%s is not a field of the catalog, so no counter file gpuobs generates collects it: declare it in fields (and exporter.extraCounters) if your exporter sends it", n.Name))
		}
	})
}

// notCollected says why a field of the catalog is not collected: the exporter's deployed set
// (a counter file, --exporter-counters, or scrapes, --scrape) may hold it under its name of
// another exporter version, which is the name the exporter then sends.
func notCollected(m *model.Model, field string) string {
	if m.Exporter.Deployed == nil {
		return field + " is not collected: it is neither in dcgm-exporter's default counter set nor in exporter.extraCounters, so this never sees data"
	}
	for name := range m.Exporter.Deployed {
		if r, ok := m.OtherVersionName(name); ok && r.Catalog == field {
			return fmt.Sprintf("%s is not collected under this name: the exporter's deployed set (--exporter-counters or --scrape) holds it as %s, %s, and the exporter sends the name its counter file gives; list it as %s", field, name, versionSide(r), field)
		}
	}
	return field + " is not collected: the exporter's deployed set (--exporter-counters or --scrape) does not hold it, so this never sees data"
}

// otherVersionName says that a rule reads a field by its name of another exporter version.
func otherVersionName(name string, r model.RenamedField) string {
	return fmt.Sprintf("%s is %s; this catalog's exporter (exporter.version) sends it as %s, so this never sees data: read %s, or set exporter.version to the version your exporter runs", name, versionSide(r), r.Catalog, r.Catalog)
}

// versionSide names the side of a rename a name is on.
func versionSide(r model.RenamedField) string {
	if r.Before {
		return "its name before dcgm-exporter " + r.Version + " renamed it"
	}
	return "its name from dcgm-exporter " + r.Version + " on"
}

type unitsMismatch struct{}

func (unitsMismatch) Name() string { return "units/mismatch" }
func (unitsMismatch) Doc() string {
	return "adding, subtracting or comparing values of different units (MiB and bytes, MHz and Hz, % and ratios)"
}
func (unitsMismatch) Run(in *Inputs, report func(Problem)) {
	in.Exprs(func(f *source.File, _ *source.Rule, _ *source.Query, e *source.Expr) {
		// A mix is reported once per expression, at the outermost operator (the walk visits
		// it first): in a chain (rate(x) + x + x …) every operator above the first mixes too.
		var mixed *promql.Node
		var units []string
		mixes := 0
		promql.Walk(e.Node, func(n *promql.Node, _ []*promql.Node) {
			if n.Kind != promql.Binary || n.Name != "+" && n.Name != "-" && n.Name != "or" && !promql.IsComparison(n.Name) {
				return
			}
			lu, ru := in.Analysis.Unit(n.Args[0]), in.Analysis.Unit(n.Args[1])
			if lu != "" && ru != "" && lu != ru {
				if mixes++; mixed == nil {
					mixed = n
				}
				for _, u := range []string{lu, ru} {
					if !slices.Contains(units, u) {
						units = append(units, u)
					}
				}
				return
			}
			for _, message := range literalScales(in, n) {
				report(at(f, e, n, Warning, "%s", message))
			}
		})
		if mixed == nil {
			return
		}
		mix := fmt.Sprintf("%s combines %s with %s", mixed.Name, in.Analysis.Unit(mixed.Args[0]), in.Analysis.Unit(mixed.Args[1]))
		if mixes > 1 {
			mix += fmt.Sprintf("; %d operators of this expression mix units (%s), this is the outermost", mixes, strings.Join(units, ", "))
		}
		report(at(f, e, mixed, Warning, "%s", mix))
	})
}

// literalScales are the findings of a comparison of a value with a number of another scale
// (a ratio with 85, a clock in Hz with 1500).
func literalScales(in *Inputs, n *promql.Node) []string {
	if !promql.IsComparison(n.Name) {
		return nil
	}
	var found []string
	for i, side := range n.Args {
		lit := n.Args[1-i]
		if lit.Kind != promql.Number {
			continue
		}
		switch in.Analysis.Unit(side) {
		case "ratio":
			if lit.Value > 1 {
				found = append(found, fmt.Sprintf("compares a 0-1 ratio with %g: a percentage?", lit.Value))
			}
		case "percent":
			if lit.Value > 0 && lit.Value < 1 {
				found = append(found, fmt.Sprintf("compares a percentage (0-100) with %g: a ratio?", lit.Value))
			}
		case "MHz":
			if lit.Value >= hzInMHz {
				found = append(found, fmt.Sprintf("compares a clock in MHz with %g, which is %g GHz in MHz: a value in Hz?", lit.Value, lit.Value/1000))
			}
		case "Hz":
			if lit.Value > 0 && lit.Value < hzInMHz {
				found = append(found, fmt.Sprintf("compares a clock in Hz with %g, which is %g kHz: a value in MHz? (dcgm-exporter 4.9 reports clocks in Hz)", lit.Value, lit.Value/1000))
			}
		}
	}
	return found
}

// hzInMHz separates clock literals in MHz from those in Hz: no GPU clocks at 100 GHz, nor at
// 100 kHz.
const hzInMHz = 1e5

// claimedUnit is the unit a recording rule's name claims, or "": ratio for a ratio operation,
// the unit an operation names (level:metric:bytes), else the suffix of its metric part (of
// level:metric:operation, or of the whole name), per second after a rate operation.
func claimedUnit(m *model.Model, record string) string {
	metric, op := record, ""
	if parts := strings.Split(record, ":"); len(parts) == 3 {
		metric, op = parts[1], parts[2]
	}
	if op == "ratio" {
		return "ratio"
	}
	if u := m.UnitOfName("_" + op); u != "" && op != "" {
		return u // level:metric:bytes
	}
	u := m.UnitOfName(strings.TrimSuffix(metric, "_total"))
	if u != "" && (strings.HasPrefix(op, "rate") || strings.HasPrefix(op, "irate")) {
		return normalUnit(m.RateUnit(u))
	}
	return u
}

// normalUnit writes a rate's unit (bytes/s) as the catalog does (bytes_per_second).
func normalUnit(u string) string {
	if base, ok := strings.CutSuffix(u, "/s"); ok {
		return base + "_per_second"
	}
	return u
}

type namingUnit struct{}

func (namingUnit) Name() string { return "naming/unit" }
func (namingUnit) Doc() string {
	return "recording rules whose name claims a unit (_bytes, _seconds, _ratio, ...) and panels whose Grafana unit differ from the unit of what they compute"
}
func (namingUnit) Run(in *Inputs, report func(Problem)) {
	in.Exprs(func(f *source.File, r *source.Rule, q *source.Query, e *source.Expr) {
		claimed, what := "", ""
		switch {
		case r != nil && r.Record != "":
			claimed, what = claimedUnit(in.Model, r.Record), r.Record
		case q != nil:
			claimed, what = in.Model.UnitOfGrafana(q.Unit), fmt.Sprintf("panel %q (unit %s)", q.Panel, q.Unit)
		}
		if has := normalUnit(in.Analysis.Unit(e.Node)); claimed != "" && has != "" && has != claimed {
			report(at(f, e, e.Node, Warning, "%s claims %s but holds %s: convert it or name it for what it holds", what, claimed, has))
		}
	})
}
