package lint

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/gpuobs/gpuobs/internal/conventions"
	"github.com/gpuobs/gpuobs/internal/lint/analysis"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/promql/labelflow"
	"github.com/gpuobs/gpuobs/internal/source"
)

type cardinalityBudget struct{}

func (cardinalityBudget) Name() string { return "cardinality/budget" }
func (cardinalityBudget) Doc() string {
	return "series a rule or dashboard query would produce at the catalog's fleet size, against the budget of its level"
}
func (cardinalityBudget) Run(in *Inputs, report func(Problem)) {
	b, fl := in.Model.Lint.Budgets, in.Model.Fleet
	gpus := fl.Clusters * fl.NodesPerCluster * fl.GPUsPerNode
	check := func(f *source.File, e *source.Expr, n *promql.Node, where, lvl string) {
		budget, ok := b[lvl]
		if !ok {
			budget, ok = b["other"]
		}
		if !ok {
			return
		}
		var single map[string]bool
		if f.Dashboard != nil {
			single = f.Dashboard.SingleValue
		}
		if p := in.Analysis.Project(n, single); p.Series > budget {
			report(at(f, e, n, Warning, "%s: projected %d series at %d GPUs (%s), over the %s budget of %d; label %s multiplies it",
				where, p.Series, gpus, in.FleetSource, lvl, budget, p.Factor))
		}
	}
	in.Exprs(func(f *source.File, r *source.Rule, q *source.Query, e *source.Expr) {
		if !in.Analysis.GPURelated(e.Node) && !in.Analysis.FansOut(e.Node) {
			return
		}
		switch {
		case r != nil && r.Record != "" && e.Node.Kind == promql.Selector && e.Node.Range == 0:
			// A record that renames a metric (accelerator_temperature_celsius from
			// DCGM_FI_DEV_GPU_TEMP) has the series the metric has: nothing to project.
		case r != nil && r.Record != "":
			lvl := level(r.Record)
			if _, ok := b[lvl]; !ok {
				lvl = "other"
			}
			check(f, e, e.Node, r.Record, lvl)
		case r != nil:
			check(f, e, e.Node, r.Alert, "alert")
		default:
			lvl := f.Dashboard.Level()
			if lvl == "" {
				lvl = "dashboard"
			}
			check(f, e, e.Node, fmt.Sprintf("panel %q", q.Panel), lvl)
		}
	})
}

// level is the level prefix of a recording rule name (node in node:x:sum), or "".
func level(record string) string {
	parts := strings.SplitN(record, ":", 3)
	if len(parts) == 3 {
		return parts[0]
	}
	return ""
}

// churning labels change with every event (an error message, a request or trace id): a
// record keyed by one grows without limit, an alert opens anew for each value.
var churning = regexp.MustCompile(`^err_msg$|(^|_)(request|trace|span)_?id$`)

// podUID matches a pod's UID: one value per pod, like pod, so an alert may keep it, but a
// recorded series keyed by it churns with every pod that comes and goes.
var podUID = regexp.MustCompile(`^(pod_uid|uid|exported_pod_uid)$`)

type cardinalityLabel struct{}

func (cardinalityLabel) Name() string { return "cardinality/label" }
func (cardinalityLabel) Doc() string {
	return "unbounded or high-churn labels kept in rule outputs, per-GPU labels in fleet-level rollups and L1/L2 dashboards, and labels kept only to be dropped by the next level"
}
func (cardinalityLabel) Run(in *Inputs, report func(Problem)) {
	l := in.Model.Labels
	perGPU := []string{l.Pod, l.UUID, l.PCIBusID}
	in.Exprs(func(f *source.File, r *source.Rule, q *source.Query, e *source.Expr) {
		out := in.Analysis.Labels(e.Node)
		if r != nil {
			for _, name := range out.Sorted() {
				if churning.MatchString(name) || (r.Record != "" && podUID.MatchString(name)) {
					report(at(f, e, e.Node, Error, "%s keeps label %s, which is unbounded or changes with every event: aggregate it away", r.Name(), name))
				}
			}
		}
		if !in.Analysis.GPURelated(e.Node) {
			return // per-GPU labels mean nothing to other rules
		}
		fleetLevel := (r != nil && (level(r.Record) == conventions.LevelCluster || level(r.Record) == conventions.LevelFleet)) ||
			(q != nil && (f.Dashboard.Level() == "L1" || f.Dashboard.Level() == "L2"))
		if fleetLevel {
			for _, name := range perGPU {
				if out.Has(name) {
					report(at(f, e, e.Node, Warning, "fleet-level query keeps per-GPU label %s", name))
				}
			}
		}
	})
	droppedByReaders(in, report)
}

