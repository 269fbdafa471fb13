package catalog

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/gpuobs/gpuobs/internal/amconfig"
	"github.com/gpuobs/gpuobs/internal/conventions"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/promql"
)

// APIVersion is the catalog schema version this gpuobs reads.
const APIVersion = "gpuobs/v1"

// fileName is a name from the catalog that becomes one path element of an output file.
var fileName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

// dcgmField matches a DCGM field's name.
var dcgmField = regexp.MustCompile(`^DCGM_FI_[A-Z0-9_]+$`)

// validate checks a decoded catalog and applies defaults; it reports every problem.
func validate(m *model.Model) Problems {
	v := &validator{}
	if m.APIVersion != APIVersion {
		v.add("apiVersion", "is %q; this gpuobs reads %q", m.APIVersion, APIVersion)
	}
	v.sections(m)
	v.labels(m)
	v.units(m)
	v.features(m)
	v.fields(m)
	v.throttleReasons(m)
	for name, d := range m.Windows {
		v.duration("windows."+name, d, true)
	}
	v.duration("recording.interval", m.Recording.Interval, true)
	v.duration("recording.rateWindow", m.Recording.RateWindow, true)
	v.sectionIntervals(m)
	v.duration("tests.interval", m.Tests.Interval, true)
	v.duration("tests.evalTime", m.Tests.EvalTime, true)
	if m.Runbooks.BaseURL == "" {
		v.add("runbooks.baseURL", "is empty; set the base URL your runbook pages live under")
	}
	v.webURL("runbooks.baseURL", m.Runbooks.BaseURL, "every alert's runbook_url")
	v.webURL("runbooks.grafanaURL", m.Runbooks.GrafanaURL, "the runbooks' dashboard links")
	v.xid(m)
	if !dcgmField.MatchString(m.Exporter.DriverField) {
		v.add("exporter.driverField", "is %q, not a DCGM field name: the counter file's label row must name the field (DCGM_FI_DRIVER_VERSION, or DCGM_FI_SYSTEM_DRIVER_VERSION from 4.9), which dcgm-exporter refuses otherwise; rename the label with labels.driverVersion instead", m.Exporter.DriverField)
	}
	if len(m.Exporter.HealthFields) == 0 {
		v.add("exporter.healthFields", "is empty; list the fields that tell a GPU is there (DCGM_FI_DEV_GPU_TEMP, DCGM_FI_DEV_FB_FREE)")
	}
	for _, name := range append(slices.Clone(m.Exporter.HealthFields), m.Exporter.ThrottleReasonsField) {
		if _, ok := m.Fields[name]; !ok {
			v.add("exporter", "names field %q, which is not in fields", name)
		}
	}
	for _, name := range model.SortedKeys(m.Alerts) {
		a := m.Alerts[name]
		v.alert(m, name, &a)
		m.Alerts[name] = a
	}
	v.caseCollisions("alerts", model.SortedKeys(m.Alerts), "their runbook pages would be one file on a case-insensitive disk (macOS, Windows), and Alertmanager matchers tell them apart only by case")
	v.records(m)
	v.slos(m)
	v.cost(m)
	v.sharing(m)
	v.counterFile(m)
	v.topology(m)
	v.kubernetes(m)
	v.slurm(m)
	v.retiredThresholds(m)
	v.grafana(m)
	v.runbooks(m)
	v.alertmanager(m)
	v.lint(m)
	return v.problems
}

type validator struct{ problems Problems }

// xid checks the XID classes: positive codes, each in one class only (an XID alert per class
// would fire twice on one event).
func (v *validator) xid(m *model.Model) {
	classOf := map[int]string{}
	for _, class := range model.SortedKeys(m.XID) {
		for i, c := range m.XID[class] {
			p := fmt.Sprintf("xid.%s[%d]", class, i)
			switch other, seen := classOf[c]; {
			case c <= 0:
				v.add(p, "XID code %d is not positive", c)
			case seen && other != class:
				v.add(p, "XID code %d is also in xid.%s; a code belongs to one class (move a code with xidCatalog+: { '%d'+: { class: '...' } })", c, other, c)
			case !seen:
				classOf[c] = class
			}
		}
	}
}

// caseCollisions reports names of a section that differ only in case.
func (v *validator) caseCollisions(section string, names []string, why string) {
	first := map[string]string{}
	for _, n := range names {
		folded := strings.ToLower(n)
		if other, ok := first[folded]; ok {
			v.add(section+"."+n, "differs from %s.%s only in case: %s; rename one", section, other, why)
			continue
		}
		first[folded] = n
	}
}

