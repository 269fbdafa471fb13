// Package alertmanager generates the Alertmanager side of the catalog: a routing tree that
// sends each alert to its team's receiver for its severity, grouped so that one broken node is
// one notification, and inhibition rules derived from the alerts' roles, families and tiers.
package alertmanager

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuobs/gpuobs/internal/amconfig"
	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/kept"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/plan"
)

// defaultGroup is the groupBy entry for families without their own.
const defaultGroup = "default"

type config struct {
	Route        *route        `yaml:"route"`
	Receivers    []receiver    `yaml:"receivers"`
	InhibitRules []inhibitRule `yaml:"inhibit_rules,omitempty"`
}

type route struct {
	Receiver       string   `yaml:"receiver,omitempty"`
	Matchers       []string `yaml:"matchers,omitempty"`
	GroupBy        []string `yaml:"group_by,omitempty"`
	GroupWait      string   `yaml:"group_wait,omitempty"`
	GroupInterval  string   `yaml:"group_interval,omitempty"`
	RepeatInterval string   `yaml:"repeat_interval,omitempty"`
	Routes         []*route `yaml:"routes,omitempty"`
}

type receiver struct {
	Name string `yaml:"name"`
	// Integrations are the receiver's notifications as the catalog gives them.
	Integrations map[string]any `yaml:",inline"`
}

type inhibitRule struct {
	Name           string   `yaml:"name"`
	SourceMatchers []string `yaml:"source_matchers"`
	TargetMatchers []string `yaml:"target_matchers"`
	Equal          []string `yaml:"equal"`
}

// Generate renders the complete configuration and the fragment, and loads both with
// Alertmanager's own config package.
func Generate(p *plan.Plan, checked *kept.Memo) ([]emit.File, error) {
	m := p.Model
	full, err := fullConfig(p)
	if err != nil {
		return nil, err
	}
	tree, rulesOut := full.Route, full.InhibitRules
	// The fragment's subtree catches only gpuobs' alerts (they all carry a known family).
	sub := *tree
	sub.Matchers = []string{fmt.Sprintf("family=~%q", strings.Join(families(m), "|"))}
	fragment := config{Route: &sub, Receivers: full.Receivers, InhibitRules: rulesOut}
	files := []emit.File{
		emit.YAML(output.AlertmanagerConfig, emit.MustYAML(full)),
		emit.YAML(output.AlertmanagerFragment, emit.MustYAML(fragment)),
	}
	if err := checked.Run(amconfig.Check, files[0].Content, amconfig.Validate); err != nil {
		return nil, fmt.Errorf("%s does not load in Alertmanager: %w", output.AlertmanagerConfig, err)
	}
	// Merged under a root route, as users merge it.
	merged := config{Route: &route{Receiver: m.Alertmanager.SilentReceiver, Routes: []*route{&sub}}, Receivers: full.Receivers, InhibitRules: rulesOut}
	if err := checked.Run(amconfig.Check, emit.MustYAML(merged), amconfig.Validate); err != nil {
		return nil, fmt.Errorf("%s does not load in Alertmanager when merged: %w", output.AlertmanagerFragment, err)
	}
	return files, nil
}

// Operator renders the configuration as a Prometheus Operator AlertmanagerConfig, with the
// operator's own types.
func Operator(p *plan.Plan) ([]emit.File, error) {
	full, err := fullConfig(p)
	if err != nil {
		return nil, err
	}
	f, err := operatorConfig(p.Model, full)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", output.AlertmanagerOperator, err)
	}
	return []emit.File{f}, nil
}

// fullConfig is the complete configuration: routes, receivers and derived inhibit rules.
func fullConfig(p *plan.Plan) (config, error) {
	inhibitions, err := Inhibitions(p)
	if err != nil {
		return config{}, err
	}
	var rulesOut []inhibitRule
	for _, in := range inhibitions {
		rulesOut = append(rulesOut, in.rule())
	}
	return config{Route: routes(p.Model), Receivers: receivers(p.Model), InhibitRules: rulesOut}, nil
}

// families lists the alert families, sorted.
func families(m *model.Model) []string {
	seen := map[string]bool{}
	for _, a := range m.Alerts {
		seen[a.Family] = true
	}
	return model.SortedKeys(seen)
}

// GroupBy is the grouping of an alert family.
func GroupBy(m *model.Model, family string) []string {
	if g, ok := m.Alertmanager.GroupBy[family]; ok {
		return g
	}
	return m.Alertmanager.GroupBy[defaultGroup]
}

// Receiver is where an alert goes: its team's receiver for its severity; info alerts go to
// the silent receiver.
func Receiver(m *model.Model, a model.Alert) string {
	if a.Severity == model.SeverityInfo {
		return m.Alertmanager.SilentReceiver
	}
	return m.Alertmanager.Receivers[a.Team][a.Severity]
}

// routes builds the tree: info first (silent), then one route per family grouping of its
// own, then the default grouping; under each, one leaf per team and severity that occurs.
func routes(m *model.Model) *route {
	am := m.Alertmanager
	byGroup := map[string][]string{}
	for _, f := range families(m) {
		key := defaultGroup
		if _, ok := am.GroupBy[f]; ok {
			key = f
		}
		byGroup[key] = append(byGroup[key], f)
	}
	def := am.GroupBy[defaultGroup]
	root := &route{Receiver: am.SilentReceiver, GroupBy: def}
	root.Routes = append(root.Routes, &route{Receiver: am.SilentReceiver, Matchers: []string{`severity="info"`}})
	for _, key := range model.SortedKeys(byGroup) {
		if key == defaultGroup {
			continue
		}
		fams := byGroup[key]
		root.Routes = append(root.Routes, &route{
			Receiver: am.SilentReceiver,
			Matchers: []string{familyMatcher(fams)},
			GroupBy:  am.GroupBy[key],
			Routes:   leaves(m, fams),
		})
	}
	root.Routes = append(root.Routes, leaves(m, byGroup[defaultGroup])...)
	return root
}

func familyMatcher(fams []string) string {
	if len(fams) == 1 {
		return fmt.Sprintf("family=%q", fams[0])
	}
	return fmt.Sprintf("family=~%q", strings.Join(fams, "|"))
}

// leaves are the team and severity routes for the alerts of some families.
func leaves(m *model.Model, fams []string) []*route {
	pairs := map[string]model.Alert{}
	for _, a := range m.Alerts {
		if a.Severity != model.SeverityInfo && slices.Contains(fams, a.Family) {
			pairs[a.Team+"\x00"+string(a.Severity)] = a
		}
	}
	var out []*route
	for _, key := range model.SortedKeys(pairs) {
		a := pairs[key]
		t := m.Alertmanager.Timing[a.Severity]
		out = append(out, &route{
			Receiver:       Receiver(m, a),
			Matchers:       []string{fmt.Sprintf("%s=%q", m.Labels.Team, a.Team), fmt.Sprintf("severity=%q", a.Severity)},
			GroupWait:      t.GroupWait,
			GroupInterval:  t.GroupInterval,
			RepeatInterval: t.RepeatInterval,
		})
	}
	return out
}

// receivers are the silent receiver and every team receiver, each with its integrations.
func receivers(m *model.Model) []receiver {
	names := map[string]bool{m.Alertmanager.SilentReceiver: true}
	for _, bySeverity := range m.Alertmanager.Receivers {
		for _, r := range bySeverity {
			names[r] = true
		}
	}
	var out []receiver
	for _, n := range model.SortedKeys(names) {
		out = append(out, receiver{Name: n, Integrations: m.Alertmanager.Integrations[n]})
	}
	return out
}
