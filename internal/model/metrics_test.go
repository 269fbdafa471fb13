package model_test

import (
	"testing"

	"github.com/gpuobs/gpuobs/internal/model"
)

// metricsModel has a histogram, a summary and a counter, its servers keeping histograms
// natively or not.
func metricsModel(native bool) *model.Model {
	return &model.Model{
		Metrics: map[string]model.Metric{
			"vllm:e2e_request_latency_seconds": {Type: "histogram", Labels: []string{"model_name"}},
			"rpc_duration_seconds":             {Type: "summary", Labels: []string{"service"}},
			"vllm:request_success_total":       {Type: "counter"},
		},
		Prometheus: model.Prometheus{NativeHistograms: native},
	}
}

// TestAbsentHistogramForm: classic histograms have no series under the bare name, native ones
// none under _bucket, _count and _sum; summaries, counters and unknown metrics are not
// histograms.
func TestAbsentHistogramForm(t *testing.T) {
	const h = "vllm:e2e_request_latency_seconds"
	for _, c := range []struct {
		native bool
		name   string
		base   string
		absent bool
	}{
		{false, h, h, true},
		{false, h + "_bucket", h, false},
		{false, h + "_count", h, false},
		{false, h + "_sum", h, false},
		{true, h, h, false},
		{true, h + "_bucket", h, true},
		{true, h + "_count", h, true},
		{true, h + "_sum", h, true},
		{true, "rpc_duration_seconds_count", "", false},
		{true, "vllm:request_success_total", "", false},
		{false, "unknown_bucket", "", false},
	} {
		base, absent := metricsModel(c.native).AbsentHistogramForm(c.name)
		if base != c.base || absent != c.absent {
			t.Errorf("native %v: AbsentHistogramForm(%s) = %q, %v; want %q, %v", c.native, c.name, base, absent, c.base, c.absent)
		}
	}
}

// TestHistogramSeries: a histogram's _bucket, _count and _sum, a summary's _count and _sum
// resolve to their metric; a summary has no _bucket, and a bare name or a counter is no series
// of one.
func TestHistogramSeries(t *testing.T) {
	m := metricsModel(false)
	for name, want := range map[string]string{
		"vllm:e2e_request_latency_seconds_bucket": "model_name",
		"vllm:e2e_request_latency_seconds_count":  "model_name",
		"vllm:e2e_request_latency_seconds_sum":    "model_name",
		"rpc_duration_seconds_count":              "service",
		"rpc_duration_seconds_sum":                "service",
		"rpc_duration_seconds_bucket":             "",
		"vllm:e2e_request_latency_seconds":        "",
		"vllm:request_success_total":              "",
		"vllm:request_success_total_count":        "",
	} {
		mt, ok := m.HistogramSeries(name)
		got := ""
		if ok {
			got = mt.Labels[0]
		}
		if got != want {
			t.Errorf("HistogramSeries(%s) found %v (labels %q), want the metric labelled %q", name, ok, got, want)
		}
	}
}