func (v *validator) add(path, format string, args ...any) {
	v.problems = append(v.problems, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
}

func (v *validator) duration(path, d string, required bool) {
	if d == "" {
		if required {
			v.add(path, "is empty; give a duration such as 5m")
		}
		return
	}
	if _, err := promql.ParseDuration(d); err != nil {
		v.add(path, "invalid duration %q (use a Prometheus duration such as 5m, 1h30m)", d)
	}
}

// sectionIntervals checks recording.sectionIntervals: each names a section of the catalog and
// is a duration no shorter than recording.interval (a section's own groups run slower).
func (v *validator) sectionIntervals(m *model.Model) {
	base, baseErr := promql.ParseDuration(m.Recording.Interval)
	for _, section := range model.SortedKeys(m.Recording.SectionIntervals) {
		path, d := "recording.sectionIntervals."+section, m.Recording.SectionIntervals[section]
		if _, ok := m.Enabled[section]; !ok {
			v.add(path, "names no section of the catalog (the sections: %s)", strings.Join(model.SortedKeys(m.Enabled), ", "))
		}
		v.duration(path, d, true)
		if interval, err := promql.ParseDuration(d); err == nil && baseErr == nil && interval < base {
			v.add(path, "is %s, shorter than recording.interval (%s): a section's own groups run slower than the others, not faster", d, m.Recording.Interval)
		}
	}
}

// enum checks that an enumerated value is one of its type's values.
func enum[T ~string](v *validator, path string, value T, all []T) {
	if !model.Valid(value, all) {
		names := make([]string, len(all))
		for i, a := range all {
			names[i] = string(a)
		}
		v.add(path, "is %q; use one of %s", value, strings.Join(names, ", "))
	}
}

func (v *validator) oneOf(path, value string, allowed ...string) {
	for _, a := range allowed {
		if value == a {
			return
		}
	}
	v.add(path, "is %q; use one of %s", value, strings.Join(allowed, ", "))
}

func (v *validator) labels(m *model.Model) {
	l := m.Labels
	named := map[string]string{
		"cluster": l.Cluster, "host": l.Host, "gpu": l.GPU, "uuid": l.UUID, "pciBusId": l.PCIBusID,
		"device": l.Device, "modelName": l.ModelName, "driverVersion": l.DriverVersion,
		"namespace": l.Namespace, "pod": l.Pod, "container": l.Container,
		"migInstance": l.MIGInstance, "migProfile": l.MIGProfile, "node": l.Node,
	}
	for _, key := range model.SortedKeys(named) {
		if !promql.IsValidLabelName(named[key]) {
			v.add("labels."+key, "%q is not a valid label name", named[key])
		}
	}
	for path, set := range map[string][]string{"identity.gpu": m.Identity.GPU, "identity.gpuJoin": m.Identity.GPUJoin, "identity.alert": m.Identity.Alert} {
		if len(set) == 0 {
			v.add(path, "is empty")
		}
		for _, name := range set {
			if !promql.IsValidLabelName(name) {
				v.add(path, "%q is not a valid label name", name)
			}
		}
	}
}

func (v *validator) fields(m *model.Model) {
	if len(m.Fields) == 0 {
		v.add("fields", "is empty")
	}
	for _, name := range model.SortedKeys(m.Fields) {
		f, p := m.Fields[name], "fields."+name
		// DCGM_EXP_ metrics are computed by dcgm-exporter itself and have no DCGM field id.
		switch {
		case strings.HasPrefix(name, "DCGM_EXP_"):
			if f.ID != 0 {
				v.add(p+".id", "is %d; a metric dcgm-exporter computes (DCGM_EXP_...) has no DCGM field id: set 0", f.ID)
			}
		case !strings.HasPrefix(name, "DCGM_FI_"):
			v.add(p, "is not a DCGM field name (DCGM_FI_...) or a metric dcgm-exporter computes (DCGM_EXP_...)")
		case f.ID <= 0:
			v.add(p+".id", "DCGM field id %d is not positive", f.ID)
		}
		v.oneOf(p+".type", f.Type, "counter", "gauge")
		enum(v, p+".kind", f.Kind, model.Kinds)
		enum(v, p+".entity", f.Entity, model.Entities)
		enum(v, p+".rollup", f.Rollup, model.Rollups)
		switch {
		case f.Rollup == model.RollupRate && f.Kind != model.KindCounter:
			v.add(p+".rollup", "rate needs a counter, but the field's kind is %q", f.Kind)
		case f.Rollup != model.RollupRate && f.Rollup != model.RollupNone && f.Kind != model.KindGauge:
			v.add(p+".rollup", "%s needs a gauge, but the field's kind is %q (use rate for counters)", f.Rollup, f.Kind)
		}
		if f.Family == "" {
			v.add(p+".family", "is empty")
		}
		if u, ok := m.Units[f.Unit]; !ok {
			v.add(p+".unit", "is %q, which is not in units: add it there (its Grafana unit, scale and name suffix) or use one of %s", f.Unit, strings.Join(model.SortedKeys(m.Units), ", "))
		} else if u.Rate == nil && f.Kind == model.KindCounter {
			v.add(p+".unit", "is %q, which has no rate (units.%s.rate): dashboards show a counter as its per-second rate; say in what Grafana unit and scale", f.Unit, f.Unit)
		}
		if f.ByNamespace && f.Rollup == model.RollupNone {
			v.add(p+".byNamespace", "needs a rollup to roll up by namespace")
		}
	}
}

// units checks that every unit shows in Grafana at a positive scale, that its suffix is a name
// suffix, and that no Grafana unit id claims two units (lint could not tell which a panel shows).
func (v *validator) units(m *model.Model) {
	for _, name := range model.SortedKeys(m.Units) {
		u, p := m.Units[name], "units."+name
		v.display(p, name, u.Display)
		if u.Rate != nil {
			v.display(p+".rate", name+" per second", *u.Rate)
		}
		if u.Suffix != "" && !strings.HasPrefix(u.Suffix, "_") {
			v.add(p+".suffix", "is %q; a metric-name suffix starts with _ (_celsius)", u.Suffix)
		}
	}
	claims := m.GrafanaClaims()
	for _, id := range model.SortedKeys(claims) {
		if names := claims[id]; len(names) > 1 {
			v.add("units", "Grafana unit %q shows %s as they are: lint could not tell which a panel claims; keep it on one and give the others a scale or drop it from their grafanaAliases", id, strings.Join(names, " and "))
		}
	}
}

// promQL checks an expression of a rule: it parses, and every Prometheus feature it needs is
// one the target server runs with (prometheus.enableFeatures). It returns the canonical form.
func (v *validator) promQL(m *model.Model, path, expr string) (string, bool) {
	canonical, err := promql.Canonical(expr)
	if err != nil {
		v.add(path, "invalid PromQL: %v", err)
		return "", false
	}
	target, err := promql.ParseVersion(m.Prometheus.Version)
	if err != nil {
		return canonical, true // prometheus.version itself is reported once
	}
	if n, err := promql.Parse(expr); err == nil {
		for _, l := range promql.Lacks(n, target, m.Prometheus.EnableFeatures) {
			v.add(path, "%s", l.Message(target))
		}
	}
	return canonical, true
}

// templates checks an alert's labels and annotations against the target Prometheus: a
// template function it lacks fails the rule file at load.
func (v *validator) templates(m *model.Model, path string, texts map[string]string) {
	target, err := promql.ParseVersion(m.Prometheus.Version)
	if err != nil {
		return
	}
	for _, key := range model.SortedKeys(texts) {
		for _, l := range promql.TemplateLacks(texts[key], target) {
			v.add(path+"."+key, "%s", l.Message(target))
		}
	}
}

// features checks prometheus.version and prometheus.enableFeatures against the releases and the
// flags Prometheus 3 knows.
func (v *validator) features(m *model.Model) {
	if _, err := promql.ParseVersion(m.Prometheus.Version); err != nil {
		v.add("prometheus.version", "%v: set the release line your servers run, such as 3.5 or 3.13", err)
	}
	for i, f := range m.Prometheus.EnableFeatures {
		if !slices.Contains(prometheusFeatures, f) {
			v.add(fmt.Sprintf("prometheus.enableFeatures[%d]", i), "%q is not a feature flag of Prometheus 3 (--enable-feature): use one of %s", f, strings.Join(prometheusFeatures, ", "))
		}
	}
}

// prometheusFeatures are the --enable-feature values Prometheus 3 (v0.316, as pinned) accepts,
// from its flag's help.
// Older releases' flags for what later ones made stable (promql-duration-expr up to 3.13,
// promql-extended-range-selectors up to 3.15) are in it too: a target of those releases needs them.
var prometheusFeatures = []string{"concurrent-rule-eval", "created-timestamp-zero-ingestion", "delayed-compaction", "exemplar-storage", "extra-scrape-metrics",
	"histograms-st-encoding", "memory-snapshot-on-shutdown", "metadata-wal-records", "old-ui", "openmetrics2", "otlp-deltatocumulative", "otlp-native-delta-ingestion",
	"promql-binop-fill-modifiers", "promql-delayed-name-removal", "promql-duration-expr", "promql-experimental-functions", "promql-extended-range-selectors", "promql-per-step-stats", "promql-unquoted-utf8-names", "query-cost",
	"search-api", "st-storage", "st-synthesis", "type-and-unit-labels", "use-start-timestamps", "use-uncached-io", "xor2-encoding", "zstd-scrape"}

// display checks that a unit's display names a Grafana unit and a positive scale.
func (v *validator) display(p, what string, d model.Display) {
	if d.Grafana == "" {
		v.add(p+".grafana", "is empty: name the Grafana unit id a value in %s is shown in", what)
	}
	if !(d.Scale > 0) || math.IsInf(d.Scale, 0) {
		v.add(p+".scale", "is %g; want a positive factor into the Grafana unit (1 when Grafana has the unit)", d.Scale)
	}
}

// Bits of the clock-event bitmask that do not mean throttling.
var notThrottling = map[int]string{1: "GPU idle", 2: "application clocks setting", 256: "display clocks"}

func (v *validator) throttleReasons(m *model.Model) {
	for _, name := range model.SortedKeys(m.ThrottleReasons) {
		r, p := m.ThrottleReasons[name], "throttleReasons."+name
		if len(r.Bits) == 0 {
			v.add(p+".bits", "is empty")
		}
		for _, b := range r.Bits {
			if b <= 0 || b&(b-1) != 0 {
				v.add(p+".bits", "%d is not a single bit", b)
			} else if why, ok := notThrottling[b]; ok {
				v.add(p+".bits", "0x%x means %s, not throttling", b, why)
			}
		}
	}
}

// lint checks what gpuobs lint reads: a positive fleet, known counters and checks.
func (v *validator) lint(m *model.Model) {
	f := m.Fleet
	for name, n := range map[string]int{"clusters": f.Clusters, "nodesPerCluster": f.NodesPerCluster, "gpusPerNode": f.GPUsPerNode,
		"migInstancesPerGPU": f.MIGInstancesPerGPU, "namespacesPerCluster": f.NamespacesPerCluster, "podsPerNode": f.PodsPerNode} {
		if n <= 0 {
			v.add("fleet."+name, "is %d; give a positive count", n)
		}
	}
	for i, c := range m.Exporter.ExtraCounters {
		if _, ok := m.Fields[c]; !ok {
			v.add(fmt.Sprintf("exporter.extraCounters[%d]", i), "%q is not a field in the catalog", c)
		}
	}
	for name, mt := range m.Metrics {
		v.oneOf("metrics."+name+".type", mt.Type, "counter", "gauge", "histogram", "summary")
		for label, n := range mt.Fanout {
			if n <= 0 {
				v.add("metrics."+name+".fanout."+label, "is %d; give the values the label takes per entity, 1 or more", n)
			}
		}
	}
	for key, pattern := range map[string]string{"recordNames": m.Lint.Policy.RecordNames, "alertNames": m.Lint.Policy.AlertNames} {
		if _, err := regexp.Compile(pattern); err != nil {
			v.add("lint.policy."+key, "is not a regular expression: %v", err)
		}
	}
}

// records checks catalog recording rules. Each must be tested: by its own cases, or by the
// scenarios of an alert that reads it, directly or through other records.
func (v *validator) records(m *model.Model) {
	byMetric := map[string][]string{}
	for _, key := range model.SortedKeys(m.Records) {
		r := m.Records[key]
		if r.Record == "" {
			r.Record = key
			m.Records[key] = r
		}
		byMetric[r.Record] = append(byMetric[r.Record], key)
	}
	read := map[string]bool{}
	var visit func(expr string)
	visit = func(expr string) {
		names, _ := promql.MetricNames(expr)
		for _, n := range names {
			for _, key := range byMetric[n] {
				if !read[key] {
					read[key] = true
					visit(m.Records[key].Expr)
				}
			}
		}
	}
	for _, a := range m.Alerts {
		visit(a.Expr)
	}
	for _, r := range m.Records {
		if len(r.Tests) > 0 {
			visit(r.Expr)
		}
	}
	for _, key := range model.SortedKeys(m.Records) {
		r, p := m.Records[key], "records."+key
		if err := conventions.CheckRecordName(r.Record); err != nil {
			v.add(p, "%v", err)
		}
		for k := range r.Labels {
			if !promql.IsValidLabelName(k) {
				v.add(p+".labels", "%q is not a label name", k)
			}
		}
		if r.Family == "" {
			v.add(p+".family", "is empty")
		}
		if canonical, ok := v.promQL(m, p+".expr", r.Expr); ok {
			r.Expr = canonical
		}
		if !read[key] && len(r.Tests) == 0 {
			v.add(p, "nothing tests it: no alert reads it and it has no tests; add tests or remove it (records: std.objectRemoveKey(super.records, %q), as for the alert that read it if your catalog removed one)", key)
		}
		for i, c := range r.Tests {
			cp := fmt.Sprintf("%s.tests[%d]", p, i)
			if _, err := promql.Canonical(c.Expr); err != nil {
				v.add(cp+".expr", "invalid PromQL: %v", err)
			}
			if c.Name == "" {
				v.add(cp+".name", "is empty")
			}
		}
		m.Records[key] = r
	}
}

func (v *validator) alert(m *model.Model, name string, a *model.Alert) {
	p := "alerts." + name
	if err := conventions.CheckAlertName(name); err != nil {
		v.add(p, "%v", err)
	}
	enum(v, p+".severity", a.Severity, model.Severities)
	if a.Team == "" {
		v.add(p+".team", "is empty; name the team that owns the alert")
	}
	if a.Family == "" {
		v.add(p+".family", "is empty")
	}
	if a.Summary == "" {
		v.add(p+".summary", "is empty")
	}
	if a.Description == "" {
		v.add(p+".description", "is empty")
	}
	v.duration(p+".for", a.For, false)
	v.duration(p+".keepFiringFor", a.KeepFiringFor, false)
	if canonical, ok := v.promQL(m, p+".expr", a.Expr); ok {
		a.Expr = canonical
	}
	v.templates(m, p+".labels", a.Labels)
	v.templates(m, p, map[string]string{"summary": a.Summary, "description": a.Description})
	for k := range a.Labels {
		if field, ok := map[string]string{"severity": "severity", m.Labels.Team: "team", "family": "family"}[k]; ok {
			v.add(p+".labels."+k, "is set from the alert's %s field; remove it from labels", field)
		}
	}
	fires, quiet := 0, 0
	for i, c := range a.Tests {
		cp := fmt.Sprintf("%s.tests[%d]", p, i)
		if c.Fires {
			fires++
			if c.Value == nil {
				v.add(cp+".value", "a firing case needs the alert's value")
			}
		} else {
			quiet++
		}
		for _, also := range c.AlsoFires {
			if _, ok := m.Alerts[also.Alert]; !ok {
				v.add(cp+".alsoFires", "names unknown alert %q", also.Alert)
			}
		}
	}
	if fires == 0 || quiet == 0 {
		v.add(p+".tests", "needs at least one case that fires and one that stays quiet (has %d and %d)", fires, quiet)
	}
}

// slos checks every SLO; a burn tier that can never fire is an error: at factor f an SLO with
// objective o fires only when more than f × (1 − o) of events fail, which must be below 1.
func (v *validator) slos(m *model.Model) {
	for _, name := range model.SortedKeys(m.SLOs) {
		s, p := m.SLOs[name], "slos."+name
		if s.Team == "" {
			v.add(p+".team", "is empty; name the team that owns the SLO")
		}
		if s.Objective <= 0 || s.Objective >= 1 {
			v.add(p+".objective", "is %g; an objective is a ratio between 0 and 1, such as 0.99", s.Objective)
		}
		v.duration(p+".period", s.Period, true)
		for _, suffix := range model.SortedKeys(s.Alerts) {
			a := s.Alerts[suffix]
			enum(v, p+".alerts."+suffix+".severity", a.Severity, model.Severities)
			v.duration(p+".alerts."+suffix+".for", a.For, false)
			alert := "SLO" + name + suffix
			if got, ok := m.Alerts[alert]; ok && got.Labels["slo"] != name {
				v.add("alerts."+alert, "replaces the burn-rate alert that slos.%s generates (its labels.slo is %q, not %q); rename the alert, or override only its fields with alerts+: { %s+: {...} }", name, got.Labels["slo"], name, alert)
			}
		}
		period, _ := promql.ParseDuration(s.Period)
		if len(s.Tiers) == 0 {
			v.add(p+".tiers", "is empty; an SLO needs at least one burn-rate tier")
		}
		for i, t := range s.Tiers {
			tp := fmt.Sprintf("%s.tiers[%d]", p, i)
			v.duration(tp+".long", t.Long, true)
			v.duration(tp+".short", t.Short, true)
			long, errLong := promql.ParseDuration(t.Long)
			short, errShort := promql.ParseDuration(t.Short)
			switch {
			case errLong != nil || errShort != nil:
			case long <= short:
				v.add(tp, "long window %s is not longer than short window %s: the short window confirms a burn the long one sees, so it must be shorter", t.Long, t.Short)
			case period > 0 && long > period:
				v.add(tp+".long", "%s is longer than the SLO period %s: no budget is spent over more than the period", t.Long, s.Period)
			}
			if _, ok := s.Alerts[t.Alert]; !ok {
				v.add(tp+".alert", "names alert group %q, which slos.%s.alerts does not define", t.Alert, name)
			}
			if t.Factor <= 0 {
				v.add(tp+".factor", "is %g; a burn-rate factor is positive", t.Factor)
			} else if s.Objective > 0 && s.Objective < 1 && t.Factor*(1-s.Objective) >= 1 {
				v.add(tp+".factor", "%g × (1 − %g) = %.3g ≥ 1: the error ratio can never exceed it, so this tier never fires; lower the factor below %.4g or the objective", t.Factor, s.Objective, t.Factor*(1-s.Objective), 1/(1-s.Objective))
			}
		}
	}
}

// cost checks the price table.
func (v *validator) cost(m *model.Model) {
	for _, sku := range model.SortedKeys(m.Cost.GPUHourly) {
		if price := m.Cost.GPUHourly[sku]; price <= 0 {
			v.add("cost.gpuHourly."+sku, "is %g; a GPU-hour price is positive", price)
		}
	}
}

// counterFile checks the fields that tell the counter file from the exporter's default set: each
// is a field the counter file collects beyond that set, and the alert on their absence exists.
func (v *validator) counterFile(m *model.Model) {
	for i, name := range m.Exporter.CounterFileFields {
		f, ok := m.Fields[name]
		switch {
		case !ok:
			v.add(fmt.Sprintf("exporter.counterFileFields[%d]", i), "names field %q, which is not in fields", name)
		case f.Default || !slices.Contains(m.Exporter.ExtraCounters, name):
			v.add(fmt.Sprintf("exporter.counterFileFields[%d]", i), "names %s, which the counter file does not add to the default set (default, or not in exporter.extraCounters): GPUs on the default set would report it", name)
		}
	}
	if a := m.Exporter.StockCounterSetAlert; a != "" {
		if _, ok := m.Alerts[a]; !ok {
			v.add("exporter.stockCounterSetAlert", "names unknown alert %q; set it to '' to go without", a)
		}
	}
}

// sharing checks the sharing settings and that every namespace rollup can attribute its field
// under the exporter's virtual-GPU mode: a MIG-native value copied to every pod of an instance
// has no share to divide it by.
func (v *validator) sharing(m *model.Model) {
	if m.Sharing.Replicas < 1 {
		v.add("sharing.replicas", "is %d; want 1 without time-slicing or MPS, else the device plugin's replicas", m.Sharing.Replicas)
	}
	for _, p := range model.SortedKeys(m.Sharing.MIGProfileWeights) {
		if w := m.Sharing.MIGProfileWeights[p]; w <= 0 || w > 1 {
			v.add("sharing.migProfileWeights."+p, "is %g; a MIG instance's share of its GPU is above 0 and at most 1", w)
		}
	}
	perProcess := map[string]bool{}
	for i, name := range m.Exporter.PerProcessFields {
		perProcess[name] = true
		if _, ok := m.Fields[name]; !ok {
			v.add(fmt.Sprintf("exporter.perProcessFields[%d]", i), "names field %q, which is not in fields", name)
		}
	}
	if !m.Exporter.VirtualGPUs {
		return
	}
	for _, name := range model.SortedKeys(m.Fields) {
		f := m.Fields[name]
		if f.ByNamespace && f.Rollup == model.RollupSum && f.Entity == model.EntityMIGNative && !perProcess[name] {
			v.add("fields."+name+".byNamespace", "with exporter.virtualGPUs the exporter copies this MIG instance's value to every pod on it, so no namespace sum can attribute it; set byNamespace to false, or list the field in exporter.perProcessFields if the exporter reports it per process")
		}
	}
}

// topology checks the mode, the engine and the shard label.
func (v *validator) topology(m *model.Model) {
	t := m.Topology
	if t.Mode != model.TopologySingle && t.Mode != model.TopologySharded {
		v.add("topology.mode", "is %q; want %q (one Prometheus sees every series) or %q (one Prometheus per shard under a global engine)", t.Mode, model.TopologySingle, model.TopologySharded)
	}
	if t.GlobalEngine != model.EngineThanos && t.GlobalEngine != model.EngineMimir {
		v.add("topology.globalEngine", "is %q; want %q (Thanos ruler over a querier) or %q (Mimir ruler)", t.GlobalEngine, model.EngineThanos, model.EngineMimir)
	}
	v.duration("topology.globalQueryOffset", t.GlobalQueryOffset, true)
	if !promql.IsValidLabelName(t.ShardLabel) {
		v.add("topology.shardLabel", "is %q, not a label name; name the external label that tells shards apart (%s)", t.ShardLabel, m.Labels.Cluster)
	}
}

// kubernetes checks how GPUs are handed to pods: a known mode, and on DRA nodes the driver and
// the kubelet job the DRA rules read.
func (v *validator) kubernetes(m *model.Model) {
	k := m.Kubernetes
	v.oneOf("kubernetes.gpuAllocation", k.GPUAllocation, model.GPUAllocations...)
	if !k.DRA() {
		return
	}
	if !k.DevicePlugin() && m.Sharing.Replicas > 1 {
		v.add("sharing.replicas", "is %d, but gpuAllocation is %q: replicas are the device plugin's time-slicing, and DRA nodes share a GPU through a shared claim; set it to 1 (or gpuAllocation to %q where some node pools keep the device plugin)", m.Sharing.Replicas, k.GPUAllocation, model.AllocationMixed)
	}
	for _, f := range []struct{ path, value string }{{"kubernetes.draDriver", k.DRADriver}, {"kubernetes.draDeviceClass", k.DRADeviceClass}, {"kubernetes.kubeletJob", k.KubeletJob}} {
		if f.value == "" {
			v.add(f.path, "is empty: the DRA rules of gpuAllocation %q read it", k.GPUAllocation)
		}
	}
}

// retiredThresholds are thresholds whose meaning changed under a new name: an override of the
// old name would be ignored, or read the wrong way round, so the catalog refuses it.
var retiredThresholds = map[string]string{
	"stragglerRatio":        "the straggler is now the GPU over its job's median tensor activity, not one under its SM activity: set stragglerTensorRatio (a multiple of the median, 1.5 by default)",
	"stragglerBusyActivity": "the straggler now needs its own tensor activity over stragglerMinTensorActivity, and a job of stragglerMinRanks ranks",
	"ncclBusySMActivity":    "a starved job waits in its collectives, where SM activity stays high: the gate is now ncclMinTensorActivity (tensor-pipe activity)",
}

// retiredThresholds refuses a threshold whose meaning changed under a new name.
func (v *validator) retiredThresholds(m *model.Model) {
	for _, name := range model.SortedKeys(retiredThresholds) {
		if _, ok := m.Thresholds[name]; ok {
			v.add("thresholds."+name, "is no longer read: %s", retiredThresholds[name])
		}
	}
}

// slurm checks the scheduler, and on a Slurm fleet where its rules read Slurm: a job and a
// node label, a host mapping that compiles, and known sources of node states and jobs.
func (v *validator) slurm(m *model.Model) {
	enum(v, "scheduler", m.Scheduler, model.Schedulers)
	if m.Scheduler != model.SchedulerSlurm {
		return
	}
	s := m.Slurm
	for _, f := range []struct{ path, value string }{{"slurm.job", s.Job}, {"slurm.nodeLabel", s.NodeLabel}, {"labels.job", m.Labels.Job}} {
		if f.value == "" {
			v.add(f.path, "is empty: a Slurm fleet's rules read it")
		}
	}
	if _, err := regexp.Compile("^(?:" + s.HostFromNode.Regex + ")$"); err != nil {
		v.add("slurm.hostFromNode.regex", "does not compile (%v): it maps a Slurm node name to the exporter's host label", err)
	}
	v.oneOf("slurm.nodeState.source", s.NodeState.Source, model.SlurmNodeStateSources...)
	v.oneOf("slurm.jobInfo.source", s.JobInfo.Source, model.SlurmJobInfoSources...)
	for path, src := range map[string]model.SlurmSource{"slurm.nodeState.job": s.NodeState, "slurm.jobInfo.job": s.JobInfo} {
		if src.Source != model.SlurmSourceNone && src.Job == "" {
			v.add(path, "is empty: the %s exporter's scrape job", src.Source)
		}
	}
}

// grafana checks the dashboard schemas: known, each once, at least one, and the classic one
// where the sidecar loads it (the sidecar provisions classic dashboard JSON only).
func (v *validator) grafana(m *model.Model) {
	g := m.Deploy.Grafana
	if len(g.Schemas) == 0 {
		v.add("deploy.grafana.schemas", "is empty: name the dashboard schemas to write, %q, %q or both", model.SchemaClassic, model.SchemaV2)
	}
	for i, s := range g.Schemas {
		v.oneOf(fmt.Sprintf("deploy.grafana.schemas[%d]", i), s, model.SchemaClassic, model.SchemaV2)
		if slices.Index(g.Schemas, s) != i {
			v.add(fmt.Sprintf("deploy.grafana.schemas[%d]", i), "repeats %q", s)
		}
	}
	if g.Sidecar.Enabled && !g.Writes(model.SchemaClassic) {
		v.add("deploy.grafana.sidecar.enabled", "is true but deploy.grafana.schemas leaves out %q: the sidecar provisions classic dashboard JSON only; add it, or switch the sidecar off", model.SchemaClassic)
	}
	if g.Sidecar.Enabled && !kubernetesName.MatchString(g.UIDPrefix+"-l1") {
		v.add("deploy.grafana.uidPrefix", "is %q: with the sidecar it starts the ConfigMaps' names, which Kubernetes takes in lower case letters, digits and '-' only", g.UIDPrefix)
	}
	for _, level := range model.SortedKeys(m.Dashboards) {
		uid := m.Dashboards[level].UID
		switch {
		case !grafanaUID.MatchString(uid):
			v.add("dashboards."+level+".uid", "is %q: Grafana takes a UID of at most 40 letters, digits, '-' and '_' (deploy.grafana.uidPrefix starts it)", uid)
		case g.Writes(model.SchemaV2) && !kubernetesName.MatchString(uid):
			v.add("dashboards."+level+".uid", "is %q: the v2 resource is named by it, and a resource's name takes lower case letters, digits and '-' only (deploy.grafana.uidPrefix starts it)", uid)
		}
	}
}

// grafanaUID is what Grafana takes as a dashboard UID, and kubernetesName what Kubernetes takes
// as a resource's name (a DNS-1123 label, as Grafana's resource API and ConfigMaps need).
var (
	grafanaUID     = regexp.MustCompile(`^[A-Za-z0-9_-]{1,40}$`)
	kubernetesName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)
)

