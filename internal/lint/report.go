package lint

import (
	"fmt"
	"strings"

	"github.com/gpuobs/gpuobs/internal/report"
	"github.com/gpuobs/gpuobs/internal/source"
)

// Result is what lint reports: the problems, and the files it read (the text format shows
// the problems' lines).
type Result struct {
	Problems []Problem
	Files    []*source.File
}

// Reporters are lint's output formats, in the order --format lists them; each reporter is a
// file of its own (report_<format>.go).
var Reporters = report.Registry[Result]{textReporter{}, jsonReporter{}, githubReporter{}, sarifReporter{}, checkstyleReporter{}}

// Summary says what lint read (files, rule groups, rules, dashboards, queries) and what it
// skipped and why (queries of other data sources, files with nothing to read), ending
// "; no problems" when there were none.
func Summary(files []*source.File, problems int) string {
	var groups, rules, dashboards, queries, other int
	var empty []string
	// A ConfigMap's dashboards are inputs of their own, read from the file that holds them:
	// files are counted by path.
	paths := map[string]bool{}
	for _, f := range files {
		paths[f.Path] = true
		groups += len(f.Groups)
		rules += len(f.Rules)
		if f.Dashboard != nil {
			dashboards++
			queries += len(f.Dashboard.Queries)
			other += f.Dashboard.OtherQueries
		}
		if f.Err == nil && len(f.Groups) == 0 && f.Dashboard == nil && len(f.Embedded) == 0 {
			empty = append(empty, f.Path)
		}
	}
	s := fmt.Sprintf("checked %d files: %d rule groups, %d rules, %d dashboards, %d dashboard queries", len(paths), groups, rules, dashboards, queries)
	if other > 0 {
		s += fmt.Sprintf(" (and %d queries of other data sources, such as Loki, not read)", other)
	}
	if len(empty) > 0 {
		shown := empty[:min(len(empty), 3)]
		more := ""
		if len(empty) > len(shown) {
			more = fmt.Sprintf(" and %d more", len(empty)-len(shown))
		}
		s += fmt.Sprintf("; skipped %d with no rule groups, PrometheusRule or dashboard (%s%s)", len(empty), strings.Join(shown, ", "), more)
	}
	if problems == 0 {
		s += "; no problems"
	}
	return s
}
