package semdiff

import (
	"fmt"
	"io"
	"strings"

	"github.com/gpuobs/gpuobs/internal/escape"
	"github.com/gpuobs/gpuobs/internal/output"
)

// markdownReporter writes the report as a pull-request comment, fitted to GitHub's limit with
// every entry kept.
type markdownReporter struct{}

func (markdownReporter) Format() string { return "markdown" }

func (markdownReporter) Write(w io.Writer, r *Report) error {
	_, err := io.WriteString(w, escape.FitComment(func(cut func(string) string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "### gpuobs diff: %s → %s\n\n", escape.Code(cut(r.Base)), escape.Code(cut(r.Head)))
		if r.Empty() {
			b.WriteString("No change in alerts, recording rules, dashboard panels, counter fields, receivers or other generated files.\n")
			return b.String()
		}
		b.WriteString("| | changed | added | removed |\n|---|---:|---:|---:|\n")
		for _, row := range summaryRows(r) {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", row[0], row[1], row[2], row[3])
		}
		for _, section := range []func(*strings.Builder, *Report, func(string) string){markdownRouting, markdownAlerts, markdownRecords, markdownOthers} {
			section(&b, r, cut)
		}
		return b.String()
	}))
	return err
}

// markdownRouting writes the alerts whose routing changed and the receivers whose
// integrations changed.
func markdownRouting(b *strings.Builder, r *Report, cut func(string) string) {
	if n := r.RoutingChanges(); n > 0 {
		fmt.Fprintf(b, "\n**Routing changes for %d alerts** (receivers and silencing alerts computed by Alertmanager's routing and inhibition code):\n\n", n)
		for _, c := range r.Alerts {
			if c.RoutingChanged {
				fmt.Fprintf(b, "- alert %s (%s): %s → %s\n", escape.Code(cut(c.Name)), tierOf(c), escape.Markdown(cut(routing(c.Base))), escape.Markdown(cut(routing(c.Head))))
			}
		}
	}
	if len(r.Receivers) > 0 {
		fmt.Fprintf(b, "\n**Receivers whose integrations changed: %d**\n\n", len(r.Receivers))
		for _, c := range r.Receivers {
			fmt.Fprintf(b, "- %s receiver %s\n", c.Change, escape.Code(cut(c.Name)))
			for _, f := range c.Fields {
				fmt.Fprintf(b, "  - %s: %s → %s\n", escape.Code(cut(f.Field)), escape.Markdown(cut(orAbsent(f.Base))), escape.Markdown(cut(orAbsent(f.Head))))
			}
		}
	}
	for _, side := range r.Unrouted {
		fmt.Fprintf(b, "\n%s has no `%s`: receivers and silencers unknown there.\n", escape.Code(cut(side)), output.AlertmanagerConfig)
	}
}

// markdownAlerts writes each changed alert in full.
func markdownAlerts(b *strings.Builder, r *Report, cut func(string) string) {
	if len(r.Alerts) > 0 {
		fmt.Fprintf(b, "\n<details><summary>Alerts (%d)</summary>\n\n", len(r.Alerts))
		for _, c := range r.Alerts {
			fmt.Fprintf(b, "#### %s %s (%s)\n\n", c.Change, escape.Code(cut(c.Name)), tierOf(c))
			for _, f := range c.Fields {
				body := prefixLines("- ", cut(f.Base)) + "\n" + prefixLines("+ ", cut(f.Head))
				fence := escape.Fence(body)
				fmt.Fprintf(b, "%s:\n%sdiff\n%s\n%s\n", escape.Code(cut(f.Field)), fence, body, fence)
			}
			fmt.Fprintf(b, "Routing: %s → %s\n\n", escape.Markdown(cut(routing(c.Base))), escape.Markdown(cut(routing(c.Head))))
		}
		b.WriteString("</details>\n")
	}
}

// markdownRecords writes each changed recording rule in full.
func markdownRecords(b *strings.Builder, r *Report, cut func(string) string) {
	if len(r.Records) > 0 {
		fmt.Fprintf(b, "\n<details><summary>Recording rules (%d)</summary>\n\n", len(r.Records))
		for _, c := range r.Records {
			var body strings.Builder
			if c.Base != "" {
				body.WriteString(prefixLines("- ", cut(c.Base)) + "\n")
			}
			if c.Head != "" {
				body.WriteString(prefixLines("+ ", cut(c.Head)) + "\n")
			}
			fence := escape.Fence(body.String())
			fmt.Fprintf(b, "#### %s %s\n\n%sdiff\n%s%s\n", c.Change, escape.Code(cut(c.Name)), fence, body.String(), fence)
			if len(c.ReadBy) > 0 {
				fmt.Fprintf(b, "Read by: %s\n", escape.Markdown(cut(strings.Join(c.ReadBy, "; "))))
			}
			b.WriteString("\n")
		}
		b.WriteString("</details>\n")
	}
}

// markdownOthers writes the changed panels, counter fields and other generated files.
func markdownOthers(b *strings.Builder, r *Report, cut func(string) string) {
	if len(r.Panels) > 0 {
		fmt.Fprintf(b, "\n<details><summary>Dashboard panels (%d)</summary>\n\n", len(r.Panels))
		for _, c := range r.Panels {
			fmt.Fprintf(b, "- %s %s › %s\n", c.Change, escape.Code(cut(c.Dashboard)), escape.Markdown(cut(c.Title)))
			for _, q := range c.Removed {
				fmt.Fprintf(b, "  - removed query %s\n", escape.Code(cut(q)))
			}
			for _, q := range c.Added {
				fmt.Fprintf(b, "  - added query %s\n", escape.Code(cut(q)))
			}
		}
		b.WriteString("\n</details>\n")
	}
	if len(r.Counters) > 0 {
		fmt.Fprintf(b, "\n<details><summary>Counter fields (%d)</summary>\n\n", len(r.Counters))
		for _, c := range r.Counters {
			fmt.Fprintf(b, "- %s %s %s\n", c.Change, escape.Code(cut(c.Field)), escape.Markdown(cut(strings.TrimSpace(c.Base+" → "+c.Head))))
		}
		b.WriteString("\n</details>\n")
	}
	if len(r.Files) > 0 {
		fmt.Fprintf(b, "\n<details><summary>Other generated files (%d)</summary>\n\n", len(r.Files))
		for _, c := range r.Files {
			fmt.Fprintf(b, "- %s %s%s\n", c.Change, escape.Code(cut(c.Path)), fileNote(c))
		}
		b.WriteString("\n</details>\n")
	}
}

// prefixLines prefixes every line of s.
func prefixLines(prefix, s string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
