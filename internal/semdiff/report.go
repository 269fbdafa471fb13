package semdiff

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gpuobs/gpuobs/internal/escape"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/output"
)

// Formats are the output formats of Write.
var Formats = []string{"text", "markdown", "json"}

// Write writes a report in a format of Formats.
func Write(w io.Writer, format string, r *Report) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case "markdown":
		return writeMarkdown(w, r)
	case "text":
		return writeText(w, r)
	}
	return fmt.Errorf("unknown format %q: use one of %s", format, strings.Join(Formats, ", "))
}

// counts is how many changes of each kind a list holds.
func counts[T any](list []T, kind func(T) string) (changed, added, removed int) {
	for _, c := range list {
		switch kind(c) {
		case Changed:
			changed++
		case Added:
			added++
		case Removed:
			removed++
		}
	}
	return changed, added, removed
}

// summaryRows are the summary's rows: what, changed, added, removed.
func summaryRows(r *Report) [][4]string {
	row := func(what string, c, a, d int) [4]string {
		return [4]string{what, fmt.Sprint(c), fmt.Sprint(a), fmt.Sprint(d)}
	}
	ac, aa, ar := counts(r.Alerts, func(c AlertChange) string { return c.Change })
	rc, ra, rr := counts(r.Records, func(c RecordChange) string { return c.Change })
	pc, pa, pr := counts(r.Panels, func(c PanelChange) string { return c.Change })
	cc, ca, cr := counts(r.Counters, func(c CounterChange) string { return c.Change })
	nc, na, nr := counts(r.Receivers, func(c ReceiverChange) string { return c.Change })
	fc, fa, fr := counts(r.Files, func(c FileChange) string { return c.Change })
	return [][4]string{
		row("alerts", ac, aa, ar),
		row("recording rules", rc, ra, rr),
		row("dashboard panels", pc, pa, pr),
		row("counter fields", cc, ca, cr),
		row("receivers", nc, na, nr),
		row("other generated files", fc, fa, fr),
	}
}

// tierOf is the tier of an alert change, from its head side (base when removed).
func tierOf(c AlertChange) string {
	a := c.Head
	if a == nil {
		a = c.Base
	}
	return model.Severity(a.Labels["severity"]).Tier()
}

// routing describes where an alert goes on one side.
func routing(a *Alert) string {
	if a == nil {
		return "absent"
	}
	s := "to " + orNone(a.Receivers)
	if len(a.SilencedBy) > 0 {
		s += ", silenced by " + strings.Join(lines(a.SilencedBy), ", ")
	} else {
		s += ", silenced by no alert"
	}
	return s
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "no receiver"
	}
	return strings.Join(lines(list), ", ")
}

// lines puts each name on one line (escape.Line).
func lines(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = escape.Line(n)
	}
	return out
}

var sign = map[string]string{Added: "+", Removed: "-", Changed: "~"}

func writeText(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "gpuobs diff %s → %s\n", escape.Line(r.Base), escape.Line(r.Head))
	if r.Empty() {
		b.WriteString("no change in alerts, recording rules, dashboard panels, counter fields, receivers or other generated files\n")
	}
	for _, row := range summaryRows(r) {
		fmt.Fprintf(&b, "%s: %s changed, %s added, %s removed\n", row[0], row[1], row[2], row[3])
	}
	fmt.Fprintf(&b, "routing changed for %d alerts\n", r.RoutingChanges())
	for _, side := range r.Unrouted {
		fmt.Fprintf(&b, "%s has no %s: receivers and silencers unknown there\n", escape.Line(side), output.AlertmanagerConfig)
	}
	for _, c := range r.Alerts {
		fmt.Fprintf(&b, "\n%s alert %s (%s)\n", sign[c.Change], escape.Line(c.Name), tierOf(c))
		for _, f := range c.Fields {
			if oneLine(f.Base) && oneLine(f.Head) {
				fmt.Fprintf(&b, "    %s: %s → %s\n", escape.Leading(f.Field), escape.Line(orAbsent(f.Base)), escape.Line(orAbsent(f.Head)))
				continue
			}
			fmt.Fprintf(&b, "    %s:\n      - %s\n      + %s\n", escape.Leading(f.Field), escape.Lines(f.Base, "      - "), escape.Lines(f.Head, "      + "))
		}
		if c.RoutingChanged {
			fmt.Fprintf(&b, "    routing: %s\n          → %s\n", routing(c.Base), routing(c.Head))
		} else if c.Head != nil {
			fmt.Fprintf(&b, "    routing unchanged: %s\n", routing(c.Head))
		}
	}
	for _, c := range r.Records {
		fmt.Fprintf(&b, "\n%s record %s\n", sign[c.Change], escape.Line(c.Name))
		if c.Base != "" {
			fmt.Fprintf(&b, "      - %s\n", escape.Lines(c.Base, "      - "))
		}
		if c.Head != "" {
			fmt.Fprintf(&b, "      + %s\n", escape.Lines(c.Head, "      + "))
		}
		if len(c.ReadBy) > 0 {
			fmt.Fprintf(&b, "    read by: %s\n", strings.Join(lines(c.ReadBy), "; "))
		}
	}
	for _, c := range r.Panels {
		fmt.Fprintf(&b, "\n%s panel %s › %s\n", sign[c.Change], escape.Line(c.Dashboard), escape.Line(c.Title))
		for _, q := range c.Removed {
			fmt.Fprintf(&b, "      - %s\n", escape.Lines(q, "      - "))
		}
		for _, q := range c.Added {
			fmt.Fprintf(&b, "      + %s\n", escape.Lines(q, "      + "))
		}
	}
	for _, c := range r.Counters {
		fmt.Fprintf(&b, "\n%s counter field %s %s\n", sign[c.Change], escape.Line(c.Field), escape.Line(strings.TrimSpace(c.Base+" → "+c.Head)))
	}
	for _, c := range r.Receivers {
		fmt.Fprintf(&b, "\n%s receiver %s\n", sign[c.Change], escape.Line(c.Name))
		for _, f := range c.Fields {
			fmt.Fprintf(&b, "    %s: %s → %s\n", escape.Leading(f.Field), escape.Line(orAbsent(f.Base)), escape.Line(orAbsent(f.Head)))
		}
	}
	if len(r.Files) > 0 {
		b.WriteString("\n")
	}
	for _, c := range r.Files {
		fmt.Fprintf(&b, "%s %s%s\n", sign[c.Change], escape.Line(c.Path), fileNote(c))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// fileNote says where a changed dashboard's change lies: its panels' queries are compared
// apart.
func fileNote(c FileChange) string {
	if c.Change == Changed && strings.HasSuffix(c.Path, ".json") {
		return " (outside its panels' queries: thresholds, units, text)"
	}
	return ""
}

// oneLine reports whether a value fits on the line of its field name.
func oneLine(s string) bool { return len(s) <= 40 && !strings.Contains(s, "\n") }

// orAbsent shows an empty value as absent.
func orAbsent(s string) string {
	if s == "" {
		return "(absent)"
	}
	return strconv.Quote(s)
}

// writeMarkdown writes the report as a pull-request comment, cut to GitHub's limit.
func writeMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### gpuobs diff: %s → %s\n\n", escape.Code(r.Base), escape.Code(r.Head))
	if r.Empty() {
		b.WriteString("No change in alerts, recording rules, dashboard panels, counter fields, receivers or other generated files.\n")
	} else {
		b.WriteString("| | changed | added | removed |\n|---|---:|---:|---:|\n")
		for _, row := range summaryRows(r) {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", row[0], row[1], row[2], row[3])
		}
		for _, section := range []func(*strings.Builder, *Report){markdownRouting, markdownAlerts, markdownRecords, markdownOthers} {
			section(&b, r)
		}
	}
	_, err := io.WriteString(w, escape.Comment(b.String()))
	return err
}

