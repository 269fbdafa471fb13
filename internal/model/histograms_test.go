package model

import (
	"reflect"
	"testing"
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
