// Package amconfig is gpuobs' only door to Alertmanager's own code: it loads configurations
// with Alertmanager's config package, routes label sets with its dispatch package, inhibits
// with its inhibit package, and parses matchers with its labels package.
package amconfig

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/alertmanager/alert"
	"github.com/prometheus/alertmanager/config"
	"github.com/prometheus/alertmanager/dispatch"
	"github.com/prometheus/alertmanager/eventrecorder"
	"github.com/prometheus/alertmanager/inhibit"
	"github.com/prometheus/alertmanager/labelset"
	"github.com/prometheus/alertmanager/pkg/labels"
	"github.com/prometheus/alertmanager/provider/mem"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"
)

// Config is a loaded, validated Alertmanager configuration.
type Config struct {
	conf  *config.Config
	route *dispatch.Route
}

// Load parses and validates an alertmanager.yml as Alertmanager does.
func Load(data []byte) (*Config, error) {
	c, err := config.Load(string(data))
	if err != nil {
		return nil, err
	}
	return &Config{conf: c, route: dispatch.NewRoute(c.Route, nil)}, nil
}

// Check names Validate's check where its passes are remembered (kept.Memo).
const Check = "Alertmanager's configuration loader"

// Validate loads an alertmanager.yml as Alertmanager does, and returns why it does not load.
func Validate(data []byte) error {
	_, err := Load(data)
	return err
}

// Route is where an alert goes: the receiver of a matched route, its grouping and timing.
type Route struct {
	Receiver       string
	GroupBy        []string
	GroupWait      time.Duration
	GroupInterval  time.Duration
	RepeatInterval time.Duration
}

// Routes routes a label set through the routing tree as Alertmanager's dispatcher does.
func (c *Config) Routes(lset map[string]string) []Route {
	var out []Route
	for _, r := range c.route.Match(modelLabels(lset)) {
		var groupBy []string
		for l := range r.RouteOpts.GroupBy {
			groupBy = append(groupBy, string(l))
		}
		out = append(out, Route{
			Receiver:       r.RouteOpts.Receiver,
			GroupBy:        slices.Sorted(slices.Values(groupBy)),
			GroupWait:      r.RouteOpts.GroupWait,
			GroupInterval:  r.RouteOpts.GroupInterval,
			RepeatInterval: r.RouteOpts.RepeatInterval,
		})
	}
	return out
}

// Inhibited reports whether Alertmanager's inhibitor mutes target while the firing alerts
// fire.
func (c *Config) Inhibited(firing []map[string]string, target map[string]string) (bool, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ih, stop, err := c.inhibitor(ctx, firing)
	if err != nil {
		return false, err
	}
	defer stop()
	return ih.Mutes(ctx, labelset.FromModel(modelLabels(target))), nil
}

// inhibitor starts Alertmanager's inhibitor over an alert store holding the firing alerts;
// stop releases both.
func (c *Config) inhibitor(ctx context.Context, firing []map[string]string) (ih *inhibit.Inhibitor, stop func(), err error) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	alerts, err := mem.NewAlerts(ctx, time.Hour, 0, nil, logger, eventrecorder.NopRecorder(), prometheus.NewRegistry(), nil)
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	for _, f := range firing {
		a := alert.New(model.Alert{Labels: modelLabels(f), StartsAt: now.Add(-time.Minute), EndsAt: now.Add(time.Hour)}, now, false)
		if err := alerts.Put(ctx, a); err != nil {
			alerts.Close()
			return nil, nil, err
		}
	}
	ih = inhibit.NewInhibitor(alerts, c.conf.InhibitRules, logger, eventrecorder.NopRecorder())
	go ih.Run()
	ih.WaitForLoading()
	return ih, func() { ih.Stop(); alerts.Close() }, nil
}

// Matches reports whether a label set matches every matcher, in Alertmanager's matcher syntax
// (team="infra", alertname=~"GPU.*").
func Matches(matchers []string, lset map[string]string) (bool, error) {
	ls := modelLabels(lset)
	for _, s := range matchers {
		m, err := labels.ParseMatcher(s)
		if err != nil {
			return false, fmt.Errorf("matcher %q: %w", s, err)
		}
		if !m.Matches(string(ls[model.LabelName(m.Name)])) {
			return false, nil
		}
	}
	return true, nil
}

// ParseMatcher splits a matcher of Alertmanager's syntax (team="infra") into its name,
// operator (=, !=, =~, !~) and value, as Alertmanager parses it.
func ParseMatcher(s string) (name, op, value string, err error) {
	m, err := labels.ParseMatcher(s)
	if err != nil {
		return "", "", "", err
	}
	return m.Name, m.Type.String(), m.Value, nil
}

