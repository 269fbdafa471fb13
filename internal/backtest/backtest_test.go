package backtest_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"

	"github.com/gpuobs/gpuobs/internal/backtest"
	"github.com/gpuobs/gpuobs/internal/escape"
	"github.com/gpuobs/gpuobs/internal/promql/replay"
	"github.com/gpuobs/gpuobs/internal/promql/ruleeval"
	"github.com/gpuobs/gpuobs/internal/testutil"
	"unicode/utf8"
)

// minutes is how long the synthetic fleet is recorded, one sample a minute from time 0 (where
// promtool's tests start).
const minutes = 360

// temperatures are five GPUs' temperatures at minute i: one cool; one hot for an hour and then
// for three minutes; one at 82 °C with ten minutes at 97 °C; one alternating 84 and 86 °C every
// ten minutes; one at 90 °C until it stops reporting (vanishes).
var temperatures = map[string]func(i int) float64{
	"0": func(int) float64 { return 70 },
	"1": func(i int) float64 {
		if i >= 60 && i < 120 || i >= 200 && i < 203 {
			return 90
		}
		return 70
	},
	"2": func(i int) float64 {
		if i >= 300 && i < 310 {
			return 97
		}
		return 82
	},
	"3": func(i int) float64 { return 84 + 2*float64(i/10%2) },
	"4": func(int) float64 { return 90 },
}

// samples is how many samples a GPU reports, one a minute from minute 0: GPU 4 vanishes after
// minute 99.
func samples(gpu string) int {
	if gpu == "4" {
		return 100
	}
	return minutes + 1
}

func gpuLabels(gpu string) map[string]string {
	return map[string]string{"cluster": "a", "Hostname": "node-1", "gpu": gpu}
}