// runbooks checks that every alert's runbook says what the alert means and links dashboards
// that exist.
func (v *validator) runbooks(m *model.Model) {
	for _, level := range model.SortedKeys(m.Dashboards) {
		if !fileName.MatchString(level) {
			v.add(fmt.Sprintf("dashboards[%q]", level), "is not a name gpuobs can write a file of (dashboards/<name>.json): letters, digits, '-' and '_'")
		}
	}
	for _, name := range model.SortedKeys(m.Alerts) {
		rb, p := m.Alerts[name].Runbook, "alerts."+name+".runbook"
		if rb.Meaning == "" {
			v.add(p+".meaning", "is empty; say what the alert means")
		}
		if len(rb.Mitigation) == 0 {
			v.add(p+".mitigation", "is empty; say what to do")
		}
		for i, q := range rb.Queries {
			if _, err := promql.Canonical(q.Expr); err != nil {
				v.add(fmt.Sprintf("%s.queries[%d].expr", p, i), "invalid PromQL: %v", err)
			}
		}
		for _, level := range rb.Dashboards {
			if _, ok := m.Dashboards[level]; !ok {
				v.add(p+".dashboards", "names dashboard level %q, which dashboards does not define", level)
			}
		}
		for i, step := range rb.Diagnosis {
			if i+1 < len(rb.Diagnosis) && step.Yes != "" && step.No != "" {
				v.add(fmt.Sprintf("%s.diagnosis[%d]", p, i), "both answers end the diagnosis, so the checks after it are never reached; leave the answer that goes on to the next check empty")
			}
		}
	}
}

