// Package catalogdoc generates docs/catalog.md, the reference of the catalog in use: every
// DCGM field with its unit, types, whether the exporter collects it and what reads it, then
// the alerts, SLOs and other metrics.
package catalogdoc

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuobs/gpuobs/generators/rules"
	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/promql"
)

// Dir is the directory the page lives in; only files with the gpuobs header there are
// gpuobs' (the check pages next to it are hand-written).
const Dir = "docs"

// File is the generated page.
const File = Dir + "/catalog.md"

// Generate renders docs/catalog.md.
func Generate(m *model.Model) ([]emit.File, error) {
	users, err := Users(m)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	line("# The gpuobs catalog")
	line("")
	line("Generated from the catalog (`gpuobs generate` writes it with the rest); change the catalog, not this page.")
	line("")
	line("## DCGM fields")
	line("")
	line("*Default*: in dcgm-exporter's default counter set. *Collected*: default or in `exporter.extraCounters`. *Used by*: the recording rules, alerts and dashboard levels that read it directly (alerts on a recording rule are listed with the rule).")
	line("")
	line("| field | id | unit | declared type | kind | entity | default | collected | used by |")
	line("|---|---|---|---|---|---|---|---|---|")
	for _, name := range model.SortedKeys(m.Fields) {
		f := m.Fields[name]
		line("| `%s` | %d | %s | %s | %s | %s | %s | %s | %s |", name, f.ID, f.Unit, f.Type, f.Kind, f.Entity, yes(f.Default), yes(m.Collected(name)), strings.Join(users[name], ", "))
	}
	line("")
	line("## Alerts")
	line("")
	line("| alert | severity | team | family | for | summary |")
	line("|---|---|---|---|---|---|")
	for _, name := range model.SortedKeys(m.Alerts) {
		a := m.Alerts[name]
		line("| [`%s`](../runbooks/%s.md) | %s | %s | %s | %s | %s |", name, name, a.Severity, a.Team, a.Family, orDash(a.For), a.Summary)
	}
	line("")
	line("## SLOs")
	line("")
	line("| SLO | objective | period | team | kept per | description |")
	line("|---|---|---|---|---|---|")
	for _, name := range model.SortedKeys(m.SLOs) {
		s := m.SLOs[name]
		line("| %s | %g | %s | %s | %s | %s |", name, s.Objective, s.Period, s.Team, strings.Join(s.By, ", "), s.Description)
	}
	line("")
	line("## Other metrics")
	line("")
	line("| metric | type | labels | used by |")
	line("|---|---|---|---|")
	for _, name := range model.SortedKeys(m.Metrics) {
		mt := m.Metrics[name]
		line("| `%s` | %s | %s | %s |", name, mt.Type, strings.Join(mt.Labels, ", "), strings.Join(users[name], ", "))
	}
	return []emit.File{emit.Markdown(File, []byte(b.String()))}, nil
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return ""
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// Users maps every metric to what reads it directly: recording rules by name, alerts by name,
// dashboards by level, sorted in that order.
func Users(m *model.Model) (map[string][]string, error) {
	set, err := rules.Build(m)
	if err != nil {
		return nil, err
	}
	reads := func(expr string) []string {
		names, _ := promql.MetricNames(expr)
		return names
	}
	users := map[string][]string{}
	add := func(metric, user string) {
		if !slices.Contains(users[metric], user) {
			users[metric] = append(users[metric], user)
		}
	}
	for _, r := range set.Recorded {
		for _, n := range reads(r.Expr) {
			add(n, "`"+r.Name+"`")
		}
	}
	for _, name := range model.SortedKeys(m.Alerts) {
		for _, n := range reads(m.Alerts[name].Expr) {
			add(n, name)
		}
	}
	for _, level := range model.SortedKeys(m.Dashboards) {
		for _, expr := range DashboardExprs(m.Dashboards[level]) {
			for _, n := range reads(grafanaFilled(expr)) {
				add(n, level)
			}
		}
	}
	for k := range users {
		slices.SortStableFunc(users[k], func(a, b string) int { return rank(a) - rank(b) })
	}
	return users, nil
}

// rank orders users: recording rules, alerts, dashboards.
func rank(user string) int {
	switch {
	case strings.HasPrefix(user, "`"):
		return 0
	case len(user) == 2 && user[0] == 'L':
		return 2
	}
	return 1
}

// DashboardExprs lists a dashboard's PromQL: panel queries, annotations, and the selectors
// of its label_values variables.
func DashboardExprs(d model.Dashboard) []string {
	var out []string
	for _, r := range d.Rows {
		for _, p := range r.Panels {
			for _, q := range p.Queries {
				out = append(out, q.Expr)
			}
		}
	}
	for _, a := range d.Annotations {
		out = append(out, a.Expr)
	}
	for _, v := range d.Variables {
		if inner, ok := strings.CutPrefix(v.Query, "label_values("); ok {
			if i := strings.LastIndex(inner, ","); i > 0 {
				out = append(out, inner[:i])
			}
		}
	}
	return out
}

// grafanaFilled replaces Grafana's variables so that the expression parses.
func grafanaFilled(expr string) string {
	return strings.NewReplacer("$__rate_interval", "5m").Replace(expr)
}
