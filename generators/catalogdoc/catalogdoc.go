// Package catalogdoc generates docs/catalog.md, the reference of the catalog in use: every
// DCGM field with its unit, types, whether the exporter collects it and what reads it, then
// the alerts, SLOs, recording rules (and which engine made each) and other metrics.
package catalogdoc

import (
	"fmt"
	"strings"

	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/escape"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/plan"
)

// Generate renders docs/catalog.md.
func Generate(p *plan.Plan) ([]emit.File, error) {
	m, users := p.Model, p.Usage.Users
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
		line("| [`%s`](../runbooks/%s.md) | %s | %s | %s | %s | %s |", name, name, a.Severity, escape.Cell(a.Team), a.Family, orDash(a.For), escape.Cell(a.Summary))
	}
	line("")
	line("## SLOs")
	line("")
	line("| SLO | objective | period | team | kept per | description |")
	line("|---|---|---|---|---|---|")
	for _, name := range model.SortedKeys(m.SLOs) {
		s := m.SLOs[name]
		line("| %s | %g | %s | %s | %s | %s |", name, s.Objective, s.Period, escape.Cell(s.Team), strings.Join(s.By, ", "), escape.Cell(s.Description))
	}
	line("")
	line("## Serving engines")
	line("")
	line("The engines' profiles (`inference.profiles`); *served*: listed in `inference.engines`. The latency SLOs read each served engine that has the quantity, the request-error SLO each that counts its requests (refusals at admission left out, where the engine tells them apart: `GPUInferenceRequestsShed` tickets those); the queue and KV-cache alerts each that shows its queue, or its KV cache and preemptions; an engine without a metric is left out of the rules on it. The throughput alert and record, goodput, the latency breakdown and the release gate read each that shows what they read; the metric-missing check reads vLLM's own metrics: it is in the section `vllm`, on where vLLM is served. *Feeds*: the SLOs and alerts that read a served engine.")
	line("")
	line("| engine | served | model label | metrics endpoint | metrics on | time to first token | inter-token latency | end-to-end latency | requests | refusals at admission | feeds |")
	line("|---|---|---|---|---|---|---|---|---|---|---|")
	for _, name := range model.SortedKeys(m.Engines) {
		e := m.Engines[name]
		line("| %s (`%s`) | %s | `%s` | %s | %s | %s | %s | %s | %s | %s | %s |", escape.Cell(e.Title), name, yes(e.Served), e.ModelLabel, escape.Cell(e.Endpoint), escape.Cell(e.Enable),
			metricOrNone(e.Metrics["timeToFirstToken"]), metricOrNone(e.Metrics["interTokenLatency"]), metricOrNone(e.Metrics["requestLatency"]),
			codeOr(e.Requests, "none"), codeOr(e.Refusals, "counted as failures"), strings.Join(e.Feeds, ", "))
	}
	line("")
	line("## Recording rules")
	line("")
	line("*Derived*: written by gpuobs from the fields' semantics (each signal's rollups, the GPU inventory, retention tiers). *Declared*: the catalog's `records`, for what needs the catalog's own knowledge (joins with other metrics, thresholds, SLIs, cost). A declared record that repeats a derived one is refused.")
	line("")
	line("| record | labels | family | made by |")
	line("|---|---|---|---|")
	for _, r := range p.Recorded {
		line("| `%s` | %s | %s | %s |", r.Name, escape.Cell(labelText(r.Labels)), r.Family, madeBy(r))
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
	return []emit.File{emit.Markdown(output.CatalogDoc, []byte(b.String()))}, nil
}

// codeOr lists names as code, or says `none` where there are none.
func codeOr(names []string, none string) string {
	if len(names) == 0 {
		return none
	}
	return escape.Cell("`" + strings.Join(names, "`, `") + "`")
}

// metricOrNone is a metric name as code, or "none" for a quantity the engine cannot show.
func metricOrNone(name string) string {
	if name == "" {
		return "none"
	}
	return "`" + name + "`"
}

// madeBy says which engine wrote a recording rule, and from what.
func madeBy(r plan.Recorded) string {
	switch {
	case r.FromCatalog:
		return "declared"
	case r.TierOf != "":
		return fmt.Sprintf("derived: a retention tier of `%s`", r.TierOf)
	case r.Signal != nil:
		return fmt.Sprintf("derived from `%s` (%s)", r.Signal.Field, r.Op)
	}
	return "derived: the GPU inventory"
}

// labelText is a rule's static labels as a selector's matchers, or "".
func labelText(labels map[string]string) string {
	var pairs []string
	for _, k := range model.SortedKeys(labels) {
		pairs = append(pairs, fmt.Sprintf("%s=%q", k, labels[k]))
	}
	return strings.Join(pairs, ", ")
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
