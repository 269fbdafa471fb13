package plan

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/promql"
)

// BucketMiss is a selector of a classic histogram's buckets whose le matcher selects none of
// the bounds the catalog knows the histogram to have: it reads nothing, and a ratio over it
// (an SLO's good events, a share within a threshold) reads every observation as above. Or one
// whose equality or regular-expression matcher selects several bounds (1.0 unescaped matches
// 100 and 160): the sum over them counts observations more than once.
type BucketMiss struct {
	// Histogram is the catalog histogram, Le the matcher's value.
	Histogram, Le string
	// Bounds is the histogram's ladder; Selected, where several, the bounds the matcher selects.
	Bounds, Selected []float64
}

// MissedBucket reports a selector of name_bucket whose le matcher (= or =~) selects no bound
// of the histogram's ladder (metrics.<name>.buckets, spelt as the exporter writes a bound or
// as Prometheus 3 stores it), nor +Inf, or more than one. Histograms without a known ladder,
// native ones and matchers holding a dashboard variable are not judged.
func MissedBucket(m *model.Model, n *promql.Node) (BucketMiss, bool) {
	base, ok := strings.CutSuffix(n.Name, "_bucket")
	mt := m.Metrics[base]
	if !ok || mt.Type != "histogram" || len(mt.Buckets) == 0 || m.Prometheus.NativeHistograms {
		return BucketMiss{}, false
	}
	for _, matcher := range n.Matchers {
		if matcher.Name != "le" || (matcher.Type != "=" && matcher.Type != "=~") || strings.Contains(matcher.Value, "$") {
			continue
		}
		selected := selectedBounds(matcher, mt.Buckets)
		if len(selected) == 0 && !matcher.Matches("+Inf") || len(selected) > 1 {
			miss := BucketMiss{Histogram: base, Le: matcher.Value, Bounds: mt.Buckets}
			if len(selected) > 1 {
				miss.Selected = selected
			}
			return miss, true
		}
	}
	return BucketMiss{}, false
}

// selectedBounds are the bounds a matcher selects in one of their spellings: the shortest
// decimal (0.5, 1) and the float form of a whole number (1.0) that Python's client writes and
// Prometheus 3 stores.
func selectedBounds(matcher promql.Matcher, bounds []float64) []float64 {
	var out []float64
	for _, b := range bounds {
		plain := strconv.FormatFloat(b, 'f', -1, 64)
		if matcher.Matches(plain) || (b == math.Trunc(b) && matcher.Matches(plain+".0")) {
			out = append(out, b)
		}
	}
	return out
}

// Advice says what the selector misses and names the bounds nearest the value it asked for,
// or which bounds it selects together.
func (b BucketMiss) Advice() string {
	if len(b.Selected) > 1 {
		return fmt.Sprintf("le=~%q selects the buckets of %s together (%s), so a sum over it counts observations more than once: escape the points (\\\\.) or match one bound", b.Le, b.Histogram, bounds(b.Selected))
	}
	return fmt.Sprintf("le=~%q selects no bucket of %s, so it reads nothing and every observation counts as above it: %s; make the threshold one of its bounds", b.Le, b.Histogram, b.nearest())
}

// nearest names the bounds either side of the value the matcher asked for (its first
// alternative, read as a number), or the whole ladder where it is not a number.
func (b BucketMiss) nearest() string {
	v, err := strconv.ParseFloat(firstValue(b.Le), 64)
	if err != nil {
		return "its bounds are " + bounds(b.Bounds)
	}
	i, _ := slices.BinarySearch(b.Bounds, v)
	switch {
	case i == 0:
		return "its lowest bound is " + bounds(b.Bounds[:1])
	case i == len(b.Bounds):
		return "its highest bound is " + bounds(b.Bounds[i-1:])
	}
	return "the nearest bounds are " + bounds(b.Bounds[i-1:i+1])
}

// firstValue is the first alternative of an le matcher's value with its escaped points
// unescaped and an optional ".0" dropped: 1 of 1|1\.0 or 1(\.0)?, 0.5 of 0\.5.
func firstValue(le string) string {
	first, _, _ := strings.Cut(le, "|")
	return strings.ReplaceAll(strings.TrimSuffix(first, `(\.0)?`), `\.`, ".")
}

// bounds lists bucket bounds in their shortest decimal form.
func bounds(bs []float64) string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = strconv.FormatFloat(b, 'f', -1, 64)
	}
	return strings.Join(out, ", ")
}

// checkBucketBounds fails on every bucket selector of a rule or panel that selects no bound of
// its histogram's ladder (MissedBucket), by the catalog path of what reads it and, where a
// catalog threshold has the value asked for, that threshold's path; and on a ladder that does
// not ascend.
func checkBucketBounds(m *model.Model, rs []read) []error {
	var errs []error
	seen := map[string]bool{}
	for _, name := range model.SortedKeys(m.Metrics) {
		if bs := m.Metrics[name].Buckets; !slices.IsSorted(bs) || len(slices.Compact(slices.Clone(bs))) != len(bs) {
			errs = append(errs, fmt.Errorf("metrics.%s.buckets: %s do not ascend; list the bounds as the exporter does, lowest first", name, bounds(bs)))
		}
	}
	for _, r := range rs {
		promql.Walk(r.expr, func(c *promql.Node, _ []*promql.Node) {
			if c.Kind != promql.Selector {
				return
			}
			if miss, ok := MissedBucket(m, c); ok {
				if err := fmt.Sprintf("%s%s: %s", r.what, thresholdOf(m, miss.Histogram, miss.Le), miss.Advice()); !seen[err] {
					seen[err] = true
					errs = append(errs, errors.New(err))
				}
			}
		})
	}
	return errs
}

// thresholdOf names the catalog thresholds whose value a matcher asks for, as
// " (thresholds.name is value)", or "" where none has it. Where several have it, those named for
// the histogram's unit (ttftSeconds for a _seconds histogram) are named, or all of them.
func thresholdOf(m *model.Model, histogram, le string) string {
	first := firstValue(le)
	v, err := strconv.ParseFloat(first, 64)
	if err != nil {
		return ""
	}
	var names, inUnit []string
	for _, name := range model.SortedKeys(m.Thresholds) {
		if m.Thresholds[name] == v {
			names = append(names, "thresholds."+name)
			if strings.HasSuffix(histogram, "_seconds") && strings.HasSuffix(name, "Seconds") {
				inUnit = append(inUnit, "thresholds."+name)
			}
		}
	}
	if len(inUnit) > 0 {
		names = inUnit
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf(" (%s is %s)", strings.Join(names, " or "), first)
}
