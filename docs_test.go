package gpuobs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/generators"
	"github.com/gpuobs/gpuobs/internal/lint/analysis"
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

// guide is the docs page that describes the embedded catalog's rules.
const guide = "docs/catalog-guide.md"

// TestGuideCountsAreTrue: the rule and alert counts the catalog guide gives are the embedded
// catalog's.
func TestGuideCountsAreTrue(t *testing.T) {
	readme, err := os.ReadFile(guide)
	if err != nil {
		t.Fatal(err)
	}
	p := plantest.Plan(t, "")
	derived := 0
	for _, r := range p.Recorded {
		if !r.FromCatalog {
			derived++
		}
	}
	want := fmt.Sprintf("The embedded catalog records %d recording rules (%d derived, %d declared in records) and %d alerts", len(p.Recorded), derived, len(p.Recorded)-derived, len(p.Alerts))
	if !strings.Contains(strings.Join(strings.Fields(string(readme)), " "), want) {
		t.Errorf("%s does not say %q", guide, want)
	}
}

// TestGuideRetentionSeriesAreTrue: the series count of each retention tier that the guide
// gives is lint's projection at the catalog's fleet size.
func TestGuideRetentionSeriesAreTrue(t *testing.T) {
	readme, err := os.ReadFile(guide)
	if err != nil {
		t.Fatal(err)
	}
	p := plantest.Plan(t, "")
	a := analysis.New(p, nil)
	var counts []string
	for _, interval := range p.Model.Recording.Retention.Intervals {
		series := 0
		for _, r := range p.Recorded {
			if r.TierOf == "" || r.Interval != interval {
				continue
			}
			n, err := a.ProjectedSeries(r.Expr)
			if err != nil {
				t.Fatal(err)
			}
			series += n
		}
		counts = append(counts, fmt.Sprintf("the %s tier %s series", interval, thousands(series)))
	}
	want := "each tier keeps about as many series as the records it copies: " + strings.Join(counts, ", ")
	if !strings.Contains(strings.Join(strings.Fields(string(readme)), " "), want) {
		t.Errorf("%s does not say %q", guide, want)
	}
}

// thousands writes n with thousands separators: 12,345.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestGuideRetentionRegexIsTrue: the remote-write relabeling the guide shows keeps the
// retention tiers of the embedded catalog.
func TestGuideRetentionRegexIsTrue(t *testing.T) {
	readme, err := os.ReadFile(guide)
	if err != nil {
		t.Fatal(err)
	}
	want := "regex: '" + plan.RetentionKeepRegex(plantest.Plan(t, "").Model) + "'"
	if !strings.Contains(string(readme), want) {
		t.Errorf("%s does not show %q", guide, want)
	}
}

// markdownPages are the README and every docs page, generated ones included.
func markdownPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	checks, err := filepath.Glob("docs/checks/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append(append([]string{"README.md"}, pages...), checks...)
}

// tableCells counts the cells of a Markdown table row: pipes outside code spans, not escaped.
func tableCells(row string) int {
	cells, code := 0, false
	for i, r := range row {
		switch {
		case r == '`':
			code = !code
		case r == '|' && !code && (i == 0 || row[i-1] != '\\'):
			cells++
		}
	}
	return cells - 1
}

// TestTablesRender: every table row of the README and the docs belongs to a table (no blank
// line or text cuts a table, which renders the rest as text) and has its header's cells.
func TestTablesRender(t *testing.T) {
	delimiter := regexp.MustCompile(`^\|( *:?-+:? *\|)+$`)
	rows := 0
	for _, page := range markdownPages(t) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		header, fence := 0, false
		for i, line := range lines {
			if strings.HasPrefix(line, "```") {
				fence = !fence
			}
			if fence || !strings.HasPrefix(line, "|") {
				header = 0
				continue
			}
			switch {
			case header == 0 && i+1 < len(lines) && delimiter.MatchString(lines[i+1]):
				header = tableCells(line)
			case header == 0:
				t.Errorf("%s:%d: a table row outside a table (a blank line or text cut its table): %.60s", page, i+1, line)
			case tableCells(line) != header:
				t.Errorf("%s:%d: %d cells, its table's header has %d: %.60s", page, i+1, tableCells(line), header, line)
			default:
				rows++
			}
		}
	}
	if rows < 100 {
		t.Fatalf("only %d table rows read", rows)
	}
}

