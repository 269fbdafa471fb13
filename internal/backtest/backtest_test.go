package backtest_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpuobs/gpuobs/internal/backtest"
	"github.com/gpuobs/gpuobs/internal/promql/replay"
	"github.com/gpuobs/gpuobs/internal/promql/ruleeval"
)

// minutes is how long the synthetic fleet is recorded, one sample a minute from time 0 (where
// promtool's tests start).
const minutes = 360

// temperatures are four GPUs' temperatures at minute i: one cool; one hot for an hour and then
// for three minutes; one at 82 °C with ten minutes at 97 °C; one alternating 84 and 86 °C every
// ten minutes.
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
	for _, gpu := range slices.Sorted(func(yield func(string) bool) {
		for g := range temperatures {
			if !yield(g) {
				return
			}
		}
	}) {
		if err := store.AddSeries("DCGM_FI_DEV_GPU_TEMP", gpuLabels(gpu), 0, time.Minute.Milliseconds(), minutes+1, temperatures[gpu]); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	if err := store.Snapshot(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// ruleFile writes a rule file: a per-GPU record, a ticket above a threshold for 5m, a page
// above 95 °C at once.
func ruleFile(t *testing.T, threshold int, extra string) string {
	t.Helper()
	content := fmt.Sprintf(`groups:
  - name: gpu
    rules:
      - record: gpu:temp:max
        expr: max by (cluster, Hostname, gpu) (DCGM_FI_DEV_GPU_TEMP)
      - alert: Hot
        expr: gpu:temp:max > %d
        for: 5m
        labels: {severity: warning}
      - alert: VeryHot
        expr: gpu:temp:max > 95
        labels: {severity: critical}
%s`, threshold, extra)
	path := filepath.Join(t.TempDir(), "rules.yaml")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReplayMatchesPromtool replays the rules over the blocks, then has promtool check, at
// every minute, that exactly the alerts the replay saw firing fire in its own evaluation of
// the same series.
func TestReplayMatchesPromtool(t *testing.T) {
	t.Parallel()
	data, err := replay.Open(fleetBlocks(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := data.Close(); err != nil {
			t.Error(err)
		}
	})
	rulesPath := ruleFile(t, 85, "")
	rules, err := replay.Load(data, t.TempDir(), time.Minute, rulesPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := rules.Close(); err != nil {
			t.Error(err)
		}
	})
	var tests strings.Builder
	fmt.Fprintf(&tests, "rule_files: [%q]\nevaluation_interval: 1m\ntests:\n  - interval: 1m\n    input_series:\n", rulesPath)
	for gpu, temp := range temperatures {
		var values []string
		for i := 0; i <= minutes; i++ {
			values = append(values, fmt.Sprint(temp(i)))
		}
		fmt.Fprintf(&tests, "      - series: 'DCGM_FI_DEV_GPU_TEMP{cluster=\"a\", Hostname=\"node-1\", gpu=%q}'\n        values: %q\n", gpu, strings.Join(values, " "))
	}
	tests.WriteString("    alert_rule_test:\n")
	firingSteps := 0
	err = rules.Replay(context.Background(), time.UnixMilli(0), time.UnixMilli(0).Add(minutes*time.Minute), func(ts time.Time, firing []replay.Firing) error {
		minute := int(ts.Sub(time.UnixMilli(0)).Minutes())
		for _, alert := range []string{"Hot", "VeryHot"} {
			fmt.Fprintf(&tests, "      - eval_time: %dm\n        alertname: %s\n        exp_alerts:\n", minute, alert)
			for _, f := range firing {
				if f.Alert == alert {
					firingSteps++
					fmt.Fprintf(&tests, "          - exp_labels: {severity: %q, cluster: a, Hostname: node-1, gpu: %q}\n", f.Labels["severity"], f.Labels["gpu"])
				}
			}
			if !strings.HasSuffix(tests.String(), "- exp_labels") && strings.HasSuffix(tests.String(), "exp_alerts:\n") {
				tests.WriteString("          []\n")
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// 150 minutes of Hot and 10 of VeryHot (TestThresholdChange counts them).
	if firingSteps != 160 {
		t.Fatalf("the replay saw %d firing alert-minutes, want 160", firingSteps)
	}
	testPath := filepath.Join(t.TempDir(), "replay.test.yaml")
	if err := os.WriteFile(testPath, []byte(strings.ReplaceAll(tests.String(), "exp_alerts:\n          []\n", "exp_alerts: []\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "tool", "-modfile=tools/promtool/go.mod", "promtool", "test", "rules", testPath)
	cmd.Dir = "../.."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool disagrees with the replay: %v\n%s", err, out)
	}
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
			sides = append(sides, fmt.Sprintf("%d episodes %s", s.Episodes, s.Firing))
		}
		got[a.Alert] = strings.Join(sides, " / ")
	}
	want := map[string]string{
		// Base: GPU 1's hour (55 min after for), GPU 2's spike (5 min), GPU 3's 18 hot
		// windows (5 min each). Head: GPU 1's hour, GPUs 2 and 3 from minute 5 to 360.
		"Hot":     "20 episodes 2h30m0s / 3 episodes 12h47m0s",
		"VeryHot": "1 episodes 10m0s / 1 episodes 10m0s",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("per alert:\n got %v\nwant %v", got, want)
	}
	if res.Alerts[0].Alert != "Hot" || res.Alerts[0].Sides[1].Top[0].Labels != `{Hostname="node-1", cluster="a", gpu="2"}` {
		t.Errorf("the biggest change first, its longest-firing target first: %+v", res.Alerts[0])
	}
	// Six hours are a quarter of a day.
	if tot := fmt.Sprint(res.Totals); tot != "[{4 80} {4 12}]" {
		t.Errorf("totals (pages, tickets per day): %s", tot)
	}
	var text strings.Builder
	if err := backtest.Write(&text, "text", res); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"pages per day: 4.00 → 4.00 (±0)", "tickets per day: 80.00 → 12.00 (-68.00)", "Hot      ticket  20 → 3 (-17)  2h30m → 12h47m"} {
		if !strings.Contains(text.String(), line) {
			t.Errorf("text report lacks %q:\n%s", line, text.String())
		}
	}
}

// TestRefusals: a directory that is not a TSDB, a range without data, and rules reading a
// metric the data lacks (listed with the alert that reads it through a record) are refused.
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
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := backtest.Run(context.Background(), c.dir, c.sides, c.opts)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}
