// Package amconfig is gpuobs' only door to Alertmanager's own code: it loads configurations
// with Alertmanager's config package, routes label sets with its dispatch package, inhibits
// with its inhibit package, and parses matchers with its labels package.
package amconfig

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
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
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	alerts, err := mem.NewAlerts(ctx, time.Hour, 0, nil, logger, eventrecorder.NopRecorder(), prometheus.NewRegistry(), nil)
	if err != nil {
		return false, err
	}
	defer alerts.Close()
	now := time.Now()
	for _, f := range firing {
		a := alert.New(model.Alert{Labels: modelLabels(f), StartsAt: now.Add(-time.Minute), EndsAt: now.Add(time.Hour)}, now, false)
		if err := alerts.Put(ctx, a); err != nil {
			return false, err
		}
	}
	ih := inhibit.NewInhibitor(alerts, c.conf.InhibitRules, logger, eventrecorder.NopRecorder())
	go ih.Run()
	defer ih.Stop()
	ih.WaitForLoading()
	return ih.Mutes(ctx, labelset.FromModel(modelLabels(target))), nil
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

func modelLabels(lset map[string]string) model.LabelSet {
	out := make(model.LabelSet, len(lset))
	for k, v := range lset {
		out[model.LabelName(k)] = model.LabelValue(v)
	}
	return out
}