// webURL checks a URL that people follow from an alert or a runbook: http or https, to a
// host, with no user-info (a password there would be written into every alert). The value
// itself is not printed: it may hold such a password.
func (v *validator) webURL(path, value, use string) {
	if value == "" {
		return
	}
	u, err := url.Parse(value)
	switch {
	case err != nil:
		v.add(path, "is not a URL Go can parse (%s); %s links to it: give an http:// or https:// address", parseProblem(err), use)
	case u.Scheme != "http" && u.Scheme != "https":
		v.add(path, "has scheme %q, not http or https; %s links to it, and a reader's browser would run or open it: give an http:// or https:// address", u.Scheme, use)
	case u.Host == "":
		v.add(path, "names no host; %s links to it: give an address such as https://host/path/", use)
	case u.User != nil:
		v.add(path, "holds user-info (user:password@) that would be written into %s: drop it and authenticate otherwise", use)
	}
}

// parseProblem is what is wrong with a URL, without the URL (url.Error quotes it).
func parseProblem(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return "malformed"
}

// integrations checks each receiver's integrations with Alertmanager's config package: only
// receivers that alerts route to, never the silent one, and secrets only by reference.
func (v *validator) integrations(m *model.Model) {
	am := m.Alertmanager
	known := map[string]bool{}
	for _, bySeverity := range am.Receivers {
		for _, r := range bySeverity {
			known[r] = true
		}
	}
	for _, name := range model.SortedKeys(am.Integrations) {
		p := fmt.Sprintf("alertmanager.integrations[%q]", name)
		switch {
		case name == am.SilentReceiver:
			v.add(p, "is the silent receiver, which gets info alerts and must not notify")
			continue
		case !known[name]:
			v.add(p, "is not a receiver of alertmanager.receivers; the receivers are %s", strings.Join(model.SortedKeys(known), ", "))
			continue
		}
		for _, problem := range amconfig.CheckReceiver(name, am.Integrations[name]) {
			path := p
			if problem.Path != "" {
				path += "." + problem.Path
			}
			v.add(path, "%s", problem.Message)
		}
	}
}