// TestAlertTableListsEveryAlert: the alerts page names every alert of the embedded catalog and
// of the profiles that add alerts (DCGM 4 and Grace Blackwell on 4.9, DRA), an SLO's alerts by
// their SLO<Name><Suffix> pattern.
func TestAlertTableListsEveryAlert(t *testing.T) {
	data, err := os.ReadFile("docs/alerts.md")
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`([A-Za-z0-9<>]+)`").FindAllStringSubmatch(string(data), -1) {
		named[m[1]] = true
	}
	for _, config := range []string{"", "generators/promtooltests/testdata/gb200.jsonnet", "generators/promtooltests/testdata/dra.jsonnet"} {
		p := plantest.Plan(t, config)
		for name := range p.Alerts {
			if slo := p.Alerts[name].Labels["slo"]; slo != "" {
				name = "SLO<Name>" + strings.TrimPrefix(name, "SLO"+slo)
			}
			if !named[name] {
				t.Errorf("docs/alerts.md does not list %s (catalog %q)", name, config)
			}
		}
	}
}

// TestReadmeIsAUsersPage: the README stays a page for users (at most 250 lines), opens with
// the two commands a newcomer runs, and every relative link of it and the docs leads to a file.
func TestReadmeIsAUsersPage(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(readme), "\n"); n > 250 {
		t.Errorf("README.md has %d lines, want at most 250: move detail into docs/", n)
	}
	opening := strings.SplitN(string(readme), "\n", 6)
	if len(opening) < 6 || !strings.HasPrefix(opening[3], "go run ./cmd/gpuobs generate") || !strings.HasPrefix(opening[4], "make test ") {
		t.Errorf("README.md does not open with the generate and make test commands:\n%s", strings.Join(opening, "\n"))
	}
	// Its first screen says what gpuobs is and how to start: timings and commit ids are
	// docs/benchmarks.md's.
	firstScreen := strings.Join(strings.SplitN(string(readme), "\n", 41)[:40], "\n")
	for _, figure := range figures(firstScreen) {
		t.Errorf("README.md's first screen holds the figure %q: move timings and commit ids to docs/benchmarks.md", figure)
	}
	link := regexp.MustCompile(`\]\(([^)#:]+)(#[^)]*)?\)`)
	for _, page := range markdownPages(t) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(data), -1) {
			if _, err := os.Stat(filepath.Join(filepath.Dir(page), m[1])); err != nil {
				t.Errorf("%s links to %s, which does not exist", page, m[1])
			}
		}
	}
}

// timing is a measured duration (1.2 s, 300 ms, 7 min, 853 CPU-s); hexWord a word that may be
// a commit id.
var (
	timing  = regexp.MustCompile(`\b\d+(\.\d+)? ?(ms|s|min|CPU-s|seconds|minutes)\b`)
	hexWord = regexp.MustCompile(`\b[0-9a-f]{7,40}\b`)
)

// figures are the timings and commit ids (7 to 40 hex digits, with a digit and a letter) of a
// text.
func figures(text string) []string {
	found := timing.FindAllString(text, -1)
	for _, w := range hexWord.FindAllString(text, -1) {
		if strings.ContainsAny(w, "0123456789") && strings.ContainsAny(w, "abcdef") {
			found = append(found, w)
		}
	}
	return found
}

// TestFiguresAreFound: the README check finds a timing and a commit id, and passes prose.
func TestFiguresAreFound(t *testing.T) {
	for text, want := range map[string]int{
		"took 2 min 0 s, then 0.7 s":        3,
		"measured at 7828a8a":               1,
		"853 CPU-s on both cores":           1,
		"Go 1.26, git and make; 5 commands": 0,
		"the exporter's deadbeef field":     0,
		"recording rules from GPU to fleet": 0,
	} {
		if got := figures(text); len(got) != want {
			t.Errorf("%q: %d figures (%v), want %d", text, len(got), got, want)
		}
	}
}

// TestOwnAlertExampleGenerates: the example of docs/own-alert.md is a catalog that generates
// (its promtool run is the adopter catalog's, which holds the same alert).
func TestOwnAlertExampleGenerates(t *testing.T) {
	data, err := os.ReadFile("docs/own-alert.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```jsonnet\n(.*?)```").FindSubmatch(data)
	if m == nil {
		t.Fatal("docs/own-alert.md has no Jsonnet example")
	}
	config := filepath.Join(t.TempDir(), "gpuobs.jsonnet")
	if err := os.WriteFile(config, m[1], 0o644); err != nil {
		t.Fatal(err)
	}
	p := plantest.Plan(t, config)
	if _, _, err := generators.Run(p, generators.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, ok := p.Alerts["GPUPowerOverBudget"]; !ok {
		t.Error("the example's alert is not generated")
	}
}
