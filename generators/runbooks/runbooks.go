// Package runbooks generates one Markdown runbook per alert: what it means, its impact,
// first-look PromQL, a diagnosis flowchart, mitigation, escalation and dashboard links.
package runbooks

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/escape"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/plan"
)

// Generate renders every alert's runbook page.
func Generate(p *plan.Plan) ([]emit.File, error) {
	var files []emit.File
	blind := p.BlindOnDefaultSet()
	for _, name := range model.SortedKeys(p.Alerts) {
		files = append(files, emit.Markdown(output.Runbook(name), page(p, name, blind)))
	}
	return files, nil
}

// tiers explains what each severity does.
var tiers = map[model.Severity]string{
	model.SeverityCritical: "critical: pages the on-call",
	model.SeverityWarning:  "warning: opens a ticket",
	model.SeverityInfo:     "info: shown on dashboards, no notification",
}

// page renders one alert's runbook; blind lists, by alert, the fields outside the exporter's
// default counter set without which each alert never fires.
func page(p *plan.Plan, name string, blind map[string][]string) []byte {
	m := p.Model
	a := m.Alerts[name]
	rb := a.Runbook
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }

	line("# %s", name)
	line("")
	line("%s", escape.Prose(a.Summary))
	line("")
	line("| | |")
	line("|---|---|")
	line("| Tier | %s |", tiers[a.Severity])
	line("| Team | %s |", escape.Cell(a.Team))
	line("| Fires after | %s |", orDefault(a.For, "the first evaluation"))
	if a.KeepFiringFor != "" {
		line("| Keeps firing | %s after its condition clears (keep_firing_for): a repeat within it is the same alert, not a new notification |", a.KeepFiringFor)
	}
	line("| Labels | %s |", code(append(slices.Clone(a.Identity), model.SortedKeys(p.Alerts[name].Labels)...)))
	stock := m.Exporter.StockCounterSetAlert
	if fields := blind[name]; len(fields) > 0 {
		deploy := "deploy " + output.Counters
		if stock != "" {
			deploy += " (" + stock + " tickets a cluster without it)"
		}
		line("| Needs the counter file | %s: outside dcgm-exporter's default counter set; %s |", code(fields), deploy)
	}
	line("")
	section(&b, "What it means", rb.Meaning)
	section(&b, "Impact", rb.Impact)
	if len(rb.Notes) > 0 {
		line("## Details")
		line("")
		for _, n := range rb.Notes {
			line("- %s", escape.Prose(n))
		}
		line("")
	}
	if name == stock {
		blindSet(&b, p, blind)
	}
	line("## First look")
	line("")
	line("Copy into Prometheus or Grafana Explore; replace each `$label` with the value of that label on the alert.")
	if m.Topology.ClusterExternal {
		line("The series carry no `%s` label (each cluster's Prometheus names it as an external label): run these in the Prometheus of the alert's cluster.", m.Labels.Cluster)
	}
	line("")
	for _, q := range rb.Queries {
		line("%s:", escape.Prose(q.Title))
		line("")
		line("```promql")
		line("%s", withoutCluster(m, q.Expr))
		line("```")
		line("")
	}
	if len(rb.Diagnosis) > 0 {
		line("## Diagnosis")
		line("")
		line("```mermaid")
		b.WriteString(flowchart(rb.Diagnosis, rb.Escalation))
		line("```")
		line("")
	}
	line("## Mitigation")
	line("")
	for i, step := range rb.Mitigation {
		line("%d. %s", i+1, escape.Prose(step))
	}
	line("")
	section(&b, "Escalation", rb.Escalation)
	if len(rb.Dashboards) > 0 {
		line("## Dashboards")
		line("")
		for _, level := range rb.Dashboards {
			d := m.Dashboards[level]
			line("- [%s %s](%s)", level, escape.Prose(d.Title), dashboardLink(m, d))
		}
		line("")
	}
	line("## The rule")
	line("")
	line("```promql")
	line("%s", p.Alerts[name].Pretty)
	line("```")
	line("")
	line("Generated from the gpuobs catalog: change the alert or this page there, not here.")
	return []byte(b.String())
}

