package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/promql"
)

// Layer is where a rule runs in a sharded fleet.
type Layer string

// Layers: a shard Prometheus (raw series of one shard, its records) or the global engine
// (records of every shard, read through a querier or a central store).
const (
	Shard  Layer = "shard"
	Global Layer = "global"
)

// RuleFile is one generated rule file: its path, the layer it is for (empty in a single
// topology) and its groups.
type RuleFile struct {
	Path   string
	Layer  Layer
	Groups []Group
}

// RuleFiles are the rule files the plan is written as: recording and alerting rules, one pair
// per layer in a sharded topology, in evaluation order (shard before global).
func (p *Plan) RuleFiles() []RuleFile {
	if !p.Model.Topology.Sharded() {
		return []RuleFile{
			{Path: output.RecordingRules, Groups: p.RecordingGroups},
			{Path: output.AlertRules, Groups: p.AlertGroups},
		}
	}
	var out []RuleFile
	for _, layer := range []Layer{Shard, Global} {
		out = append(out,
			RuleFile{Path: output.LayerRules(output.RecordingRules, string(layer)), Layer: layer, Groups: p.groupsIn(p.RecordingGroups, layer)},
			RuleFile{Path: output.LayerRules(output.AlertRules, string(layer)), Layer: layer, Groups: p.groupsIn(p.AlertGroups, layer)})
	}
	return out
}

// groupsIn keeps the rules of each group placed in layer, and the groups left with rules.
func (p *Plan) groupsIn(groups []Group, layer Layer) []Group {
	var out []Group
	for _, g := range groups {
		kept := g
		kept.Rules = nil
		if layer == Global {
			kept.QueryOffset = p.Model.Topology.GlobalQueryOffset
		}
		for _, r := range g.Rules {
			if p.Layers[r.Record+r.Alert] == layer {
				kept.Rules = append(kept.Rules, r)
			}
		}
		if len(kept.Rules) > 0 {
			out = append(out, kept)
		}
	}
	return out
}

// GlobalInputs are the shard records the global layer reads, sorted: with a central store
// (Mimir) the shards must remote-write them.
func (p *Plan) GlobalInputs() []string {
	seen := map[string]bool{}
	note := func(expr string) {
		metrics, _ := promql.MetricNames(expr) // canonical: it parses
		for _, metric := range metrics {
			if p.Layers[metric] == Shard {
				seen[metric] = true
			}
		}
	}
	for _, r := range p.Recorded {
		if p.Layers[r.Name] == Global {
			note(r.Expr)
		}
	}
	for _, name := range model.SortedKeys(p.Alerts) {
		if p.Layers[name] == Global {
			note(p.Alerts[name].Expr)
		}
	}
	return model.SortedKeys(seen)
}

