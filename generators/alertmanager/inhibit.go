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
//   - exporters-down-in-cluster: most exporter targets of a cluster down at once silences,
//     there, each target's exporter-down ticket and the tickets of GPUs and nodes read as
//     missing (the label-mismatch targets);
//   - <family>-page-over-ticket: a page silences the tickets of its family on the same GPU;
//   - <slo>-fast-over-slow: an SLO's page silences its tickets for the same SLO series.
func Inhibitions(p *plan.Plan) ([]Inhibition, error) {
	b := &inhibitions{p: p, m: p.Model}
	b.named()
	b.pageOverTicket()
	b.fastOverSlow()
	b.kubeStateMetricsDown() // last: it reads the rules above
	for _, in := range b.out {
		for _, name := range append(slices.Clone(in.Sources), in.Targets...) {
			if err := equalSurvives(p, in, name); err != nil {
				return nil, err
			}
		}
	}
	return b.out, nil
}

// inhibitions builds the inhibit rules of a plan, in order.
type inhibitions struct {
	p   *plan.Plan
	m   *model.Model
	out []Inhibition
}

// add adds a rule from its sources to the alerts target accepts that hold every equal label,
// when it has both.
func (b *inhibitions) add(name string, sources []string, equal []string, target func(string, model.Alert) bool) {
	m := b.m
	var targets []string
	for _, t := range model.SortedKeys(m.Alerts) {
		if !slices.Contains(sources, t) && hasAll(m.Alerts[t].Identity, equal) && target(t, m.Alerts[t]) {
			targets = append(targets, t)
		}
	}
	if len(sources) == 0 || len(targets) == 0 {
		return
	}
	var present []string
	for _, e := range equal {
		if slices.Contains(machineLabels(m), e) {
			present = append(present, e)
		}
	}
	b.out = append(b.out, Inhibition{Name: name, Sources: sources, Targets: targets, Equal: equal, Present: present})
}

// named adds the rules whose source the catalog names in alertmanager.inhibit.
func (b *inhibitions) named() {
	l, ib := b.m.Labels, b.m.Alertmanager.Inhibit
	if ib.GPUGone != "" {
		b.add("gpu-gone", []string{ib.GPUGone}, b.gpu(), func(string, model.Alert) bool { return true })
	}
	node := []string{l.Cluster, l.Host}
	if ib.ExporterDown != "" {
		b.add("exporter-down", []string{ib.ExporterDown}, node, func(t string, _ model.Alert) bool { return len(b.p.Alerts[t].Fields) > 0 })
	}
	if ib.NodeUnschedulable != "" {
		b.add("node-unschedulable", []string{ib.NodeUnschedulable}, node, func(_ string, a model.Alert) bool {
			return slices.Contains(ib.NodeUnschedulableFamilies, a.Family)
		})
	}
	if ib.LabelMismatch != "" {
		b.add("label-mismatch", []string{ib.LabelMismatch}, []string{l.Cluster}, func(t string, _ model.Alert) bool {
			return slices.Contains(ib.LabelMismatchTargets, t)
		})
	}
	if ib.ExportersDownInCluster != "" {
		b.add("exporters-down-in-cluster", []string{ib.ExportersDownInCluster}, []string{l.Cluster}, func(t string, a model.Alert) bool {
			return a.Severity != model.SeverityCritical && (t == ib.ExporterDown || slices.Contains(ib.LabelMismatchTargets, t))
		})
	}
}

// gpu are the labels that name one GPU.
func (b *inhibitions) gpu() []string {
	l := b.m.Labels
	return []string{l.Cluster, l.Host, l.UUID}
}

// pageOverTicket adds, per family, the rule by which its pages silence its tickets on the GPU.
func (b *inhibitions) pageOverTicket() {
	m, gpu := b.m, b.gpu()
	for _, family := range families(m) {
		var pages []string
		for _, name := range model.SortedKeys(m.Alerts) {
			if a := m.Alerts[name]; a.Family == family && a.Severity == model.SeverityCritical && hasAll(a.Identity, gpu) {
				pages = append(pages, name)
			}
		}
		b.add(family+"-page-over-ticket", pages, gpu, func(_ string, a model.Alert) bool {
			return a.Family == family && a.Severity == model.SeverityWarning
		})
	}
}

// fastOverSlow adds, per SLO, the rule by which its pages silence its tickets.
func (b *inhibitions) fastOverSlow() {
	m := b.m
	for _, slo := range model.SortedKeys(m.SLOs) {
		s := m.SLOs[slo]
		var pages []string
		for _, suffix := range model.SortedKeys(s.Alerts) {
			// A page the catalog removed (alerts: std.objectRemoveKey(...)) silences nothing.
			if _, ok := m.Alerts["SLO"+slo+suffix]; ok && s.Alerts[suffix].Severity == model.SeverityCritical {
				pages = append(pages, "SLO"+slo+suffix)
			}
		}
		b.add(slo+"-fast-over-slow", pages, s.By, func(t string, a model.Alert) bool {
			return a.Labels["slo"] == slo && a.Severity != model.SeverityCritical
		})
	}
}

// kubeStateMetricsDown adds the rule by which kube-state-metrics down silences the targets of
// the inhibitions whose sources cannot fire without it, those that can (the others go blind
// with their source, not wrong) and do not page.
func (b *inhibitions) kubeStateMetricsDown() {
	source := b.m.Alertmanager.Inhibit.KubeStateMetricsDown
	if source == "" {
		return
	}
	orphaned := map[string]bool{}
	for _, in := range b.out {
		if slices.ContainsFunc(in.Sources, func(s string) bool { return needsKubeStateMetrics(b.p.Alerts[s]) }) {
			for _, t := range in.Targets {
				orphaned[t] = true
			}
		}
	}
	b.add("kube-state-metrics-down", []string{source}, []string{b.m.Labels.Cluster}, func(t string, a model.Alert) bool {
		return orphaned[t] && !needsKubeStateMetrics(b.p.Alerts[t]) && a.Severity != model.SeverityCritical
	})
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
