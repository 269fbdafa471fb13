package semdiff

import (
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/internal/testutil"
)

// fuzzReport is a report of one change of every kind, each name (and the base and head refs)
// being s, each expression and query body.
func fuzzReport(s, body string) *Report {
	alert := &Alert{Name: s, Labels: map[string]string{"severity": "critical"}, Receivers: []string{s}, SilencedBy: []string{s}}
	return &Report{
		Base: s, Head: s,
		Alerts:   []AlertChange{{Name: s, Change: Changed, Fields: []FieldChange{{Field: s, Base: body, Head: body + "\n> 2"}}, Base: alert, Head: &Alert{Name: s, Labels: alert.Labels}, RoutingChanged: true}},
		Records:  []RecordChange{{Name: s, Change: Changed, Base: body, Head: body + "\n+ 1", ReadBy: []string{s}}},
		Panels:   []PanelChange{{Dashboard: s, Title: s, Change: Changed, Added: []string{body}, Removed: []string{body}}},
		Counters: []CounterChange{{Field: s, Change: Added, Head: "gauge"}},
		Files:    []FileChange{{Path: s, Change: Changed}},
		Unrouted: []string{s},
	}
}

// FuzzReportNames: a name or an expression from a pull request (a newline and a workflow
// command, an HTML comment, backticks, a table's pipe) changes nothing of a report's shape in
// text or Markdown: a name makes as many lines as a plain name does; no line of the text report
// starts, after its leading spaces, with a workflow command (the runner trims them) nor holds
// the older ##[ prefix; Markdown holds no HTML or unescaped pipe the writer did not write
// itself, outside code.
func FuzzReportNames(f *testing.F) {
	for _, seed := range [][2]string{{"GPUHot", "sum(a)"}, {"a\n::error::x", "sum(\n  ::error::x\n)"}, {"<!-- hide", "a\n<!--"}, {"`x`", "```"}, {"``` \n", "  ##[error]x"}, {"a | b", "a | b"}, {"</details>", "</details>"}, {"\u2028\u202e", "\u2028\u202e"}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, name, body string) {
		for _, format := range []string{"text", "markdown"} {
			var plain, got strings.Builder
			if err := Reporters.Write(&plain, format, fuzzReport("x", body)); err != nil {
				t.Fatal(err)
			}
			if err := Reporters.Write(&got, format, fuzzReport(name, body)); err != nil {
				t.Fatal(err)
			}
			ref := plain.String()
			if format == "markdown" {
				var plainBody strings.Builder
				if err := Reporters.Write(&plainBody, format, fuzzReport("x", "x")); err != nil {
					t.Fatal(err)
				}
				ref = plainBody.String()
			}
			testutil.ReportShape(t, format, name, plain.String(), ref, got.String())
		}
	})
}