// markdownRouting writes the alerts whose routing changed and the receivers whose
// integrations changed.
func markdownRouting(b *strings.Builder, r *Report) {
	if n := r.RoutingChanges(); n > 0 {
		fmt.Fprintf(b, "\n**Routing changes for %d alerts** (receivers and silencing alerts computed by Alertmanager's routing and inhibition code):\n\n", n)
		for _, c := range r.Alerts {
			if c.RoutingChanged {
				fmt.Fprintf(b, "- alert %s (%s): %s → %s\n", escape.Code(c.Name), tierOf(c), escape.Markdown(routing(c.Base)), escape.Markdown(routing(c.Head)))
			}
		}
	}
	if len(r.Receivers) > 0 {
		fmt.Fprintf(b, "\n**Receivers whose integrations changed: %d**\n\n", len(r.Receivers))
		for _, c := range r.Receivers {
			fmt.Fprintf(b, "- %s receiver %s\n", c.Change, escape.Code(c.Name))
			for _, f := range c.Fields {
				fmt.Fprintf(b, "  - %s: %s → %s\n", escape.Code(f.Field), escape.Markdown(orAbsent(f.Base)), escape.Markdown(orAbsent(f.Head)))
			}
		}
	}
	for _, side := range r.Unrouted {
		fmt.Fprintf(b, "\n%s has no `%s`: receivers and silencers unknown there.\n", escape.Code(side), output.AlertmanagerConfig)
	}
}

// markdownAlerts writes each changed alert in full.
func markdownAlerts(b *strings.Builder, r *Report) {
	if len(r.Alerts) > 0 {
		fmt.Fprintf(b, "\n<details><summary>Alerts (%d)</summary>\n\n", len(r.Alerts))
		for _, c := range r.Alerts {
			fmt.Fprintf(b, "#### %s %s (%s)\n\n", c.Change, escape.Code(c.Name), tierOf(c))
			for _, f := range c.Fields {
				body := prefixLines("- ", f.Base) + "\n" + prefixLines("+ ", f.Head)
				fence := escape.Fence(body)
				fmt.Fprintf(b, "%s:\n%sdiff\n%s\n%s\n", escape.Code(f.Field), fence, body, fence)
			}
			fmt.Fprintf(b, "Routing: %s → %s\n\n", escape.Markdown(routing(c.Base)), escape.Markdown(routing(c.Head)))
		}
		b.WriteString("</details>\n")
	}
}

// markdownRecords writes each changed recording rule in full.
func markdownRecords(b *strings.Builder, r *Report) {
	if len(r.Records) > 0 {
		fmt.Fprintf(b, "\n<details><summary>Recording rules (%d)</summary>\n\n", len(r.Records))
		for _, c := range r.Records {
			var body strings.Builder
			if c.Base != "" {
				body.WriteString(prefixLines("- ", c.Base) + "\n")
			}
			if c.Head != "" {
				body.WriteString(prefixLines("+ ", c.Head) + "\n")
			}
			fence := escape.Fence(body.String())
			fmt.Fprintf(b, "#### %s %s\n\n%sdiff\n%s%s\n", c.Change, escape.Code(c.Name), fence, body.String(), fence)
			if len(c.ReadBy) > 0 {
				fmt.Fprintf(b, "Read by: %s\n", escape.Markdown(strings.Join(c.ReadBy, "; ")))
			}
			b.WriteString("\n")
		}
		b.WriteString("</details>\n")
	}
}

// markdownOthers writes the changed panels, counter fields and other generated files.
func markdownOthers(b *strings.Builder, r *Report) {
}

// prefixLines prefixes every line of s.
func prefixLines(prefix, s string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
