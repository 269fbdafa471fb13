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
	// What each phase adds a minute to each quantity promtool is told of, as it is written:
	// native, the observations in each bucket, their count, their sum; classic, the
	// observations up to each bound (the last, every observation), then their sum. The first
	// phase starts from an empty histogram; each later one a minute after the one before.
	steps := make([][]float64, len(h.Phases))
	times := make([]int, len(h.Phases))
	for i, p := range h.Phases {
		state := append(append([]float64(nil), p.Counts...), p.Sum)
		quantities := cumulative(state)
		if native {
			quantities = append(state[:buckets:buckets], quantities[buckets-1], p.Sum)
		}
		steps[i], times[i] = asWritten(quantities), p.Minutes-1
	}
	times[0]++
	starts := continued(steps, times)
	if native {
		var phases []string
		for i := range h.Phases {
			phases = append(phases, nativeSample(h.Bounds, starts[i])+"+"+nativeSample(h.Bounds, steps[i])+"x"+strconv.Itoa(times[i]))
		}
		return []CaseSeries{{Metric: metric, Values: strings.Join(phases, " "), Labels: labels}}
	}
	// The notation of quantity q: the observations up to bound q (the last every observation),
	// or the sum after them.
	notation := func(q int) string {
		var phases []string
		for i := range h.Phases {
			phases = append(phases, number(starts[i][q])+"+"+number(steps[i][q])+"x"+strconv.Itoa(times[i]))
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

// continued is each phase's first sample, a minute of its steps after where the phase before
// left each quantity (the first phase starts at 0). Promtool expands a+bxn by adding b to a,
// n times, in floating point, and a rate reads any fall as a counter reset: a start worked
// out by multiplication (99.7 × 30 is not thirty 99.7s added up) can fall a hair below that
// sum, so the sum is taken as promtool takes it.
func continued(steps [][]float64, times []int) [][]float64 {
	starts := [][]float64{make([]float64, len(steps[0]))}
	for i := 1; i < len(steps); i++ {
		next := append([]float64(nil), starts[i-1]...)
		for q := range next {
			for range times[i-1] {
				next[q] += steps[i-1][q]
			}
			next[q] += steps[i][q]
		}
		starts = append(starts, next)
	}
	return starts
}

// nativeSample is a native histogram in promtool notation, from its observations in each
// bucket, their count and sum.
func nativeSample(bounds, quantities []float64) string {
	var b, c []string
	for _, x := range bounds {
		b = append(b, promtoolNumber(x))
	}
	for _, x := range quantities[:len(bounds)+1] {
		c = append(c, number(x))
	}
	return fmt.Sprintf("{{schema:-53 sum:%s count:%s custom_values:[%s] buckets:[%s]}}",
		number(quantities[len(bounds)+2]), number(quantities[len(bounds)+1]), strings.Join(b, " "), strings.Join(c, " "))
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

// asWritten is each quantity as promtool reads it back from promtoolNumber.
func asWritten(quantities []float64) []float64 {
	out := make([]float64, len(quantities))
	for i, x := range quantities {
		out[i], _ = strconv.ParseFloat(promtoolNumber(x), 64)
	}
	return out
}

// number is a quantity in the fewest digits promtool reads back as the same float.
func number(x float64) string {
	return strconv.FormatFloat(x, 'f', -1, 64)
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
