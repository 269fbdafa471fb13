package plan

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gpuobs/gpuobs/internal/model"
)

// Builtin reports whether Prometheus itself writes a metric (beyond the catalog's metrics,
// which declare ALERTS and up).
func Builtin(name string) bool { return name == "ALERTS_FOR_STATE" }

// checkMetricsKnown fails on every metric that an alert, a recording rule or a dashboard
// reads (readBy: metric to the catalog paths reading it) and that nothing exports: not a
// catalog field, not a catalog metric (or a histogram's series), not recorded by any rule.
// Such a rule or panel would stay empty (an alert never fires, its promtool test fails); the
// error names the closest known metric.
func checkMetricsKnown(m *model.Model, recorded []Recorded, readBy map[string][]string) error {
	known := map[string]bool{}
	for name := range m.Fields {
		known[name] = true
	}
	for name := range m.Metrics {
		known[name] = true
	}
	for _, r := range recorded {
		known[r.Name] = true
	}
	var errs []error
	for _, name := range model.SortedKeys(readBy) {
		if histogram, absent := m.AbsentHistogramForm(name); absent {
			for _, path := range readBy[name] {
				errs = append(errs, fmt.Errorf("%s reads %s, %s", path, name, HistogramFormAdvice(m, histogram)))
			}
			continue
		}
		if _, histogram := m.HistogramSeries(name); known[name] || histogram || Builtin(name) {
			continue
		}
		for _, path := range readBy[name] {
			errs = append(errs, fmt.Errorf("%s reads %s, which no field, metric or recording rule of the catalog provides%s", path, name, suggestion(name, known)))
		}
	}
	return errors.Join(errs...)
}

// HistogramFormAdvice says why a read of a catalog histogram in the form the servers do not
// keep (model.AbsentHistogramForm) has no series, and what to read instead.
func HistogramFormAdvice(m *model.Model, histogram string) string {
	if m.Prometheus.NativeHistograms {
		return fmt.Sprintf("a classic series of %s, which servers keeping native histograms (prometheus.nativeHistograms) do not have: read the histogram itself, as histogram_count, histogram_sum, histogram_fraction or histogram_quantile of rate(%s[5m])", histogram, histogram)
	}
	return fmt.Sprintf("the native form of the histogram %s, which servers keeping classic histograms do not have: read %s_bucket, %s_count or %s_sum, or set prometheus.nativeHistograms: true if your servers keep native histograms", histogram, histogram, histogram, histogram)
}

// suggestion names the known metric closest to name, if one is close enough to be a typo.
func suggestion(name string, known map[string]bool) string {
	best := Closest(name, model.SortedKeys(known), len(name)/4+1)
	if best == "" {
		return "; declare it in metrics (with its type and labels) if your Prometheus has it"
	}
	return fmt.Sprintf("; did you mean %s?", best)
}

// Closest is the candidate nearest to name, at most maxDistance edits away (a typo), or "".
func Closest(name string, candidates []string, maxDistance int) string {
	best, bestDistance := "", maxDistance+1
	for _, k := range candidates {
		if d := editDistance(strings.ToLower(name), strings.ToLower(k)); d < bestDistance && k != name {
			best, bestDistance = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between two strings, by bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
