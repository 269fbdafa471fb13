package backtest

import (
	"fmt"
	"io"
	"strings"

	"github.com/gpuobs/gpuobs/internal/escape"
)

// markdownReporter writes the result as a pull-request comment: the totals in bold, then a
// Markdown table whose names are text, fitted to GitHub's limit with every row kept.
type markdownReporter struct{}

func (markdownReporter) Format() string { return "markdown" }

func (markdownReporter) Write(w io.Writer, r *Result) error {
	_, err := io.WriteString(w, escape.FitComment(func(cut func(string) string) string {
		var b strings.Builder
		cell := func(s string) string { return escape.Markdown(cut(s)) }
		t := newTable(r, cell, cell)
		fmt.Fprintf(&b, "### gpuobs backtest\n\n%s.\n\n**Pages per day: %s. Tickets per day: %s.**\n\n", t.head, t.pages, t.tickets)
		for i, row := range t.rows {
			fmt.Fprintf(&b, "| %s |\n", strings.Join(row, " | "))
			if i == 0 {
				b.WriteString("|---|---|---:|---:|---|\n")
			}
		}
		if len(r.Alerts) == 0 {
			b.WriteString("\nNo alert fired on either side.\n")
		}
		writeMissing(&b, r, cell)
		return b.String()
	}))
	return err
}
