package semdiff

import (
	"fmt"
	"io"
	"strings"

	"github.com/gpuobs/gpuobs/internal/escape"
	"github.com/gpuobs/gpuobs/internal/output"
)

// sign marks a change in the text report: + added, - removed, ~ changed.
var sign = map[string]string{Added: "+", Removed: "-", Changed: "~"}

// textReporter writes the report for a terminal or a CI log: a summary, then every change
// with its old and new values, each name kept on its line.
type textReporter struct{}

func (textReporter) Format() string { return "text" }

func (textReporter) Write(w io.Writer, r *Report) error {
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
