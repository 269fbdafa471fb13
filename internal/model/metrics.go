package model

import "strings"

// Metric is a metric other than a DCGM field that rules may read.
type Metric struct {
	// Section is the catalog section whose rules read the metric ("" for the core).
	Section string `json:"section"`
	// Type is its Prometheus type (counter, gauge, histogram, summary).
	Type string `json:"type"`
	// Labels are the labels its series carry.
	Labels []string `json:"labels"`
	// Buckets are a histogram's bucket bounds (its le values but +Inf), ascending, as the
	// exporter defines them; empty where the catalog does not know them.
	Buckets []float64 `json:"buckets"`
	// Fanout is how many values each label beyond the label hierarchy (cluster, host, GPU,
	// pod) takes for one entity the series belong to (one GPU, one port): lint multiplies a
	// projection by the fan-out of every such label a query keeps. Empty: no such label.
	Fanout map[string]int `json:"fanout"`
}

// HistogramSeries resolves name_bucket, name_count and name_sum to the histogram or summary
// metric of the catalog they belong to.
func (m *Model) HistogramSeries(name string) (Metric, bool) {
	for _, suffix := range histogramSuffixes {
		base, ok := strings.CutSuffix(name, suffix)
		if !ok {
			continue
		}
		if mt, ok := m.Metrics[base]; ok && (mt.Type == "histogram" || (mt.Type == "summary" && suffix != "_bucket")) {
			return mt, true
		}
	}
	return Metric{}, false
}

// AbsentHistogramForm reports whether name reads a catalog histogram in the form the servers
// do not keep (prometheus.nativeHistograms): name_bucket, name_count or name_sum of a native
// histogram, or the bare name of a classic one. It returns the histogram's name.
func (m *Model) AbsentHistogramForm(name string) (string, bool) {
	if m.Metrics[name].Type == "histogram" {
		return name, !m.Prometheus.NativeHistograms
	}
	for _, suffix := range histogramSuffixes {
		if base, ok := strings.CutSuffix(name, suffix); ok && m.Metrics[base].Type == "histogram" {
			return base, m.Prometheus.NativeHistograms
		}
	}
	return "", false
}

// histogramSuffixes name the series of a classic histogram (a summary has no _bucket).
var histogramSuffixes = []string{"_bucket", "_count", "_sum"}

// Prometheus describes the Prometheus servers the rules run on.
type Prometheus struct {
	// Version is the release line the servers run (3.5, 3.13, 3.16): a rule that uses PromQL a
	// later release added, or that needs a flag on this one, is refused.
	Version string `json:"version"`
	// EnableFeatures are the server's --enable-feature flags: the experimental PromQL it
	// accepts (promql-experimental-functions for limitk and info, promql-binop-fill-modifiers
	// for fill).
	EnableFeatures []string `json:"enableFeatures"`
	// NativeHistograms says the servers keep the catalog's histograms as native histograms:
	// only the bare name has series, name_bucket, name_count and name_sum have none.
	NativeHistograms bool `json:"nativeHistograms"`
}
