// Package rules generates the Prometheus recording and alerting rule files from the catalog.
package rules

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/gpuobs/gpuobs/internal/conventions"
	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/promql"
)

// Output paths, relative to the output directory.
const (
	Dir           = "rules"
	RecordingFile = Dir + "/recording.yaml"
	AlertsFile    = Dir + "/alerts.yaml"
)

// Set is everything the rule files hold, for generators that build on the rules.
type Set struct {
	Recorded []Recorded
	// Alerts are the alert names, sorted.
	Alerts []string
}

// Build derives the recording rules from the catalog, in evaluation order within each family.
func Build(m *model.Model) (Set, error) {
	read, err := readByAlertsAndRecords(m)
	if err != nil {
		return Set{}, err
	}
	var recorded []Recorded
	for _, s := range Signals(m) {
		_, perGPU := read[conventions.RecordName(conventions.LevelGPU, s.Name, s.operation(s.gpuAggregation(), m.Recording.RateWindow))]
		recorded = append(recorded, signalRules(m, s, perGPU)...)
	}
	recorded = append(recorded, allocationRules(m)...)
	// Catalog records last: they build on the derived rules of their group.
	for _, key := range dependencyOrder(m.Records) {
		r := m.Records[key]
		recorded = append(recorded, Recorded{Name: r.Record, Labels: r.Labels, Expr: r.Expr, Family: r.Family, Level: strings.SplitN(r.Record, ":", 2)[0], FromCatalog: true})
	}
	names, seen := map[string]bool{}, map[string]bool{}
	for i, r := range recorded {
		id := r.Name + fmt.Sprint(r.Labels)
		if seen[id] {
			return Set{}, fmt.Errorf("recording rule %s%v is generated twice", r.Name, r.Labels)
		}
		seen[id] = true
		names[r.Name] = true
		canonical, err := promql.Canonical(r.Expr)
		if err != nil {
			return Set{}, fmt.Errorf("recording rule %s: invalid PromQL: %w", r.Name, err)
		}
		recorded[i].Expr = canonical
	}
	for _, name := range model.SortedKeys(read) {
		if _, known := m.Metrics[name]; isRecordedName(name) && !known && !names[name] {
			return Set{}, fmt.Errorf("%s reads %s, which no recording rule produces", read[name], name)
		}
	}
	return Set{Recorded: recorded, Alerts: model.SortedKeys(m.Alerts)}, nil
}

// dependencyOrder lists catalog records by key, except that every record comes after the
// records it reads: a rule group evaluates in order, so a rule reading a later rule would see
// its previous evaluation.
func dependencyOrder(records map[string]model.Record) []string {
	byMetric := map[string][]string{}
	for _, key := range model.SortedKeys(records) {
		byMetric[records[key].Record] = append(byMetric[records[key].Record], key)
	}
	var out []string
	placed := map[string]bool{}
	var place func(key string)
	place = func(key string) {
		if placed[key] {
			return
		}
		placed[key] = true
		reads, _ := promql.MetricNames(records[key].Expr)
		sort.Strings(reads)
		for _, metric := range reads {
			for _, k := range byMetric[metric] {
				place(k)
			}
		}
		out = append(out, key)
	}
	for _, key := range model.SortedKeys(records) {
		place(key)
	}
	return out
}

// readByAlertsAndRecords maps every metric that alert and catalog record expressions read to
// the first expression (by catalog path) that reads it.
func readByAlertsAndRecords(m *model.Model) (map[string]string, error) {
	read := map[string]string{}
	note := func(path, expr string) error {
		used, err := promql.MetricNames(expr)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for _, u := range used {
			if _, ok := read[u]; !ok {
				read[u] = path
			}
		}
		return nil
	}
	for _, name := range model.SortedKeys(m.Alerts) {
		if err := note("alerts."+name+".expr", m.Alerts[name].Expr); err != nil {
			return nil, err
		}
	}
	for _, key := range model.SortedKeys(m.Records) {
		if err := note("records."+key+".expr", m.Records[key].Expr); err != nil {
			return nil, err
		}
	}
	return read, nil
}

// isRecordedName reports whether a metric name has the shape of a recording rule's.
func isRecordedName(name string) bool { return conventions.CheckRecordName(name) == nil }

