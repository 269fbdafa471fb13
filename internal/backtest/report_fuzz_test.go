package backtest

import (
	"strings"
	"testing"
	"time"

	"github.com/gpuobs/gpuobs/internal/testutil"
)

// fuzzResult is a two-sided result whose alert name, target labels, data directory, side and
// metric names are s.
func fuzzResult(s string) *Result {
	stats := Stats{Severity: "critical", Episodes: 2, Firing: Seconds(time.Hour), Top: []Target{{Labels: s, Episodes: 1, Firing: Seconds(time.Hour)}}}
	return &Result{
		Data: s, Step: "1m", Sides: []string{s, "head"}, Totals: []Totals{{1, 2}, {3, 4}},
		Alerts:  []AlertRow{{Alert: s, Sides: []Stats{stats, stats}}},
		Missing: []Missing{{Metric: s, Alerts: []string{s}}},
	}
}

// FuzzReportNames: names from rule files and data (an alert named "::error x", a label value
// with a newline, a pipe, an HTML comment) leave the report's shape as a plain name does: as
// many lines, no line a workflow command in text, no HTML or unescaped pipe in Markdown.
func FuzzReportNames(f *testing.F) {
	for _, seed := range []string{"GPUHot", "::error::x", "a\n::warning::y", "a | b", "<!-- x", "##[error]z", "\t:"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, format := range []string{"text", "markdown"} {
			var plain, got strings.Builder
			if err := Reporters.Write(&plain, format, fuzzResult("x")); err != nil {
				t.Fatal(err)
			}
			if err := Reporters.Write(&got, format, fuzzResult(s)); err != nil {
				t.Fatal(err)
			}
			testutil.ReportShape(t, format, s, plain.String(), plain.String(), got.String())
		}
	})
}
