package model

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// HistogramSeries writes out the series of a histogram scenario in promtool notation, as
// the Prometheus servers keep it: native, one series with custom buckets (as
// convert_classic_histograms_to_nhcb makes of the classic one); classic, a cumulative _bucket
// series per bound and +Inf, _count and _sum.
func HistogramSeries(metric string, labels map[string]string, h HistogramScenario, native bool) []CaseSeries {
	buckets := len(h.Bounds) + 1
	// The histogram's state: observations in each bucket, then the sum. What each phase adds
	// a minute, and the state at the end of each phase (from empty).
	perMinute := make([][]float64, len(h.Phases))
	ends := [][]float64{make([]float64, buckets+1)}
	for i, p := range h.Phases {
		perMinute[i] = append(append([]float64(nil), p.Counts...), p.Sum)
		ends = append(ends, add(ends[i], scale(float64(p.Minutes), perMinute[i])))
	}
	// Each phase's first sample and what each minute adds, and how many minutes follow.
	first := make([][]float64, len(h.Phases))
	times := make([]int, len(h.Phases))
	for i, p := range h.Phases {
		first[i], times[i] = add(ends[i], perMinute[i]), p.Minutes-1
		if i == 0 {
			first[i], times[i] = ends[0], p.Minutes
		}
	}
	if native {
		var phases []string
		for i := range h.Phases {
			phases = append(phases, nativeSample(h.Bounds, first[i])+"+"+nativeSample(h.Bounds, perMinute[i])+"x"+strconv.Itoa(times[i]))
		}
		return []CaseSeries{{Metric: metric, Values: strings.Join(phases, " "), Labels: labels}}
	}
	starts, steps := make([][]float64, len(h.Phases)), make([][]float64, len(h.Phases))
	for i := range h.Phases {
		starts[i], steps[i] = cumulative(first[i]), cumulative(perMinute[i])
	}
	// The notation of quantity q: the observations up to bound q (the last every observation),
	// or the sum after them.
	notation := func(q int) string {
		var phases []string
		for i := range h.Phases {
			phases = append(phases, promtoolNumber(starts[i][q])+"+"+promtoolNumber(steps[i][q])+"x"+strconv.Itoa(times[i]))
		}
		return strings.Join(phases, " ")
	}
	with := func(le string) map[string]string {
		out := map[string]string{"le": le}
		for k, v := range labels {
			out[k] = v
		}
		return out
	}
	var series []CaseSeries
	for i, b := range h.Bounds {
		le := promtoolNumber(b)
		if b == math.Floor(b) {
			le += h.Whole
		}
		series = append(series, CaseSeries{Metric: metric + "_bucket", Values: notation(i), Labels: with(le)})
	}
	return append(series,
		CaseSeries{Metric: metric + "_bucket", Values: notation(buckets - 1), Labels: with("+Inf")},
		CaseSeries{Metric: metric + "_count", Values: notation(buckets - 1), Labels: labels},
		CaseSeries{Metric: metric + "_sum", Values: notation(buckets), Labels: labels},
	)
}

// nativeSample is a state as a native histogram in promtool notation.
func nativeSample(bounds, state []float64) string {
	counts := cumulative(state)
	var b, c []string
	for _, x := range bounds {
		b = append(b, promtoolNumber(x))
	}
	for _, x := range state[:len(bounds)+1] {
		c = append(c, promtoolNumber(x))
	}
	return fmt.Sprintf("{{schema:-53 sum:%s count:%s custom_values:[%s] buckets:[%s]}}",
		promtoolNumber(state[len(bounds)+1]), promtoolNumber(counts[len(bounds)]), strings.Join(b, " "), strings.Join(c, " "))
}

// cumulative is a state's observations up to each bucket (the last is every observation),
// then its sum.
func cumulative(state []float64) []float64 {
	out := make([]float64, len(state))
	sum := 0.0
	for i := range state[:len(state)-1] {
		sum += state[i]
		out[i] = sum
	}
	out[len(state)-1] = state[len(state)-1]
	return out
}

func add(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] + b[i]
	}
	return out
}

func scale(k float64, a []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = k * a[i]
	}
	return out
}

// promtoolNumber is a count or a sum to a millionth with the fewest decimals (100 × (1 -
// 0.216) reads 78.4).
func promtoolNumber(x float64) string {
	millionths := math.Round(x * 1e6)
	if millionths < 0 || millionths >= 1e15 {
		return strconv.FormatFloat(millionths/1e6, 'f', -1, 64)
	}
	whole := math.Floor(millionths / 1e6)
	fraction := strings.TrimRight(fmt.Sprintf("%06.0f", millionths-whole*1e6), "0")
	if fraction == "" {
		return strconv.FormatFloat(whole, 'f', -1, 64)
	}
	return strconv.FormatFloat(whole, 'f', -1, 64) + "." + fraction
}
