package backtest

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/gpuobs/gpuobs/internal/escape"
)

// textReporter writes the result for a terminal or a CI log: the totals, then a table aligned
// in columns, each name kept on its line.
type textReporter struct{}

func (textReporter) Format() string { return "text" }

func (textReporter) Write(w io.Writer, r *Result) error {
	var b strings.Builder
	t := newTable(r, escape.Line, escape.Leading)
	fmt.Fprintf(&b, "%s\npages per day: %s\ntickets per day: %s\n\n", t.head, t.pages, t.tickets)
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, row := range t.rows {
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Alerts) == 0 {
		b.WriteString("no alert fired on either side\n")
	}
	writeMissing(&b, r, escape.Line)
	_, err := io.WriteString(w, b.String())
	return err
}