// droppedByReaders reports a label a rule keeps beyond its level's own labels, that every rule
// reading it (recording or alerting) drops.
func droppedByReaders(in *Inputs, report func(Problem)) {
	l := in.Model.Labels
	natural := map[string][]string{
		conventions.LevelGPU:       in.Model.Identity.GPU,
		conventions.LevelGPUPod:    in.Model.Identity.Alert,
		conventions.LevelNode:      {l.Cluster, l.Host, l.Node},
		conventions.LevelNamespace: {l.Cluster, l.Namespace, "namespace"},
		conventions.LevelCluster:   {l.Cluster},
		conventions.LevelFleet:     {},
	}
	readers := map[string][]*source.Rule{}
	in.Rules(func(r *source.Rule) {
		if r.Expr.Node == nil {
			return
		}
		promql.Walk(r.Expr.Node, func(n *promql.Node, _ []*promql.Node) {
			if n.Kind == promql.Selector && in.Analysis.Recorded(n.Name) && n.Name != r.Record {
				readers[n.Name] = append(readers[n.Name], r)
			}
		})
	})
	in.Rules(func(r *source.Rule) {
		own, ok := natural[level(r.Record)]
		if !ok || len(readers[r.Record]) == 0 || r.Expr.Node == nil || !in.Analysis.GPURelated(r.Expr.Node) {
			return
		}
		for _, name := range in.Analysis.Labels(r.Expr.Node).Without(own...).Sorted() {
			if _, static := r.Labels[name]; static {
				continue
			}
			if !keptByAReader(in.Analysis, readers[r.Record], name) {
				report(Problem{Severity: Info, Path: r.File.Path, Pos: r.NamePos, Width: len(r.Record),
					Message: fmt.Sprintf("%s keeps label %s, which every rule reading it drops (%s): drop it here", r.Record, name, readers[r.Record][0].Name())})
			}
		}
	})
}

// keptByAReader reports whether one of the rules reading a record keeps the label or matches on it.
func keptByAReader(a *analysis.Analysis, readers []*source.Rule, name string) bool {
	for _, reader := range readers {
		if a.Labels(reader.Expr.Node).MayHave(name) || matchesOn(reader.Expr.Node, name) {
			return true
		}
	}
	return false
}

// gpuobsAnnotations are the annotations every alert gpuobs generates has.
var gpuobsAnnotations = []string{"summary", "description", "runbook_url"}

// severities are the severity values a file's alerts may have: gpuobs' tiers in its output,
// the catalog's lint.policy.severities elsewhere (none: not checked).
func (in *Inputs) severities(f *source.File) []string {
	if f.Generated {
		out := make([]string, len(model.Severities))
		for i, s := range model.Severities {
			out[i] = string(s)
		}
		return out
	}
	return in.Model.Lint.Policy.Severities
}

type alertsSeverity struct{}

