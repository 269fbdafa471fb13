package backtest

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/report"
)

// Reporters are backtest's output formats, in the order --format lists them; each reporter is
// a file of its own (report_<format>.go), json the shared one.
var Reporters = report.Registry[*Result]{textReporter{}, markdownReporter{}, report.JSON[*Result]{}}

// sideBySide writes values of each side, with the change from the first to the last when
// there are two.
func sideBySide[T any](values []T, format func(T) string, delta string) string {
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = format(v)
	}
	s := strings.Join(parts, " → ")
	if len(values) > 1 && delta != "" {
		s += " (" + delta + ")"
	}
	return s
}

// signed writes a change with its sign, to two decimals or as a count.
func signed(d float64, count bool) string {
	switch {
	case d == 0:
		return "±0"
	case count:
		return fmt.Sprintf("%+d", int(d))
	}
	return fmt.Sprintf("%+.2f", d)
}

// duration writes a time firing in hours and minutes.
func duration(d time.Duration) string {
	m := int(d.Round(time.Minute).Minutes())
	if m < 60 {
		return fmt.Sprintf("%dm", m)
	}
	return fmt.Sprintf("%dh%02dm", m/60, m%60)
}

// tier is the alert's tier, or its tier on each side where a change moved it (ticket → page);
// a side where it did not fire says nothing of its tier.
func (a AlertRow) tier() string {
	var tiers []string
	for _, s := range a.Sides {
		if s.Severity != "" && !slices.Contains(tiers, model.Severity(s.Severity).Tier()) {
			tiers = append(tiers, model.Severity(s.Severity).Tier())
		}
	}
	return strings.Join(tiers, " → ")
}

// table is what the text and Markdown reports show: the heading, the pages and tickets per
// day of each side, and a row per alert under a header row.
type table struct {
	head, pages, tickets string
	rows                 [][]string
}

// newTable lays a result out, writing names from rule files and data with cell, and alert
// names with name.
func newTable(r *Result, cell, name func(string) string) table {
	head := fmt.Sprintf("backtest of %s over %s from %s to %s (%.1f days, every %s)", cell(strings.Join(r.Sides, " and ")), cell(r.Data), stamp(r.From), stamp(r.To), r.days, r.Step)
	last := len(r.Totals) - 1
	pages := sideBySide(r.Totals, func(t Totals) string { return fmt.Sprintf("%.2f", t.PagesPerDay) }, signed(r.Totals[last].PagesPerDay-r.Totals[0].PagesPerDay, false))
	tickets := sideBySide(r.Totals, func(t Totals) string { return fmt.Sprintf("%.2f", t.TicketsPerDay) }, signed(r.Totals[last].TicketsPerDay-r.Totals[0].TicketsPerDay, false))
	rows := [][]string{{"alert", "tier", "episodes", "time firing", "top targets (" + cell(r.Sides[last]) + ")"}}
	for _, a := range r.Alerts {
		episodes := sideBySide(a.Sides, func(s Stats) string { return fmt.Sprint(s.Episodes) }, signed(float64(a.Sides[last].Episodes-a.Sides[0].Episodes), true))
		firing := sideBySide(a.Sides, func(s Stats) string { return duration(time.Duration(s.Firing)) }, "")
		var top []string
		for _, t := range a.Sides[last].Top {
			top = append(top, fmt.Sprintf("%s %s", cell(t.Labels), duration(time.Duration(t.Firing))))
		}
		rows = append(rows, []string{name(a.Alert), a.tier(), episodes, firing, strings.Join(top, "; ")})
	}
	return table{head: head, pages: pages, tickets: tickets, rows: rows}
}

// writeMissing writes the metrics the data holds no samples of, with the alerts reading them,
// names written with cell.
func writeMissing(b *strings.Builder, r *Result, cell func(string) string) {
	for _, m := range r.Missing {
		fmt.Fprintf(b, "\nno samples of %s (read by %s)", cell(m.Metric), cell(strings.Join(m.Alerts, ", ")))
	}
	if len(r.Missing) > 0 {
		b.WriteString("\n")
	}
}
