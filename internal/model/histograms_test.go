package model

import (
	"reflect"
	"testing"

	"github.com/prometheus/prometheus/promql/parser"
)

// TestHistogramSeriesAsServersKeepThem: a histogram scenario written out as classic series
// (cumulative buckets, a whole bound spelt as the client writes it, +Inf, count and sum) and
// as one native series with custom buckets.
func TestHistogramSeriesAsServersKeepThem(t *testing.T) {
	h := HistogramScenario{
		Bounds: []float64{0.5, 1},
		// 30 minutes of 10 fast and 2 slow requests a minute, then 30 of 1 very slow one.
		Phases: []HistogramPhase{{Minutes: 30, Counts: []float64{10, 2, 0}, Sum: 6}, {Minutes: 30, Counts: []float64{0, 0, 1}, Sum: 2.216}},
		Whole:  ".0",
	}
	labels := map[string]string{"pod": "llm-0"}
	classic := HistogramSeries("ttft", labels, h, false)
	want := []CaseSeries{
		{Metric: "ttft_bucket", Values: "0+10x30 300+0x29", Labels: map[string]string{"pod": "llm-0", "le": "0.5"}},
		{Metric: "ttft_bucket", Values: "0+12x30 360+0x29", Labels: map[string]string{"pod": "llm-0", "le": "1.0"}},
		{Metric: "ttft_bucket", Values: "0+12x30 361+1x29", Labels: map[string]string{"pod": "llm-0", "le": "+Inf"}},
		{Metric: "ttft_count", Values: "0+12x30 361+1x29", Labels: labels},
		{Metric: "ttft_sum", Values: "0+6x30 182.216+2.216x29", Labels: labels},
	}
	if !reflect.DeepEqual(classic, want) {
		t.Errorf("classic:\n got %v\nwant %v", classic, want)
	}
	native := HistogramSeries("ttft", labels, h, true)
	wantNative := "{{schema:-53 sum:0 count:0 custom_values:[0.5 1] buckets:[0 0 0]}}+{{schema:-53 sum:6 count:12 custom_values:[0.5 1] buckets:[10 2 0]}}x30" +
		" {{schema:-53 sum:182.216 count:361 custom_values:[0.5 1] buckets:[300 60 1]}}+{{schema:-53 sum:2.216 count:1 custom_values:[0.5 1] buckets:[0 0 1]}}x29"
	if len(native) != 1 || native[0].Metric != "ttft" || native[0].Values != wantNative {
		t.Errorf("native: %v\nwant %s", native, wantNative)
	}
}

// TestHistogramSeriesNeverFallBack: promtool adds a phase's step to its value minute by
// minute, in floating point, and a rate reads any fall as a counter reset. A phase that
// starts from the previous one's end worked out by multiplication (99.7 × 30 is not thirty
// 99.7s added up) can start a hair below where promtool left the counter, and the rate of
// the next five minutes then counts the whole counter again. Every series of scenarios with
// steps that binary fractions do not hold, as Prometheus' own parser expands them, never
// falls.
func TestHistogramSeriesNeverFallBack(t *testing.T) {
	for _, h := range []HistogramScenario{
		// 99.7 good and 0.3 bad requests a minute, then no traffic.
		{Bounds: []float64{1}, Phases: []HistogramPhase{{Minutes: 30, Counts: []float64{99.7, 0.3}, Sum: 100.3}, {Minutes: 30, Counts: []float64{0, 0}, Sum: 0}}},
		// Thirds and tenths in three phases.
		{Bounds: []float64{0.1, 0.3}, Phases: []HistogramPhase{
			{Minutes: 17, Counts: []float64{1.0 / 3, 0.1, 0.7}, Sum: 0.29},
			{Minutes: 23, Counts: []float64{0.1, 0.2, 0.3}, Sum: 0.31},
			{Minutes: 20, Counts: []float64{0, 0, 0}, Sum: 0},
		}},
	} {
		for _, native := range []bool{false, true} {
			for _, s := range HistogramSeries("h", nil, h, native) {
				_, values, err := parser.NewParser(parser.Options{}).ParseSeriesDesc("h " + s.Values)
				if err != nil {
					t.Fatalf("%s: %v", s.Values, err)
				}
				for i := 1; i < len(values); i++ {
					prev, cur := values[i-1], values[i]
					if native {
						if cur.Histogram.Count < prev.Histogram.Count || cur.Histogram.DetectReset(prev.Histogram) {
							t.Errorf("native, minute %d: falls from %v to %v (%s)", i, prev.Histogram, cur.Histogram, s.Values)
						}
					} else if cur.Value < prev.Value {
						t.Errorf("%s %v, minute %d: falls from %v to %v (%s)", s.Metric, s.Labels, i, prev.Value, cur.Value, s.Values)
					}
				}
			}
		}
	}
}
