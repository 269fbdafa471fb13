package promql

import "testing"

// TestSubstituteGrafanaVariables: every query shape dashboards in the wild use parses.
func TestSubstituteGrafanaVariables(t *testing.T) {
	for query, want := range map[string]string{
		`rate(x{job="$job"}[$__rate_interval])`:                  `rate(x{job="$job"}[5m])`,
		`rate(x[$interval])`:                                     `rate(x[5m])`,
		`max_over_time(x[${window}:$resolution])`:                `max_over_time(x[5m:5m])`,
		`x offset $shift`:                                        `x offset 5m`,
		`increase(x[$__range]) / ($__range_ms / 1000)`:           `increase(x[5m]) / (300000 / 1000)`,
		`sum by ($group) (x) * $__interval_ms`:                   `sum by (group) (x) * 300000`,
		`x{instance=~"$node:$port"}`:                             `x{instance=~"$node:$port"}`,
		`sum(rate(x[$__interval])) / count(x) > $__range_s`:      `sum(rate(x[5m])) / count(x) > 300`,
		`histogram_quantile(0.9, sum by (le) (rate(x[[[iv]]])))`: `histogram_quantile(0.9, sum by (le) (rate(x[5m])))`,
	} {
		got, _ := SubstituteGrafanaVariables(query, nil)
		if got != want {
			t.Errorf("%s\n  = %s\nwant %s", query, got, want)
			continue
		}
		if _, err := Parse(got); err != nil {
			t.Errorf("%s: %v", got, err)
		}
	}
}