// Generate renders rules/recording.yaml and rules/alerts.yaml and validates both with
// Prometheus' own rule-file loader.
func Generate(m *model.Model) ([]emit.File, error) {
	set, err := Build(m)
	if err != nil {
		return nil, err
	}
	files := []emit.File{
		emit.YAML(RecordingFile, mustYAML(recordingGroups(m, set.Recorded))),
		emit.YAML(AlertsFile, mustYAML(alertGroups(m))),
	}
	for _, f := range files {
		if errs := promql.ValidateRuleFile(f.Content); len(errs) > 0 {
			return nil, fmt.Errorf("%s does not load in Prometheus: %v", f.Path, errs)
		}
	}
	return files, nil
}

type ruleFile struct {
	Groups []ruleGroup `yaml:"groups"`
}

type ruleGroup struct {
	Name     string `yaml:"name"`
	Interval string `yaml:"interval,omitempty"`
	Rules    []rule `yaml:"rules"`
}

type rule struct {
	Record      string            `yaml:"record,omitempty"`
	Alert       string            `yaml:"alert,omitempty"`
	Expr        string            `yaml:"expr"`
	For         string            `yaml:"for,omitempty"`
	Labels      map[string]string `yaml:"labels,omitempty"`
	Annotations map[string]string `yaml:"annotations,omitempty"`
}

// GroupName names the rule group of a family.
func GroupName(family, kind string) string { return "gpuobs-" + family + "-" + kind }

func recordingGroups(m *model.Model, recorded []Recorded) ruleFile {
	byFamily := map[string][]rule{}
	for _, r := range recorded {
		byFamily[r.Family] = append(byFamily[r.Family], rule{Record: r.Name, Expr: pretty(r.Expr), Labels: r.Labels})
	}
	var f ruleFile
	for _, family := range model.SortedKeys(byFamily) {
		f.Groups = append(f.Groups, ruleGroup{Name: GroupName(family, "recording"), Interval: m.Recording.Interval, Rules: byFamily[family]})
	}
	return f
}

func alertGroups(m *model.Model) ruleFile {
	byFamily := map[string][]rule{}
	for _, name := range model.SortedKeys(m.Alerts) {
		a := m.Alerts[name]
		byFamily[a.Family] = append(byFamily[a.Family], rule{
			Alert:       name,
			Expr:        pretty(a.Expr),
			For:         a.For,
			Labels:      AlertLabels(a),
			Annotations: Annotations(m, name),
		})
	}
	var f ruleFile
	for _, family := range model.SortedKeys(byFamily) {
		rules := byFamily[family]
		sort.SliceStable(rules, func(i, j int) bool { return rules[i].Alert < rules[j].Alert })
		f.Groups = append(f.Groups, ruleGroup{Name: GroupName(family, "alerts"), Rules: rules})
	}
	return f
}

// AlertLabels are the static labels of an alert: severity, team, family and the catalog's
// extras. Alertmanager routes on team and severity and inhibits within a family.
func AlertLabels(a model.Alert) map[string]string {
	out := map[string]string{"severity": a.Severity, "team": a.Team, "family": a.Family}
	for k, v := range a.Labels {
		out[k] = v
	}
	return out
}

// Annotations are an alert's annotations, templates unexpanded.
func Annotations(m *model.Model, name string) map[string]string {
	a := m.Alerts[name]
	return map[string]string{"summary": a.Summary, "description": a.Description, "runbook_url": m.RunbookURL(name)}
}

func pretty(expr string) string {
	p, err := promql.Pretty(expr)
	if err != nil {
		panic(fmt.Sprintf("expression was parsed before: %v", err))
	}
	return p
}

func mustYAML(v any) []byte {
	out, err := emit.MarshalYAML(v)
	if err != nil {
		panic(fmt.Sprintf("rule file types always marshal: %v", err))
	}
	return out
}

// Reads lists every metric expr reads, directly or through the set's recording rules, sorted.
// A selector reaches only the rules of its name whose static labels its equality matchers
// allow: slo:sli_error:ratio_rate1h{slo="A"} reads SLO A's rule, not SLO B's.
func (s Set) Reads(expr string) ([]string, error) {
	byName := map[string][]Recorded{}
	for _, r := range s.Recorded {
		byName[r.Name] = append(byName[r.Name], r)
	}
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
			for _, r := range byName[c.Name] {
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

// Fields lists the DCGM fields expr reads, directly or through the set's recording rules.
func (s Set) Fields(m *model.Model, expr string) ([]string, error) {
	reads, err := s.Reads(expr)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range reads {
		if _, ok := m.Fields[n]; ok {
			out = append(out, n)
		}
	}
	return out, nil
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