func (alertsSeverity) Name() string { return "alerts/severity" }
func (alertsSeverity) Doc() string {
	return "alerts without a severity label, or with one outside the allowed values (gpuobs' tiers in its output, lint.policy.severities elsewhere)"
}
func (alertsSeverity) Run(in *Inputs, report func(Problem)) {
	in.Rules(func(r *source.Rule) {
		allowed := in.severities(r.File)
		if r.Alert == "" || len(allowed) == 0 {
			return
		}
		sev, ok := r.Labels["severity"]
		switch {
		case !ok:
			report(Problem{Severity: Error, Path: r.File.Path, Pos: r.NamePos, Width: len(r.Alert), Message: fmt.Sprintf("alert %s has no severity label (%s)", r.Alert, strings.Join(allowed, ", "))})
		case !slices.Contains(allowed, sev):
			report(Problem{Severity: Error, Path: r.File.Path, Pos: r.NamePos, Width: len(r.Alert), Message: fmt.Sprintf("alert %s has severity %q; use %s", r.Alert, sev, strings.Join(allowed, ", "))})
		}
	})
}

type alertsAnnotations struct{}

func (alertsAnnotations) Name() string { return "alerts/annotations" }
func (alertsAnnotations) Doc() string {
	return "alerts without the required annotations (summary, description, runbook_url in gpuobs' output; lint.policy.annotations elsewhere)"
}
func (alertsAnnotations) Run(in *Inputs, report func(Problem)) {
	in.Rules(func(r *source.Rule) {
		required := in.Model.Lint.Policy.Annotations
		if r.File.Generated {
			required = gpuobsAnnotations
		}
		if r.Alert == "" {
			return
		}
		var missing []string
		for _, a := range required {
			if strings.TrimSpace(r.Annotations[a]) == "" {
				missing = append(missing, a)
			}
		}
		if len(missing) > 0 {
			report(Problem{Severity: Warning, Path: r.File.Path, Pos: r.NamePos, Width: len(r.Alert), Message: fmt.Sprintf("alert %s has no %s", r.Alert, strings.Join(missing, ", "))})
		}
	})
}

// overTime are functions that look at a window, so a threshold on them is already sustained.
func overTime(name string) bool {
	return strings.HasSuffix(name, "_over_time") || counterSafe[name] || name == "deriv" || name == "predict_linear" || name == "delta"
}

type alertsFor struct{}

func (alertsFor) Name() string { return "alerts/for" }
func (alertsFor) Doc() string {
	return "alerts on a gauge threshold without for: one scrape fires them"
}
func (alertsFor) Run(in *Inputs, report func(Problem)) {
	in.Rules(func(r *source.Rule) {
		if d, err := promql.ParseDuration(r.For); r.Alert == "" || r.Expr.Node == nil || (err == nil && d > 0) {
			return
		}
		promql.Walk(r.Expr.Node, func(n *promql.Node, up []*promql.Node) {
			if n.Kind != promql.Selector || in.Model.Fields[n.Name].Kind != model.KindGauge {
				return
			}
			var cmp *promql.Node
			for i := len(up) - 1; i >= 0; i-- {
				a := up[i]
				if a.Kind == promql.Call && overTime(a.Name) || a.Kind == promql.Subquery {
					return
				}
				if a.Kind == promql.Binary && promql.IsComparison(a.Name) && !a.ReturnBool && (labelflow.IsScalar(a.Args[0]) || labelflow.IsScalar(a.Args[1])) {
					cmp = a
				}
			}
			if cmp != nil {
				report(at(r.File, r.Expr, cmp, Warning, "alert %s has a threshold on gauge %s and no for: a single scrape fires it", r.Alert, n.Name))
			}
		})
	})
}

type alertsLastEventState struct{}