// fleetBlocks writes the GPUs' series as TSDB blocks, as a Prometheus snapshot holds them.
func fleetBlocks(t *testing.T) string {
	t.Helper()
	store, err := ruleeval.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := store.Close(); err != nil {
			t.Error(err)
		}
	}()
	for _, gpu := range slices.Sorted(maps.Keys(temperatures)) {
		if err := store.AddSeries("DCGM_FI_DEV_GPU_TEMP", gpuLabels(gpu), 0, time.Minute.Milliseconds(), samples(gpu), temperatures[gpu]); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	if err := store.Snapshot(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// ruleFile writes a rule file: a ticket above a threshold for 5m and a page above 95 °C that
// keeps firing 3m, in a group written before the per-GPU record they read; extra rules go to
// the record's group.
func ruleFile(t *testing.T, threshold int, extra string) string {
	t.Helper()
	return writeRules(t, fmt.Sprintf(`groups:
  - name: gpu-alerts
    rules:
%s  - name: gpu-records
    rules:
      - record: gpu:temp:max
        expr: max by (cluster, Hostname, gpu) (DCGM_FI_DEV_GPU_TEMP)
%s`, alertRules(threshold), extra))
}

// alertRules are ruleFile's two alerts.
func alertRules(threshold int) string {
	return fmt.Sprintf(`      - alert: Hot
        expr: gpu:temp:max > %d
        for: 5m
        labels: {severity: warning}
      - alert: VeryHot
        expr: gpu:temp:max > 95
        keep_firing_for: 3m
        labels: {severity: critical}
`, threshold)
}

func writeRules(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rules.yaml")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReplayMatchesPromtool replays the rules over the blocks, then has promtool check, at
// every minute, that exactly the alerts the replay saw firing fire in its own evaluation of
// the same series. Two layouts: the alerts' group written before the record's (replay
// evaluates the record first, in windows of steps; promtool is told the same group order),
// and the alerts before the record in one group (each alert reads the record a minute late,
// as Prometheus' group evaluation gives; replay then goes step by step). GPU 4's vanishing
// checks that the record's series is marked stale: without it, Hot would fire 4 minutes
// longer.
func TestReplayMatchesPromtool(t *testing.T) {
	t.Parallel()
	blocks := fleetBlocks(t)
	recordsLater := ruleFile(t, 85, "")
	for _, c := range []struct {
		name, rules, groupOrder string
		every                   time.Duration
		firingSteps             int
	}{
		// Hot: 150 minutes of GPUs 1-3 (TestThresholdChange counts them) and 99 of GPU 4;
		// VeryHot: 10 minutes and 3 kept.
		{"records in a later group", recordsLater, "group_eval_order: [gpu-records, gpu-alerts]\n", time.Minute, 262},
		{"one group, record last", writeRules(t, "groups:\n  - name: gpu\n    rules:\n"+alertRules(85)+
			"      - record: gpu:temp:max\n        expr: max by (cluster, Hostname, gpu) (DCGM_FI_DEV_GPU_TEMP)\n"), "", time.Minute, 262},
		// Every five minutes (windows of six steps): Hot fires at 11 steps of GPU 1's hour,
		// 1 of GPU 2's spike, 1 of each of GPU 3's 18 hot windows, and GPU 4's from 5 to 100;
		// VeryHot at 300 and 305, and kept at 310.
		{"evaluated every five minutes", recordsLater, "group_eval_order: [gpu-records, gpu-alerts]\n", 5 * time.Minute, 53},
		// An alert on ALERTS, in a group written first: evaluated after Hot. Two GPUs' Hot
		// fire together at minutes 15-19, 35-39, 55-59 (GPUs 3 and 4), 65-103 (1 and 4) and
		// 115-119 (1 and 3): 59 minutes more.
		{"an alert reads ALERTS", writeRules(t, `groups:
  - name: meta
    rules:
      - alert: TwoHot
        expr: count(ALERTS{alertname="Hot", alertstate="firing"}) >= 2
        labels: {severity: info}
`+strings.TrimPrefix(readFile(t, recordsLater), "groups:\n")), "group_eval_order: [gpu-records, gpu-alerts, meta]\n", time.Minute, 321},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tests, firingSteps := replayAsPromtoolTest(t, blocks, c.rules, c.every)
			if firingSteps != c.firingSteps {
				t.Fatalf("the replay saw %d firing alert-steps, want %d", firingSteps, c.firingSteps)
			}
			testPath := filepath.Join(t.TempDir(), "replay.test.yaml")
			if err := os.WriteFile(testPath, []byte(c.groupOrder+tests), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(testutil.Tool(t, "promtool"), "test", "rules", testPath)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("promtool disagrees with the replay: %v\n%s", err, out)
			}
		})
	}
}

// replayAsPromtoolTest replays a rule file over the blocks, evaluated at the given interval,
// and writes a promtool test expecting, at every evaluation, the alerts the replay saw firing;
// it returns the test and the number of firing alert-steps.
func replayAsPromtoolTest(t *testing.T, blocks, rulesPath string, every time.Duration) (string, int) {
	t.Helper()
	data, err := replay.Open(blocks)
	if err != nil {
		t.Fatal(err)
	}
	rules, err := replay.Load(data, t.TempDir(), every, rulesPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := errors.Join(rules.Close(), data.Close()); err != nil {
			t.Error(err)
		}
	})
	var tests strings.Builder
	fmt.Fprintf(&tests, "rule_files: [%q]\nevaluation_interval: %s\ntests:\n  - interval: 1m\n    input_series:\n", rulesPath, model.Duration(every))
	for _, gpu := range slices.Sorted(maps.Keys(temperatures)) {
		var values []string
		for i := 0; i <= minutes; i++ {
			if i < samples(gpu) {
				values = append(values, fmt.Sprint(temperatures[gpu](i)))
			} else {
				values = append(values, "_")
			}
		}
		fmt.Fprintf(&tests, "      - series: 'DCGM_FI_DEV_GPU_TEMP{cluster=\"a\", Hostname=\"node-1\", gpu=%q}'\n        values: %q\n", gpu, strings.Join(values, " "))
	}
	tests.WriteString("    alert_rule_test:\n")
	firingSteps := 0
	err = rules.Replay(context.Background(), time.UnixMilli(0), time.UnixMilli(0).Add(minutes*time.Minute), func(ts time.Time, firing []replay.Firing) error {
		minute := int(ts.Sub(time.UnixMilli(0)).Minutes())
		for _, alert := range []string{"Hot", "VeryHot", "TwoHot"} {
			var expected []string
			for _, f := range firing {
				if f.Alert == alert {
					firingSteps++
					expected = append(expected, "\n          - exp_labels: "+flowMap(f.Labels))
				}
			}
			if len(expected) == 0 {
				expected = []string{" []"}
			}
			fmt.Fprintf(&tests, "      - eval_time: %dm\n        alertname: %s\n        exp_alerts:%s\n", minute, alert, strings.Join(expected, ""))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tests.String(), firingSteps
}

// flowMap writes labels as a YAML flow map, alertname left out.
func flowMap(lbls map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(lbls)) {
		if k != "alertname" {
			parts = append(parts, fmt.Sprintf("%s: %q", k, lbls[k]))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestThresholdChange: lowering the ticket's threshold from 85 to 80 °C turns GPU 2's steady
// 82 °C and GPU 3's 84-86 °C swing into one long episode each; the page is unchanged.
func TestThresholdChange(t *testing.T) {
	t.Parallel()
	res, err := backtest.Run(context.Background(), fleetBlocks(t), []backtest.Side{
		{Name: "base", Files: []string{ruleFile(t, 85, "")}},
		{Name: "head", Files: []string{ruleFile(t, 80, "")}},
	}, backtest.Options{Interval: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, a := range res.Alerts {
		var sides []string
		for _, s := range a.Sides {
			sides = append(sides, fmt.Sprintf("%d episodes %s", s.Episodes, time.Duration(s.Firing)))
		}
		got[a.Alert] = strings.Join(sides, " / ")
	}
	want := map[string]string{
		// Base: GPU 1's hour (55 min after for), GPU 2's spike (5 min), GPU 3's 18 hot
		// windows (5 min each), GPU 4 from minute 5 to 103 (its last sample, at 99, is
		// looked back to until minute 103; at 104 the record is stale). Head: GPU 1's hour,
		// GPUs 2 and 3 from minute 5 to 360, GPU 4 as in base.
		"Hot": "21 episodes 4h9m0s / 4 episodes 14h26m0s",
		// GPU 2's ten minutes at 97 °C and three kept firing.
		"VeryHot": "1 episodes 13m0s / 1 episodes 13m0s",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("per alert:\n got %v\nwant %v", got, want)
	}
	if res.Alerts[0].Alert != "Hot" || res.Alerts[0].Sides[1].Top[0].Labels != `{Hostname="node-1", cluster="a", gpu="2"}` {
		t.Errorf("the biggest change first, its longest-firing target first: %+v", res.Alerts[0])
	}
	// Six hours are a quarter of a day.
	if tot := fmt.Sprint(res.Totals); tot != "[{4 84} {4 16}]" {
		t.Errorf("totals (pages, tickets per day): %s", tot)
	}
	var text strings.Builder
	if err := backtest.Reporters.Write(&text, "text", res); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"pages per day: 4.00 → 4.00 (±0)", "tickets per day: 84.00 → 16.00 (-68.00)", "Hot      ticket  21 → 4 (-17)  4h09m → 14h26m"} {
		if !strings.Contains(text.String(), line) {
			t.Errorf("text report lacks %q:\n%s", line, text.String())
		}
	}
}

// TestSeverityChange: an alert made critical shows as a ticket becoming a page, its pages
// and tickets counted on each side by its severity there; its targets are named without the
// rule's own labels; JSON writes firing time in seconds.
func TestSeverityChange(t *testing.T) {
	t.Parallel()
	critical := writeRules(t, strings.Replace(fmt.Sprintf("groups:\n  - name: gpu-alerts\n    rules:\n%s  - name: gpu-records\n    rules:\n      - record: gpu:temp:max\n        expr: max by (cluster, Hostname, gpu) (DCGM_FI_DEV_GPU_TEMP)\n", alertRules(85)), "{severity: warning}", "{severity: critical, owner: gpu-infra}", 1))
	res, err := backtest.Run(context.Background(), fleetBlocks(t), []backtest.Side{
		{Name: "base", Files: []string{ruleFile(t, 85, "")}},
		{Name: "head", Files: []string{critical}},
	}, backtest.Options{Interval: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var text, js strings.Builder
	if err := backtest.Reporters.Write(&text, "text", res); err != nil {
		t.Fatal(err)
	}
	if err := backtest.Reporters.Write(&js, "json", res); err != nil {
		t.Fatal(err)
	}
	// Hot: 21 episodes over six hours, a quarter of a day: 84 a day, tickets on base, pages on head.
	for _, line := range []string{"pages per day: 4.00 → 88.00 (+84.00)", "tickets per day: 84.00 → 0.00 (-84.00)", "Hot      ticket → page  21 → 21 (±0)"} {
		if !strings.Contains(text.String(), line) {
			t.Errorf("text report lacks %q:\n%s", line, text.String())
		}
	}
	// The rule's own labels (a team label named owner) are no part of a target's name.
	if top := res.Alerts[0].Sides[1].Top[0].Labels; top != `{Hostname="node-1", cluster="a", gpu="4"}` {
		t.Errorf("the head's longest-firing target is named %s", top)
	}
	// 4h09m firing.
	if !strings.Contains(js.String(), `"firingSeconds": 14940`) {
		t.Errorf("JSON does not write the firing time in seconds:\n%s", js.String())
	}
}

// TestRefusals: a directory that is not a TSDB, a range without data, rules reading a metric
// the data lacks (listed with the alert that reads it through a record), group intervals
// below a second and subqueries of more than 100,000 steps are refused.
func TestRefusals(t *testing.T) {
	t.Parallel()
	blocks := fleetBlocks(t)
	side := []backtest.Side{{Name: "head", Files: []string{ruleFile(t, 85, "")}}}
	for _, c := range []struct {
		name, dir string
		sides     []backtest.Side
		opts      backtest.Options
		want      string
	}{
		{"not a TSDB", t.TempDir(), side, backtest.Options{}, "is not a Prometheus TSDB directory"},
		{"a range without data", blocks, side, backtest.Options{From: time.Unix(86400, 0), To: time.Unix(2*86400, 0)}, "has no data from 1970-01-02T00:00:00Z to 1970-01-03T00:00:00Z: its samples run from 1970-01-01T00:00:00Z to 1970-01-01T06:00:00Z"},
		{"a metric the data lacks", blocks, []backtest.Side{{Name: "head", Files: []string{ruleFile(t, 85, `      - record: gpu:power:max
        expr: max by (cluster, Hostname, gpu) (DCGM_FI_DEV_POWER_USAGE)
      - alert: PowerHigh
        expr: gpu:power:max > 700
`)}}}, backtest.Options{}, "the rules read 1 metrics " + blocks + " has no samples of in the range (their alerts could not fire; --allow-missing replays anyway):\n  DCGM_FI_DEV_POWER_USAGE, read by PowerHigh"},
		// A thousand steps a second of data: refused before anything runs.
		{"a millisecond group interval", blocks, []backtest.Side{{Name: "head", Files: []string{writeRules(t, "groups:\n  - name: fast\n    interval: 1ms\n    rules:\n      - alert: Hot\n        expr: DCGM_FI_DEV_GPU_TEMP > 85\n")}}}, backtest.Options{}, "group fast: interval 1ms: a replay evaluates a group at most every 1s of data"},
		{"a millisecond default interval", blocks, side, backtest.Options{Interval: time.Millisecond}, "interval 1ms: a replay evaluates a group at most every 1s"},
		// 2.6 billion inner evaluations per step: refused before anything runs.
		{"a millisecond subquery step", blocks, []backtest.Side{{Name: "head", Files: []string{writeRules(t, "groups:\n  - name: sub\n    rules:\n      - alert: Hot\n        expr: max_over_time(DCGM_FI_DEV_GPU_TEMP[30d:1ms]) > 85\n")}}}, backtest.Options{}, "group sub, rule Hot: subquery [30d:1ms] evaluates its inner query 2592000000 times per step; a replay allows at most 100000 (a longer step or a shorter range)"},
		// Nested: 3,600 inner steps for each of 1,440 outer ones.
		{"nested subqueries", blocks, []backtest.Side{{Name: "head", Files: []string{writeRules(t, "groups:\n  - name: sub\n    rules:\n      - alert: Hot\n        expr: max_over_time(max_over_time(DCGM_FI_DEV_GPU_TEMP[1h:1s])[1d:1m]) > 85\n")}}}, backtest.Options{}, "subquery [1h:1s] evaluates its inner query 5184000 times per step"},
		// No step: the default evaluation interval (1s here) is the step, as in Prometheus.
		{"a subquery at the default interval", blocks, []backtest.Side{{Name: "head", Files: []string{writeRules(t, "groups:\n  - name: sub\n    rules:\n      - record: gpu:temp:max6d\n        expr: max_over_time(DCGM_FI_DEV_GPU_TEMP[6d:])\n")}}}, backtest.Options{Interval: time.Second}, "group sub, rule gpu:temp:max6d: subquery [6d:] evaluates its inner query 518400 times per step"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := backtest.Run(context.Background(), c.dir, c.sides, c.opts)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}

// TestRangeClampedToTheData: a century around six hours of data replays the six hours, and
// says so.
func TestRangeClampedToTheData(t *testing.T) {
	t.Parallel()
	var progress strings.Builder
	start := time.Now()
	res, err := backtest.Run(context.Background(), fleetBlocks(t), []backtest.Side{{Name: "head", Files: []string{ruleFile(t, 85, "")}}},
		backtest.Options{From: time.Date(1920, 1, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	if !res.From.Equal(time.Unix(0, 0)) || res.To.Sub(res.From) > 6*time.Hour {
		t.Errorf("replayed %s to %s, want the data's six hours", res.From, res.To)
	}
	for _, want := range []string{"the data starts at 1970-01-01T00:00:00Z: replaying from there, not from 1920-01-01T00:00:00Z", "the data ends at 1970-01-01T06:00:00Z: replaying to there, not to 2020-01-01T00:00:00Z"} {
		if !strings.Contains(progress.String(), want) {
			t.Errorf("progress does not say %q:\n%s", want, progress.String())
		}
	}
	if took := time.Since(start); took > time.Minute {
		t.Errorf("took %s", took)
	}
}

// TestStepsAreBounded: data whose samples span 8,000 years (one stray sample far in the
// future) would replay four billion steps; it is refused at once with the span and the bound.
func TestStepsAreBounded(t *testing.T) {
	t.Parallel()
	store, err := ruleeval.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, gpu := range slices.Sorted(maps.Keys(temperatures)) {
		if err := store.AddSeries("DCGM_FI_DEV_GPU_TEMP", gpuLabels(gpu), 0, time.Minute.Milliseconds(), samples(gpu), temperatures[gpu]); err != nil {
			t.Fatal(err)
		}
	}
	stray := time.Date(9970, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	if err := store.AddSeries("DCGM_FI_DEV_GPU_TEMP", gpuLabels("stray"), stray, time.Minute.Milliseconds(), 1, func(int) float64 { return 40 }); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := errors.Join(store.Snapshot(dir), store.Close()); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = backtest.Run(context.Background(), dir, []backtest.Side{{Name: "head", Files: []string{ruleFile(t, 85, "")}}}, backtest.Options{})
	if err == nil || !strings.Contains(err.Error(), "from 1970-01-01T00:00:00Z to 9970-01-01T00:00:00Z is 4207") || !strings.Contains(err.Error(), "at most 1000000 steps") {
		t.Errorf("error %v, want the span refused", err)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("took %s", took)
	}
}

// TestMissingFollowsRecordLabels: records of one name told apart by a label (as SLO records
// are) each read their own metric; an alert selecting one record by that label reads only
// that record's metric, so a metric only the other record reads is not missing for it.
func TestMissingFollowsRecordLabels(t *testing.T) {
	t.Parallel()
	blocks := fleetBlocks(t)
	records := `      - record: slo:bad:ratio
        expr: max by (cluster) (DCGM_FI_DEV_GPU_TEMP > bool 95)
        labels: {slo: temperature}
      - record: slo:bad:ratio
        expr: max by (cluster) (DCGM_FI_DEV_POWER_USAGE > bool 700)
        labels: {slo: power}
`
	for _, c := range []struct{ slo, want string }{
		{"temperature", ""},
		{"power", "DCGM_FI_DEV_POWER_USAGE, read by SLOBurn"},
	} {
		t.Run(c.slo, func(t *testing.T) {
			rules := ruleFile(t, 85, records+fmt.Sprintf("      - alert: SLOBurn\n        expr: slo:bad:ratio{slo=%q} > 0\n", c.slo))
			_, err := backtest.Run(context.Background(), blocks, []backtest.Side{{Name: "head", Files: []string{rules}}}, backtest.Options{})
			switch {
			case c.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}

// TestSubqueryWithoutStep: a subquery with no step replays at the default evaluation interval,
// as Prometheus evaluates it (the engine had no interval for it and panicked).
func TestSubqueryWithoutStep(t *testing.T) {
	t.Parallel()
	rules := writeRules(t, "groups:\n  - name: sub\n    rules:\n      - alert: HotForTenMinutes\n        expr: min_over_time(DCGM_FI_DEV_GPU_TEMP[10m:]) > 85\n")
	res, err := backtest.Run(context.Background(), fleetBlocks(t), []backtest.Side{{Name: "head", Files: []string{rules}}}, backtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Alerts) != 1 || res.Alerts[0].Sides[0].Episodes == 0 {
		t.Errorf("a stepless subquery over a hot GPU fired no episode: %+v", res.Alerts)
	}
}

// TestDamagedBlock: a block whose chunk file was cut short (a copy interrupted) is reported as
// damaged data, by its directory, not as an error of the rule that read it nor against a block
// of zeros.
func TestDamagedBlock(t *testing.T) {
	t.Parallel()
	dir := fleetBlocks(t)
	chunks, err := filepath.Glob(filepath.Join(dir, "*", "chunks", "000001"))
	if err != nil || len(chunks) != 1 {
		t.Fatalf("chunk files %v: %v", chunks, err)
	}
	info, err := os.Stat(chunks[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(chunks[0], info.Size()/2); err != nil {
		t.Fatal(err)
	}
	block := filepath.Dir(filepath.Dir(chunks[0]))
	_, err = backtest.Run(context.Background(), dir, []backtest.Side{{Name: "head", Files: []string{ruleFile(t, 85, "")}}}, backtest.Options{})
	if err == nil {
		t.Fatal("a truncated block replayed without an error")
	}
	for _, want := range []string{block + ": the block is damaged (", "segment doesn't include enough bytes", "copy the block again, or move it out of " + dir} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	for _, wrong := range []string{"rule gpu:temp:max", "00000000000000000000000000"} {
		if strings.Contains(err.Error(), wrong) {
			t.Errorf("error %q says %q", err, wrong)
		}
	}
}

// TestMarkdownFitsAComment: a target whose labels hold a 200,000-character value (a label
// from the data) leaves the Markdown report within GitHub's comment limit with the alert's
// row kept, the value cut with a mark and a line saying what was cut; the text report keeps
// it whole.
func TestMarkdownFitsAComment(t *testing.T) {
	t.Parallel()
	res, err := backtest.Run(context.Background(), fleetBlocks(t), []backtest.Side{{Name: "head", Files: []string{ruleFile(t, 85, "")}}}, backtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	long := `{Hostname="` + strings.Repeat("n", 200_000) + `"}`
	res.Alerts[0].Sides[0].Top[0].Labels = long
	var markdown, text strings.Builder
	if err := errors.Join(backtest.Reporters.Write(&markdown, "markdown", res), backtest.Reporters.Write(&text, "text", res)); err != nil {
		t.Fatal(err)
	}
	if n := utf8.RuneCountInString(markdown.String()); n > escape.CommentLimit || !strings.Contains(markdown.String(), "**Cut cells:**") || !strings.Contains(markdown.String(), "more characters") {
		t.Errorf("the Markdown report has %d characters (limit %d), ending:\n%s", n, escape.CommentLimit, markdown.String()[max(0, markdown.Len()-400):])
	}
	if row := "| " + escape.Markdown(res.Alerts[0].Alert) + " |"; !strings.Contains(markdown.String(), row) {
		t.Errorf("the Markdown report lost the alert's row %q:\n%s", row, markdown.String()[:min(markdown.Len(), 2000)])
	}
	if !strings.Contains(text.String(), strings.Repeat("n", 200_000)) {
		t.Error("the text report lost the value")
	}
}

// TestTemplatesAreBounded: annotations do not change what fires, so a replay does not expand
// them: an annotation that loops two billion times at every step replays as fast as the rule
// without it, with the same result. A label template does change what fires; one that loops
// for one GPU only (so a check on empty labels passes) ends the replay at generate's step
// bound, naming the rule and the label, before the rule manager runs it.
func TestTemplatesAreBounded(t *testing.T) {
	t.Parallel()
	blocks := fleetBlocks(t)
	const loop = `{{ range $i := 2000000000 }}{{ end }}`
	looping := strings.Replace(alertRules(85), "labels: {severity: warning}", "labels: {severity: warning}\n        annotations: {summary: '"+loop+"'}", 1)
	side := func(alerts string) []backtest.Side {
		return []backtest.Side{{Name: "head", Files: []string{writeRules(t, "groups:\n  - name: gpu-records\n    rules:\n      - record: gpu:temp:max\n        expr: max by (cluster, Hostname, gpu) (DCGM_FI_DEV_GPU_TEMP)\n  - name: gpu-alerts\n    rules:\n"+alerts)}}}
	}
	plain, err := backtest.Run(context.Background(), blocks, side(alertRules(85)), backtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	annotated, err := backtest.Run(context.Background(), blocks, side(looping), backtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("a looping annotation: the replay took %s", took)
	}
	if !reflect.DeepEqual(annotated.Alerts, plain.Alerts) || len(plain.Alerts) == 0 {
		t.Errorf("a looping annotation changed what fired: %+v, want %+v", annotated.Alerts, plain.Alerts)
	}
	guarded := strings.Replace(alertRules(85), "labels: {severity: warning}", `labels: {severity: warning, shard: '{{ if eq $labels.gpu "3" }}`+loop+`{{ end }}'}`, 1)
	start = time.Now()
	_, err = backtest.Run(context.Background(), blocks, side(guarded), backtest.Options{})
	if err == nil || !strings.Contains(err.Error(), "rule Hot: its label shard: the template of Hot loops more than 100000 times") {
		t.Errorf("a label template looping for one GPU: %v, want the bound named", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("a looping label template: the replay took %s", took)
	}
}
