package alertmanager

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/plan"
)

// Inhibition is one inhibit rule: while a source alert fires, target alerts with the same
// values of the equal labels are silenced.
type Inhibition struct {
	Name    string
	Sources []string
	Targets []string
	Equal   []string
	// Present are the equal labels that name a machine or GPU: a source must carry each of
	// them, non-empty. Alertmanager compares a missing label as the empty string, so a source
	// without its host (a label profile that does not match the exporter, an alert's fallback
	// branch) would otherwise silence the alerts of every host that lacks it too.
	Present []string
}

func (in Inhibition) rule() inhibitRule {
	sources := []string{alertnames(in.Sources)}
	for _, l := range in.Present {
		sources = append(sources, fmt.Sprintf("%s!=%q", l, ""))
	}
	return inhibitRule{Name: in.Name, SourceMatchers: sources, TargetMatchers: []string{alertnames(in.Targets)}, Equal: in.Equal}
}

// machineLabels are the labels that name a cluster, a machine or a GPU.
func machineLabels(m *model.Model) []string {
	l := m.Labels
	return []string{l.Cluster, l.Host, l.Node, l.GPU, l.UUID, l.PCIBusID, l.Device}
}

func alertnames(names []string) string {
	if len(names) == 1 {
		return fmt.Sprintf("alertname=%q", names[0])
	}
	return fmt.Sprintf("alertname=~%q", strings.Join(names, "|"))
}

// Inhibitions derives the inhibit rules from the catalog, and fails when an equal label does
// not survive the expression of a source or target alert: the rule would never match.
//
//   - gpu-gone: the GPU-gone alert silences every other alert on the GPU;
//   - exporter-down: the exporter-down alert silences, on its node, the alerts that read the
//     exporter's series (directly or through recording rules);
//   - node-unschedulable: a cordoned or draining node silences its utilization alerts;
//   - kube-state-metrics-down: kube-state-metrics reporting nothing for a cluster silences
//     there the targets of the inhibitions whose sources cannot fire without it (the cordon's)
//     that can, and do not page: the alerts that would fire wrongly without their silencer;
//   - label-mismatch: an exporter sending other label names than the catalog expects silences,
//     in its cluster, the tickets that fire for every GPU because of it (a GPU "missing" under
//     its old labels);
//   - <family>-page-over-ticket: a page silences the tickets of its family on the same GPU;
//   - <slo>-fast-over-slow: an SLO's page silences its tickets for the same SLO series.
func Inhibitions(p *plan.Plan) ([]Inhibition, error) {
	m := p.Model
	l, ib := m.Labels, m.Alertmanager.Inhibit
	gpu := []string{l.Cluster, l.Host, l.UUID}
	node := []string{l.Cluster, l.Host}
	var out []Inhibition
	add := func(name string, sources []string, equal []string, target func(string, model.Alert) bool) {
		var targets []string
		for _, t := range model.SortedKeys(m.Alerts) {
			if !slices.Contains(sources, t) && hasAll(m.Alerts[t].Identity, equal) && target(t, m.Alerts[t]) {
				targets = append(targets, t)
			}
		}
		if len(sources) > 0 && len(targets) > 0 {
			var present []string
			for _, e := range equal {
				if slices.Contains(machineLabels(m), e) {
					present = append(present, e)
				}
			}
			out = append(out, Inhibition{Name: name, Sources: sources, Targets: targets, Equal: equal, Present: present})
		}
	}
	all := func(string, model.Alert) bool { return true }
	if ib.GPUGone != "" {
		add("gpu-gone", []string{ib.GPUGone}, gpu, all)
	}
	if ib.ExporterDown != "" {
		add("exporter-down", []string{ib.ExporterDown}, node, func(t string, _ model.Alert) bool { return len(p.Alerts[t].Fields) > 0 })
	}
	if ib.NodeUnschedulable != "" {
		add("node-unschedulable", []string{ib.NodeUnschedulable}, node, func(_ string, a model.Alert) bool {
			return slices.Contains(ib.NodeUnschedulableFamilies, a.Family)
		})
	}
	if ib.LabelMismatch != "" {
		add("label-mismatch", []string{ib.LabelMismatch}, []string{l.Cluster}, func(t string, _ model.Alert) bool {
			return slices.Contains(ib.LabelMismatchTargets, t)
		})
	}
	for _, family := range families(m) {
		var pages []string
		for _, name := range model.SortedKeys(m.Alerts) {
			if a := m.Alerts[name]; a.Family == family && a.Severity == model.SeverityCritical && hasAll(a.Identity, gpu) {
				pages = append(pages, name)
			}
		}
		add(family+"-page-over-ticket", pages, gpu, func(_ string, a model.Alert) bool {
			return a.Family == family && a.Severity == model.SeverityWarning
		})
	}
	for _, slo := range model.SortedKeys(m.SLOs) {
		s := m.SLOs[slo]
		var pages []string
		for _, suffix := range model.SortedKeys(s.Alerts) {
			// A page the catalog removed (alerts: std.objectRemoveKey(...)) silences nothing.
			if _, ok := m.Alerts["SLO"+slo+suffix]; ok && s.Alerts[suffix].Severity == model.SeverityCritical {
				pages = append(pages, "SLO"+slo+suffix)
			}
		}
		add(slo+"-fast-over-slow", pages, s.By, func(t string, a model.Alert) bool {
			return a.Labels["slo"] == slo && a.Severity != model.SeverityCritical
		})
	}
	if ib.KubeStateMetricsDown != "" {
		// Derived last: the targets of the inhibitions whose sources cannot fire without
		// kube-state-metrics, those that can (the others go blind with their source, not wrong).
		orphaned := map[string]bool{}
		for _, in := range out {
			if slices.ContainsFunc(in.Sources, func(s string) bool { return needsKubeStateMetrics(p.Alerts[s]) }) {
				for _, t := range in.Targets {
					orphaned[t] = true
				}
			}
		}
		add("kube-state-metrics-down", []string{ib.KubeStateMetricsDown}, []string{l.Cluster}, func(t string, a model.Alert) bool {
			return orphaned[t] && !needsKubeStateMetrics(p.Alerts[t]) && a.Severity != model.SeverityCritical
		})
	}
	for _, in := range out {
		for _, name := range append(slices.Clone(in.Sources), in.Targets...) {
			if err := equalSurvives(p, in, name); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// needsKubeStateMetrics reports whether an alert cannot fire without kube-state-metrics'
// series (every one is named kube_*), read directly or through recording rules.
func needsKubeStateMetrics(a plan.Alert) bool {
	return slices.ContainsFunc(a.Requires, func(m string) bool { return strings.HasPrefix(m, "kube_") })
}

func hasAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// equalSurvives checks that the alert's expression (or its static labels) yields every equal
// label of the rule.
func equalSurvives(p *plan.Plan, in Inhibition, alert string) error {
	a := p.Alerts[alert]
	names, _, err := p.Labels.Expr(a.Expr)
	if err != nil {
		return fmt.Errorf("alert %s: %w", alert, err)
	}
	for _, e := range in.Equal {
		if _, ok := a.Labels[e]; !ok && e != "alertname" && !slices.Contains(names, e) {
			return fmt.Errorf("inhibit rule %s: equal label %q does not survive the expression of alert %s (it yields %s): the rule could never match; keep %s in the alert's aggregation or change the rule",
				in.Name, e, alert, strings.Join(names, ", "), e)
		}
	}
	return nil
}