func (alertsLastEventState) Name() string { return "alerts/last-event-state" }
func (alertsLastEventState) Doc() string {
	return "alerts that compare a field holding the last event (the last XID) with a number: it stays true for ever after one event"
}
func (alertsLastEventState) Run(in *Inputs, report func(Problem)) {
	in.Rules(func(r *source.Rule) {
		if r.Alert == "" || r.Expr.Node == nil {
			return
		}
		history := map[string]bool{} // last-event fields the expression also reads over a range
		promql.Walk(r.Expr.Node, func(n *promql.Node, up []*promql.Node) {
			if n.Kind == promql.Selector && n.Range > 0 || n.Kind == promql.Selector && len(up) > 0 && up[len(up)-1].Kind == promql.Subquery {
				history[n.Name] = true
			}
		})
		promql.Walk(r.Expr.Node, func(n *promql.Node, up []*promql.Node) {
			if n.Kind != promql.Selector || n.Range > 0 || history[n.Name] || in.Model.Fields[n.Name].Kind != model.KindLastEvent {
				return
			}
			for i := len(up) - 1; i >= 0; i-- {
				a := up[i]
				if a.Kind == promql.Call || a.Kind == promql.Subquery {
					return
				}
				if a.Kind == promql.Binary && promql.IsComparison(a.Name) && (labelflow.IsScalar(a.Args[0]) || labelflow.IsScalar(a.Args[1])) {
					window := in.Model.Windows["event"]
					if window == "" {
						window = "<window>" // a catalog without windows.event
					}
					report(at(r.File, r.Expr, a, Warning, "alert %s compares %s with a number, but the field holds the last event until the next one (%s): it stays true for ever after one event, whatever for says; alert on a new event: changes(%s[%s]) > 0, or the exporter's per-event counter", r.Alert, n.Name, strings.TrimSuffix(in.Model.Fields[n.Name].Help, "."), n.Name, window))
					return
				}
			}
		})
	})
}

type alertsValueInLabel struct{}

func (alertsValueInLabel) Name() string { return "alerts/value-in-label" }
func (alertsValueInLabel) Doc() string {
	return "alert labels that hold the value ($value): every new value is a new alert, resolving the last and notifying again"
}
func (alertsValueInLabel) Run(in *Inputs, report func(Problem)) {
	in.Rules(func(r *source.Rule) {
		for _, name := range slices.Sorted(maps.Keys(r.Labels)) {
			if v := r.Labels[name]; strings.Contains(v, "$value") || strings.Contains(v, ".Value") {
				pos := r.NamePos
				if p, ok := r.LabelAt(name); ok {
					pos = p
				}
				report(Problem{Severity: Error, Path: r.File.Path, Pos: pos, Width: len(v),
					Message: fmt.Sprintf("alert %s: label %s holds the value (%s): the labels are the alert's identity, so each new value starts a new alert and resolves the last; put the value in an annotation", r.Alert, name, v)})
			}
		}
	})
}

type namingLegacyNames struct{}

func (namingLegacyNames) Name() string { return "naming/legacy-names" }
func (namingLegacyNames) Doc() string {
	return "UTF-8 metric or label names in a PrometheusRule: the Prometheus Operator validates rules with the legacy name scheme and rejects the manifest"
}
func (namingLegacyNames) Run(in *Inputs, report func(Problem)) {
	in.Rules(func(r *source.Rule) {
		if !r.Operator {
			return
		}
		problem := func(pos source.Pos, width int, what, name string) {
			report(Problem{Severity: Error, Path: r.File.Path, Pos: pos, Width: width,
				Message: fmt.Sprintf("%s %q is not a legacy Prometheus name ([a-zA-Z_:][a-zA-Z0-9_:]* for metrics, no colon for labels): the Prometheus Operator rejects the PrometheusRule at apply time; rename it, or keep UTF-8 names out of PrometheusRules", what, name)})
		}
		if r.Record != "" && !promql.IsValidMetricName(r.Record) {
			problem(r.NamePos, len(r.Record), "record name", r.Record)
		}
		for _, k := range slices.Sorted(maps.Keys(r.Labels)) {
			if !promql.IsValidLabelName(k) {
				at, _ := r.LabelAt(k)
				problem(at, len(k), "label", k)
			}
		}
		promql.Walk(r.Expr.Node, func(n *promql.Node, _ []*promql.Node) {
			names := slices.Clone(n.Grouping)
			for _, m := range n.Matchers {
				names = append(names, m.Name)
			}
			if n.Kind == promql.Selector && n.Name != "" && !promql.IsValidMetricName(n.Name) {
				report(at(r.File, r.Expr, n, Error, "metric %q in %s is not a legacy Prometheus name: the Prometheus Operator rejects the PrometheusRule at apply time", n.Name, r.Name()))
			}
			for _, name := range names {
				if !promql.IsValidLabelName(name) {
					report(at(r.File, r.Expr, n, Error, "label %q in %s is not a legacy Prometheus name: the Prometheus Operator rejects the PrometheusRule at apply time", name, r.Name()))
				}
			}
		})
	})
}