func modelLabels(lset map[string]string) model.LabelSet {
	out := make(model.LabelSet, len(lset))
	for k, v := range lset {
		out[model.LabelName(k)] = model.LabelValue(v)
	}
	return out
}

// Silencers reports, for each alert of a rule set given by its static labels, which others
// of the set Alertmanager's inhibitor lets silence it. Labels an inhibit rule requires equal
// that neither label set has count as equal, as Alertmanager counts them.
//
// Each inhibit rule's matchers (as Alertmanager builds them) index the candidates: its
// sources by the values of its equal labels, each target looked up by its own; then one
// inhibitor per source, that source firing alone, confirms each of its candidates. The work
// follows the pairs that could silence, not every pair of the set.
func (c *Config) Silencers(alerts []map[string]string) ([][]int, error) {
	lsets := make([]model.LabelSet, len(alerts))
	for i, a := range alerts {
		lsets[i] = modelLabels(a)
	}
	candidates := map[int][]int{} // source → targets it may silence
	for _, cr := range c.conf.InhibitRules {
		r := inhibit.NewInhibitRule(cr)
		for s, t := range candidatePairs(r, lsets) {
			candidates[s] = append(candidates[s], t...)
		}
	}
	out := make([][]int, len(alerts))
	for _, s := range slices.Sorted(maps.Keys(candidates)) {
		targets := slices.Compact(slices.Sorted(slices.Values(candidates[s])))
		mutes, err := c.mutes(alerts[s], targets, alerts)
		if err != nil {
			return nil, err
		}
		for i, t := range targets {
			if mutes[i] {
				out[t] = append(out[t], s)
			}
		}
	}
	return out, nil
}

// candidatePairs are, by source, the alerts one inhibit rule may let it silence: the other
// targets whose equal labels match the source's. Everything finer (a source and target on
// both of the rule's sides) is left to the inhibitor that confirms each pair.
func candidatePairs(r *inhibit.InhibitRule, lsets []model.LabelSet) map[int][]int {
	equal := slices.Sorted(maps.Keys(r.Equal))
	key := func(ls model.LabelSet) string {
		var b strings.Builder
		for _, l := range equal {
			b.WriteString(strconv.Quote(string(ls[l])))
		}
		return b.String()
	}
	sources := map[string][]int{}
	for i, ls := range lsets {
		if r.SourceMatchers.Matches(ls) {
			sources[key(ls)] = append(sources[key(ls)], i)
		}
	}
	pairs := map[int][]int{}
	for t, ls := range lsets {
		if !r.TargetMatchers.Matches(ls) {
			continue
		}
		for _, s := range sources[key(ls)] {
			if s != t {
				pairs[s] = append(pairs[s], t)
			}
		}
	}
	return pairs
}

// mutes asks one inhibitor, with source firing, whether it mutes each target (indexes into
// alerts).
func (c *Config) mutes(source map[string]string, targets []int, alerts []map[string]string) ([]bool, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ih, stop, err := c.inhibitor(ctx, []map[string]string{source})
	if err != nil {
		return nil, err
	}
	defer stop()
	out := make([]bool, len(targets))
	for i, t := range targets {
		out[i] = ih.Mutes(ctx, labelset.FromModel(modelLabels(alerts[t])))
	}
	return out, nil
}

// InhibitLabels are the label names the inhibit rules read: in their source and target
// matchers (and the older source_match, target_match forms) and their equal lists, sorted.
func (c *Config) InhibitLabels() []string {
	var out []string
	for _, r := range c.conf.InhibitRules {
		for _, m := range append(slices.Clone(r.SourceMatchers), r.TargetMatchers...) {
			out = append(out, m.Name)
		}
		for _, m := range []map[string]string{r.SourceMatch, r.TargetMatch} {
			out = slices.AppendSeq(out, maps.Keys(m))
		}
		for l := range r.SourceMatchRE {
			out = append(out, l)
		}
		for l := range r.TargetMatchRE {
			out = append(out, l)
		}
		out = append(out, r.Equal...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// InhibitRuleNames are the names of the configuration's inhibit rules, in order (unnamed
// ones left out).
func (c *Config) InhibitRuleNames() []string {
	var out []string
	for _, r := range c.conf.InhibitRules {
		if r.Name != "" {
			out = append(out, r.Name)
		}
	}
	return out
}