// alertmanager checks that every notifying alert has a receiver, timings parse, and the
// inhibition roles name alerts that exist.
func (v *validator) alertmanager(m *model.Model) {
	am, p := m.Alertmanager, "alertmanager"
	if am.SilentReceiver == "" {
		v.add(p+".silentReceiver", "is empty; name the receiver that gets info alerts")
	}
	for _, name := range model.SortedKeys(m.Alerts) {
		a := m.Alerts[name]
		if a.Severity != model.SeverityCritical && a.Severity != model.SeverityWarning {
			continue // info never notifies; other values are reported with the alert
		}
		if am.Receivers[a.Team][a.Severity] == "" {
			v.add("alerts."+name+".team", "team %q has no %s receiver; add alertmanager.receivers[%q].%s", a.Team, a.Severity, a.Team, a.Severity)
		}
	}
	for _, team := range model.SortedKeys(am.Receivers) {
		for _, sev := range model.SortedKeys(am.Receivers[team]) {
			enum(v, fmt.Sprintf("%s.receivers[%q]", p, team), sev, []model.Severity{model.SeverityCritical, model.SeverityWarning})
			if am.Receivers[team][sev] == am.SilentReceiver {
				v.add(fmt.Sprintf("%s.receivers[%q].%s", p, team, sev), "is the silent receiver; notifying alerts need a receiver that notifies")
			}
		}
	}
	v.integrations(m)
	if _, ok := am.GroupBy["default"]; !ok {
		v.add(p+".groupBy.default", "is missing; it groups the families without their own")
	}
	for _, family := range model.SortedKeys(am.GroupBy) {
		for _, label := range am.GroupBy[family] {
			if !promql.IsValidLabelName(label) {
				v.add(p+".groupBy."+family, "%q is not a label name", label)
			}
		}
	}
	for _, sev := range []model.Severity{model.SeverityCritical, model.SeverityWarning} {
		t, tp := am.Timing[sev], p+".timing."+string(sev)
		v.duration(tp+".groupWait", t.GroupWait, true)
		v.duration(tp+".groupInterval", t.GroupInterval, true)
		v.duration(tp+".repeatInterval", t.RepeatInterval, true)
	}
	for path, alert := range map[string]string{"gpuGone": am.Inhibit.GPUGone, "exporterDown": am.Inhibit.ExporterDown, "nodeUnschedulable": am.Inhibit.NodeUnschedulable, "labelMismatch": am.Inhibit.LabelMismatch, "kubeStateMetricsDown": am.Inhibit.KubeStateMetricsDown} {
		if _, ok := m.Alerts[alert]; alert != "" && !ok {
			v.add(p+".inhibit."+path, "names unknown alert %q; set it to '' to drop its inhibit rule", alert)
		}
	}
	for i, alert := range am.Inhibit.LabelMismatchTargets {
		if am.Inhibit.LabelMismatch == "" {
			break // no rule to check the targets of
		}
		a, ok := m.Alerts[alert]
		switch {
		case !ok:
			v.add(fmt.Sprintf("%s.inhibit.labelMismatchTargets[%d]", p, i), "names unknown alert %q", alert)
		case a.Severity == model.SeverityCritical:
			// A label mismatch on one exporter must not silence the cluster's pages. Which
			// tickets it must silence, the plan derives from the expressions.
			v.add(fmt.Sprintf("%s.inhibit.labelMismatchTargets[%d]", p, i), "names %s, a page: a label mismatch silences its cluster's tickets only", alert)
		}
	}
}