// blindSet lists the alerts the exporter's default counter set leaves blind, with their tier and
// the fields each needs.
func blindSet(b *strings.Builder, p *plan.Plan, blind map[string][]string) {
	b.WriteString("## Blind on the default counter set\n\n")
	if len(blind) == 0 {
		b.WriteString("Every alert of the catalog can fire on the default counter set.\n\n")
		return
	}
	b.WriteString("These alerts can never fire while the exporter runs its default counter set:\n\n| Alert | Tier | Needs |\n|---|---|---|\n")
	for _, name := range model.SortedKeys(blind) {
		fmt.Fprintf(b, "| [%s](%s.md) | %s | %s |\n", name, name, tiers[p.Model.Alerts[name].Severity], code(blind[name]))
	}
	b.WriteString("\n")
}

func section(b *strings.Builder, title, text string) {
	if text != "" {
		fmt.Fprintf(b, "## %s\n\n%s\n\n", title, escape.Prose(text))
	}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func code(items []string) string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = "`" + s + "`"
	}
	return strings.Join(out, ", ")
}

// dashboardLink opens a dashboard with its variables set from the alert's labels.
func dashboardLink(m *model.Model, d model.Dashboard) string {
	var params []string
	for _, v := range model.SortedKeys(d.Vars) {
		params = append(params, "var-"+v+"=$"+d.Vars[v])
	}
	link := strings.TrimSuffix(m.Runbooks.GrafanaURL, "/") + "/d/" + d.UID
	if len(params) > 0 {
		link += "?" + strings.Join(params, "&")
	}
	return link
}

// flowchart draws the diagnosis steps as a Mermaid decision chain: an answer that has an
// action ends there; an answer without one goes on to the next check, or after the last check
// escalates. (Validation keeps every check reachable: only the last may end both ways.)
func flowchart(steps []model.Step, escalation string) string {
	var b strings.Builder
	b.WriteString("flowchart TD\n")
	b.WriteString("  start([Alert fires]) --> s0\n")
	escalated := false
	for i, s := range steps {
		fmt.Fprintf(&b, "  s%d{\"%s\"}\n", i, label(s.Check))
		for _, branch := range []struct{ answer, action, node string }{{"yes", s.Yes, "y"}, {"no", s.No, "n"}} {
			switch {
			case branch.action != "":
				fmt.Fprintf(&b, "  s%d -- %s --> %s%d[\"%s\"]\n", i, branch.answer, branch.node, i, label(branch.action))
			case i+1 < len(steps):
				fmt.Fprintf(&b, "  s%d -- %s --> s%d\n", i, branch.answer, i+1)
			case escalated:
				fmt.Fprintf(&b, "  s%d -- %s --> escalate\n", i, branch.answer)
			default:
				fmt.Fprintf(&b, "  s%d -- %s --> escalate[\"%s\"]\n", i, branch.answer, label("Escalate: "+escalation))
				escalated = true
			}
		}
	}
	return b.String()
}

// label escapes text for a quoted Mermaid node label.
var label = strings.NewReplacer(`"`, "#quot;", "`", "", "<", "#lt;", ">", "#gt;").Replace

// withoutCluster drops the cluster's matchers (cluster="$cluster") from a runbook query where
// each cluster's Prometheus names its cluster only as an external label: the query runs in
// that Prometheus, whose series carry no cluster, so the matcher would select nothing.
func withoutCluster(m *model.Model, expr string) string {
	if !m.Topology.ClusterExternal {
		return expr
	}
	c := regexp.QuoteMeta(m.Labels.Cluster)
	matcher := c + `="\$` + c + `"`
	out := regexp.MustCompile(`\{\s*`+matcher+`\s*\}`).ReplaceAllString(expr, "")
	return regexp.MustCompile(`,\s*`+matcher+`|`+matcher+`\s*,\s*`).ReplaceAllString(out, "")
}