// placement places every recording rule and alert of a sharded topology. A rule runs in the
// global layer when an aggregation in it drops the shard label from series that carry it
// (it combines shards) or when it reads a global record; every other rule runs in the shard,
// where the shard label is external and the rule sees one shard's series. A global rule that
// reads raw series cannot be placed: the global layer would pull every shard's raw series
// across the network, and one shard's outage would make it partial without a sign.
func placement(m *model.Model, recorded []Recorded, alerts map[string]Alert) (map[string]Layer, error) {
	if !m.Topology.Sharded() {
		return nil, nil
	}
	pl := placer{label: m.Topology.ShardLabel, rules: map[string][]Recorded{}, layers: map[string]Layer{}, problems: map[string]string{}}
	for _, r := range recorded {
		pl.rules[r.Name] = append(pl.rules[r.Name], r)
	}
	pl.labels = newRecordedLabels(m, recorded)
	pl.labels.external = pl.label
	for _, r := range recorded {
		pl.place(r.Name)
	}
	for _, name := range model.SortedKeys(alerts) {
		n, err := promql.Parse(alerts[name].Expr)
		if err != nil {
			return nil, fmt.Errorf("alert %s: %w", name, err)
		}
		layer, err := pl.layerOf(alerts[name].Expr, n)
		if err != nil {
			pl.problems["alert "+name] = err.Error()
		}
		pl.layers[name] = layer
	}
	if len(pl.problems) > 0 {
		var problems []string
		for _, what := range model.SortedKeys(pl.problems) {
			problems = append(problems, what+": "+pl.problems[what])
		}
		n := len(problems)
		if n > maxPlacementProblems {
			problems = append(problems[:maxPlacementProblems], fmt.Sprintf("and %d more", n-maxPlacementProblems))
		}
		hint := ""
		if pl.label != m.Labels.Cluster {
			hint = fmt.Sprintf(" (the rules keep %s, not %s: with several Prometheus per %s, each shard sees part of a %s; shard by %s, the usual layout)", m.Labels.Cluster, pl.label, m.Labels.Cluster, m.Labels.Cluster, m.Labels.Cluster)
		}
		return nil, fmt.Errorf("topology sharded by %s: %d rules cannot be placed in a shard or in the global layer%s:\n  %s", pl.label, n, hint, strings.Join(problems, "\n  "))
	}
	return pl.layers, nil
}

// maxPlacementProblems is how many unplaceable rules an error lists: a shard label that every
// rule drops (several Prometheus per cluster) makes hundreds, all for one reason.
const maxPlacementProblems = 10

type placer struct {
	label  string
	rules  map[string][]Recorded
	labels *Labels
	layers map[string]Layer
	// problems says why a rule cannot be placed, by "recording rule <name>" or "alert <name>".
	problems map[string]string
}

// place places the rules recording a metric name (all of them in one layer, as a reader
// cannot tell their series apart), noting in problems why they cannot be placed.
func (pl *placer) place(name string) {
	if _, ok := pl.layers[name]; ok {
		return
	}
	pl.layers[name] = Shard // breaks cycles
	layer := Shard
	var errs []string
	for _, r := range pl.rules[name] {
		l, err := pl.layerOf(r.Expr, r.Parsed)
		if err != nil && !slices.Contains(errs, err.Error()) {
			errs = append(errs, err.Error())
		}
		if l == Global {
			layer = Global
		}
	}
	pl.layers[name] = layer
	if len(errs) > 0 {
		pl.problems["recording rule "+name] = strings.Join(errs, "; ")
	}
}

// layerOf is the layer an expression (canonical, and parsed) runs in, or an error when it
// reads raw series but must run globally.
func (pl *placer) layerOf(expr string, n *promql.Node) (Layer, error) {
	var raw []string
	global := ""
	metrics, _ := promql.MetricNames(expr)
	for _, metric := range metrics {
		if _, recorded := pl.rules[metric]; !recorded {
			raw = append(raw, metric)
			continue
		}
		pl.place(metric)
		if pl.layers[metric] == Global && global == "" {
			global = "reads the global record " + metric
		}
	}
	if global == "" {
		global = pl.combinesShards(n)
	}
	if global == "" {
		return Shard, nil
	}
	if len(raw) > 0 {
		return Global, fmt.Errorf("%s, so it must run in the global layer, but it reads the raw series %s there; record them per shard (a rule that keeps %s) and read the record", global, strings.Join(raw, ", "), pl.label)
	}
	return Global, nil
}

// combinesShards says how an expression combines series of several shards: an aggregation
// that drops the shard label from input that carries it. Empty when it does not.
func (pl *placer) combinesShards(n *promql.Node) string {
	var why string
	promql.Walk(n, func(c *promql.Node, _ []*promql.Node) {
		if why != "" || c.Kind != promql.Aggregate {
			return
		}
		if pl.labels.Of(c.Args[len(c.Args)-1]).Has(pl.label) && !pl.labels.Of(c).Has(pl.label) {
			why = c.Name + " drops " + pl.label + " (it combines shards)"
		}
	})
	return why
}
