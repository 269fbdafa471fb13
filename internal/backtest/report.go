package backtest

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gpuobs/gpuobs/internal/escape"
	"github.com/gpuobs/gpuobs/internal/model"
)

// Formats are the output formats of Write.
var Formats = []string{"text", "markdown", "json"}

// Write writes a result in a format of Formats.
func Write(w io.Writer, format string, r *Result) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case "markdown":
		return writeTable(w, r, true)
	case "text":
		return writeTable(w, r, false)
	}
	return fmt.Errorf("unknown format %q: use one of %s", format, strings.Join(Formats, ", "))
}

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

func writeTable(w io.Writer, r *Result, markdown bool) error {
	var b strings.Builder
	// Names come from rule files and data: each stays on its line, and in Markdown is text.
	cell := escape.Line
	if markdown {
		cell = escape.Markdown
	}
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
		name := escape.Leading(a.Alert)
		if markdown {
			name = escape.Markdown(a.Alert)
		}
		rows = append(rows, []string{name, a.tier(), episodes, firing, strings.Join(top, "; ")})
	}
	if markdown {
		fmt.Fprintf(&b, "### gpuobs backtest\n\n%s.\n\n**Pages per day: %s. Tickets per day: %s.**\n\n", head, pages, tickets)
		for i, row := range rows {
			fmt.Fprintf(&b, "| %s |\n", strings.Join(row, " | "))
			if i == 0 {
				b.WriteString("|---|---|---:|---:|---|\n")
			}
		}
		if len(r.Alerts) == 0 {
			b.WriteString("\nNo alert fired on either side.\n")
		}
	} else {
		fmt.Fprintf(&b, "%s\npages per day: %s\ntickets per day: %s\n\n", head, pages, tickets)
		tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		for _, row := range rows {
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if len(r.Alerts) == 0 {
			b.WriteString("no alert fired on either side\n")
		}
	}
	for _, m := range r.Missing {
		fmt.Fprintf(&b, "\nno samples of %s (read by %s)", cell(m.Metric), cell(strings.Join(m.Alerts, ", ")))
	}
	if len(r.Missing) > 0 {
		b.WriteString("\n")
	}
	report := b.String()
	if markdown {
		report = escape.Comment(report)
	}
	_, err := io.WriteString(w, report)
	return err
}