type alertsTemplateLabels struct{}

func (alertsTemplateLabels) Name() string { return "alerts/template-labels" }
func (alertsTemplateLabels) Doc() string {
	return "annotation or label templates that use a label the expression aggregates away"
}
func (alertsTemplateLabels) Run(in *Inputs, report func(Problem)) {
	in.Rules(func(r *source.Rule) {
		if r.Alert == "" || r.Expr.Node == nil {
			return
		}
		out := in.Analysis.Labels(r.Expr.Node)
		for _, a := range model.SortedKeys(r.Annotations) {
			at, _ := r.AnnotationAt(a)
			used, err := promql.TemplateLabels(r.Annotations[a])
			if err != nil {
				report(Problem{Severity: Error, Path: r.File.Path, Pos: at, Width: len(r.Annotations[a]),
					Message: fmt.Sprintf("annotation %s of %s is not a valid template: %v", a, r.Alert, err)})
				continue
			}
			for _, label := range used {
				if !out.MayHave(label) {
					report(Problem{Severity: Error, Path: r.File.Path, Pos: at, Width: len(r.Annotations[a]),
						Message: fmt.Sprintf("annotation %s of %s uses $labels.%s, which the expression does not keep (it keeps %s)", a, r.Alert, label, strings.Join(out.Sorted(), ", "))})
				}
			}
		}
	})
}

// checkName checks a rule name: with gpuobs' own rule in its output, against the catalog's
// lint.policy pattern (when set) elsewhere.
func checkName(r *source.Rule, name string, own func(string) error, pattern *regexp.Regexp, report func(Problem)) {
	if name == "" {
		return
	}
	var err error
	switch {
	case r.File.Generated:
		err = own(name)
	case pattern != nil && !pattern.MatchString(name):
		err = fmt.Errorf("%q does not match the catalog's lint.policy pattern %s", name, pattern)
	}
	if err != nil {
		report(Problem{Severity: Warning, Path: r.File.Path, Pos: r.NamePos, Width: len(name), Message: err.Error()})
	}
}

// policyPattern compiles a lint.policy name pattern (validated with the catalog), or nil.
func policyPattern(pattern string) *regexp.Regexp {
	if pattern == "" {
		return nil
	}
	return regexp.MustCompile(pattern)
}

type namingRecord struct{}

func (namingRecord) Name() string { return "naming/record" }
func (namingRecord) Doc() string {
	return "recording rule names: level:metric:operation in gpuobs' output, lint.policy.recordNames elsewhere"
}
func (namingRecord) Run(in *Inputs, report func(Problem)) {
	pattern := policyPattern(in.Model.Lint.Policy.RecordNames)
	in.Rules(func(r *source.Rule) { checkName(r, r.Record, conventions.CheckRecordName, pattern, report) })
}

type namingAlert struct{}

func (namingAlert) Name() string { return "naming/alert" }
func (namingAlert) Doc() string {
	return "alert names: CamelCase, at most 40 characters, with a family prefix in gpuobs' output; lint.policy.alertNames elsewhere"
}
func (namingAlert) Run(in *Inputs, report func(Problem)) {
	pattern := policyPattern(in.Model.Lint.Policy.AlertNames)
	in.Rules(func(r *source.Rule) { checkName(r, r.Alert, conventions.CheckAlertName, pattern, report) })
}

// matchesOn reports whether an expression matches series on a label (on (...) of a binary
// operation): a reader that joins on a label needs it even when its result drops it.
func matchesOn(expr *promql.Node, label string) bool {
	found := false
	promql.Walk(expr, func(n *promql.Node, _ []*promql.Node) {
		if n.Kind == promql.Binary && n.Vector().On && slices.Contains(n.Vector().MatchOn, label) {
			found = true
		}
	})
	return found
}
