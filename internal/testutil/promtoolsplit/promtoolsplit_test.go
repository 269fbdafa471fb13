package promtoolsplit_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/internal/testutil"
	"github.com/gpuobs/gpuobs/internal/testutil/promtoolsplit"
)

const rules = `groups:
  - name: records
    rules:
      - record: job:x:sum
        expr: sum by (job) (x)
      - record: job:y:sum
        expr: sum by (job) (y)
  - name: alerts
    interval: 30s
    rules:
      - alert: XHigh
        expr: job:x:sum > 1
      - alert: ZWithoutX
        expr: z > 0 unless on () ALERTS{alertname="XHigh"}
`

const tests = `rule_files: [../rules.yaml]
evaluation_interval: 30s
tests:
  - name: alerts
    interval: 30s
    input_series:
      - {series: 'x{job="a"}', values: '0x10'}
      - {series: 'y{job="a"}', values: '5x10'}
      - {series: 'z{job="a"}', values: '1x10'}
    alert_rule_test:
      - eval_time: 2m
        alertname: ZWithoutX
        exp_alerts: [{exp_labels: {job: a}}]
  - name: queries
    input_series:
      - {series: 'x{job="a"}', values: '0x10'}
      - {series: 'y{job="a"}', values: '5x10'}
    promql_expr_test:
      - expr: job:y:sum
        eval_time: 2m
        exp_samples: [{labels: 'job:y:sum{job="a"}', value: 5}]
`

// split is what one split test file holds: its group's rules by name, and its series.
type split struct {
	rules, series []string
	interval      string
}

func read(t *testing.T, file string) split {
	t.Helper()
	var test struct {
		RuleFiles []string `json:"rule_files"`
		Tests     []struct {
			InputSeries []struct{ Series string } `json:"input_series"`
		}
	}
	var got split
	decode(t, file, &test)
	for _, s := range test.Tests[0].InputSeries {
		got.series = append(got.series, s.Series)
	}
	for _, f := range test.RuleFiles {
		var groups struct {
			Groups []struct {
				Name, Interval string
				Rules          []struct{ Record, Alert string }
			}
		}
		decode(t, filepath.Join(filepath.Dir(file), f), &groups)
		for _, g := range groups.Groups {
			if g.Name == "alerts" {
				got.interval = g.Interval
			}
			for _, r := range g.Rules {
				got.rules = append(got.rules, r.Record+r.Alert)
			}
		}
	}
	return got
}

func decode(t *testing.T, file string, v any) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// TestEachGroupRunsOnWhatItReads: an alert's group keeps the alert, the record under it and
// the alert it reads through ALERTS, and the series those select; a query's group keeps the
// record it reads; groups keep their intervals; promtool passes both split files.
func TestEachGroupRunsOnWhatItReads(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{"rules.yaml": rules, "tests/test.yaml": tests})
	files, err := promtoolsplit.Split(filepath.Join(dir, "tests", "test.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		t.Fatalf("%d split files, want one per group: %v", len(files), files)
	}
	for i, want := range []split{
		{rules: []string{"job:x:sum", "XHigh", "ZWithoutX"}, series: []string{`x{job="a"}`, `z{job="a"}`}, interval: "30s"},
		{rules: []string{"job:y:sum"}, series: []string{`y{job="a"}`}, interval: "30s"},
	} {
		got := read(t, files[i])
		if !slices.Equal(got.rules, want.rules) || !slices.Equal(got.series, want.series) || got.interval != want.interval {
			t.Errorf("group %d keeps rules %v and series %v (interval %q), want %v and %v (%q)", i, got.rules, got.series, got.interval, want.rules, want.series, want.interval)
		}
	}
	out, err := exec.Command(testutil.Tool(t, "promtool"), append([]string{"test", "rules"}, files...)...).CombinedOutput()
	if err != nil {
		t.Errorf("promtool test rules on the split files: %v\n%s", err, out)
	}
}

// TestNamesKeepTheirTestsOnly: given a query, only its group is written; given a name no test
// checks, Split refuses rather than run nothing.
func TestNamesKeepTheirTestsOnly(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{"rules.yaml": rules, "tests/test.yaml": tests})
	path := filepath.Join(dir, "tests", "test.yaml")
	files, err := promtoolsplit.Split(path, "job:y:sum")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || !slices.Equal(read(t, files[0]).rules, []string{"job:y:sum"}) {
		t.Errorf("split for job:y:sum: %v", files)
	}
	if _, err := promtoolsplit.Split(path, "NoSuchAlert"); err == nil {
		t.Error("a name no test checks split into nothing without an error")
	}
}

// TestATemplateQueryKeepsEverything: an annotation that runs a query may read any rule or
// series, so its alert's group keeps every rule and series.
func TestATemplateQueryKeepsEverything(t *testing.T) {
	dir := t.TempDir()
	queried := strings.Replace(rules, "        expr: z > 0 unless on () ALERTS{alertname=\"XHigh\"}\n",
		"        expr: z > 0 unless on () ALERTS{alertname=\"XHigh\"}\n        annotations:\n          summary: '{{ with query \"job:y:sum\" }}{{ . | first | value }}{{ end }}'\n", 1)
	if queried == rules {
		t.Fatal("the fixture changed: no annotation added")
	}
	testutil.WriteTree(t, dir, map[string]string{"rules.yaml": queried, "tests/test.yaml": tests})
	files, err := promtoolsplit.Split(filepath.Join(dir, "tests", "test.yaml"), "ZWithoutX")
	if err != nil {
		t.Fatal(err)
	}
	got := read(t, files[0])
	if want := []string{"job:x:sum", "job:y:sum", "XHigh", "ZWithoutX"}; !slices.Equal(got.rules, want) || len(got.series) != 3 {
		t.Errorf("keeps rules %v and series %v, want %v and every series", got.rules, got.series, want)
	}
}
