package promql

import (
	"strings"
	"testing"
)

// TestSubstituteGrafanaVariables: every query shape dashboards in the wild use parses.
func TestSubstituteGrafanaVariables(t *testing.T) {
	for query, want := range map[string]string{
		`rate(x{job="$job"}[$__rate_interval])`:                         `rate(x{job="$job"}[5m])`,
		`rate(x[$interval])`:                                            `rate(x[5m])`,
		`max_over_time(x[${window}:$resolution])`:                       `max_over_time(x[5m:5m])`,
		`x offset $shift`:                                               `x offset 5m`,
		`increase(x[$__range]) / ($__range_ms / 1000)`:                  `increase(x[5m]) / (300000 / 1000)`,
		`sum by ($group) (x) * $__interval_ms`:                          `sum by (group) (x) * 300000`,
		`x{instance=~"$node:$port"}`:                                    `x{instance=~"$node:$port"}`,
		`sum(rate(x[$__interval])) / count(x) > $__range_s`:             `sum(rate(x[5m])) / count(x) > 300`,
		`histogram_quantile(0.9, sum by (le) (rate(x[[[iv]]])))`:        `histogram_quantile(0.9, sum by (le) (rate(x[5m])))`,
		"# we're ingesting\nsum(rate(x{ns=\"$ns\"}[$__rate_interval]))": "# we're ingesting\nsum(rate(x{ns=\"$ns\"}[5m]))",
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

// TestTemplateLabels: the alert labels a template reads: $labels.x, .Labels.x where dot is the
// alert, index $labels "x" and $.Labels.x; inside range and with, dot is the element (a sample
// of a query), so its .Labels are not the alert's.
func TestTemplateLabels(t *testing.T) {
	for text, want := range map[string]string{
		`{{ $labels.gpu }} {{ .Labels.UUID }} {{ index $labels "Hostname" }}`:                   "Hostname,UUID,gpu",
		`{{ range query "topk(3, up)" }}{{ .Labels.instance }} {{ $labels.gpu }}{{ end }}`:      "gpu",
		`{{ with query "up" }}{{ (. | first).Labels.job }}{{ else }}{{ .Labels.pod }}{{ end }}`: "pod",
		`{{ range query "up" }}{{ $.Labels.cluster }}{{ end }}`:                                 "cluster",
	} {
		got, err := TemplateLabels(text)
		if err != nil || strings.Join(got, ",") != want {
			t.Errorf("%s: %v %v, want %s", text, got, err, want)
		}
	}
}
