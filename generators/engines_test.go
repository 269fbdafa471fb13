package generators

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

// TestAnEngineWithoutLatencyHistograms: a fleet serving with Triton only, whose profile has no
// latency histogram the SLOs can read, gets no latency SLO, burn-rate alert or latency panel
// (none could read anything), and its output generates; on the embedded catalog (the release
// gate, on vLLM's records, switched off) and on a team's catalog.
func TestAnEngineWithoutLatencyHistograms(t *testing.T) {
	for _, base := range []string{
		"(import 'gpuobs.libsonnet') { enabled+: { release: false } }",
		"(import 'adopter.jsonnet')",
	} {
		p := plantest.Plan(t, plantest.Catalog(t, base+" + { inference+:: { engines: ['triton'] } }"))
		for _, slo := range []string{"InferenceTTFT", "InferenceTPOT", "InferenceLatency"} {
			if _, ok := p.Model.SLOs[slo]; ok {
				t.Errorf("%s: Triton has no latency histogram, yet SLO %s is generated", base, slo)
			}
			if _, ok := p.Model.Alerts["SLO"+slo+"FastBurn"]; ok {
				t.Errorf("%s: Triton has no latency histogram, yet SLO%sFastBurn is generated", base, slo)
			}
		}
		for _, r := range p.Model.Dashboards["L4"].Rows {
			for _, panel := range r.Panels {
				if panel.Title == "Time to first token" || panel.Title == "Time per output token" || panel.Title == "End-to-end latency" {
					t.Errorf("%s: L4 shows %q with no engine's histogram to read", base, panel.Title)
				}
			}
		}
		if _, _, err := Run(p, Options{}); err != nil {
			t.Errorf("%s: %v", base, err)
		}
	}
}

// TestAnEngineSelectorNarrowsItsReads: a profile's selector (vLLM's workers behind a frontend
// left out, which would count each request twice) is on every read of that engine's series,
// the section vllm's and the release gate's rules included, and on no other engine's
// (trtllm-serve beside it); on the embedded catalog and on a team's catalog.
func TestAnEngineSelectorNarrowsItsReads(t *testing.T) {
	for _, base := range []string{"(import 'gpuobs.libsonnet')", "(import 'adopter.jsonnet')"} {
		p := plantest.Plan(t, plantest.Catalog(t, base+` + { inference+:: { engines: ['vllm', 'trtllm'], profiles+: { vllm+: { selector: 'namespace!="dynamo"' } } } }`))
		files, _, err := Run(p, Options{})
		if err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		var rules string
		for _, f := range files {
			if f.Path == output.RecordingRules {
				rules = string(f.Content)
			}
		}
		// Every read of vLLM's own series, the section vllm's records and alerts and the
		// release gate's included, is narrowed (the sleep-state filter only removes sleeping
		// engines' series: whose server it is does not matter).
		for _, expr := range p.RuleExprs() {
			n, err := promql.Parse(expr)
			if err != nil {
				t.Fatalf("%s: %v", expr, err)
			}
			promql.Walk(n, func(c *promql.Node, _ []*promql.Node) {
				vllm := strings.HasPrefix(c.Name, "vllm:") || c.Name == "http_requests_total" // its API server's requests
				if c.Kind != promql.Selector || !vllm || c.Name == "vllm:engine_sleep_state" {
					return
				}
				if !slices.Contains(c.Matchers, promql.Matcher{Name: "namespace", Type: "!=", Value: "dynamo"}) {
					t.Errorf("%s: %s reads %s without the vLLM profile's selector", base, expr, c.Name)
				}
			})
		}
		// The histogram's classic _count, or the native histogram by its bare name.
		for read, wanted := range map[string]bool{
			`rate\(vllm:time_to_first_token_seconds(_count)?\{namespace!="dynamo"\}\[5m\]\)`: true,
			`rate\(vllm:time_to_first_token_seconds(_count)?\[5m\]\)`:                        false,
			`rate\(trtllm_time_to_first_token_seconds(_count)?\[5m\]\)`:                      true,
		} {
			if regexp.MustCompile(read).MatchString(rules) != wanted {
				t.Errorf("%s: the rules read %s: %t, want %t", base, read, !wanted, wanted)
			}
		}
	}
}

// TestLatencyPanelsReadOneLadderEach: on a fleet of several engines, each quantile query of
// L4's latency panels reads one engine's histogram (two engines' ladders summed by le read no
// quantile right), and every served engine that has the quantity gets its own; on the
// embedded catalog and on a team's catalog.
func TestLatencyPanelsReadOneLadderEach(t *testing.T) {
	for _, base := range []string{"(import 'gpuobs.libsonnet')", "(import 'adopter.jsonnet')"} {
		p := plantest.Plan(t, plantest.Catalog(t, base+` + { thresholds+: { e2eLatencySeconds: 40 }, inference+:: { engines: ['vllm', 'sglang', 'trtllm'] } }`))
		panels := map[string][]string{
			"Time to first token":   {"vllm:time_to_first_token_seconds", "sglang:time_to_first_token_seconds", "trtllm_time_to_first_token_seconds"},
			"Time per output token": {"vllm:inter_token_latency_seconds", "sglang:inter_token_latency_seconds", "trtllm_time_per_output_token_seconds"},
			"End-to-end latency":    {"vllm:e2e_request_latency_seconds", "sglang:e2e_request_latency_seconds", "trtllm_e2e_request_latency_seconds"},
		}
		for _, r := range p.Model.Dashboards["L4"].Rows {
			for _, panel := range r.Panels {
				histograms, ok := panels[panel.Title]
				if !ok {
					continue
				}
				read := map[string]int{}
				for _, q := range panel.Queries {
					var reads []string
					for _, h := range histograms {
						if regexp.MustCompile(regexp.QuoteMeta(h) + `(_bucket)?[{\[]`).MatchString(q.Expr) {
							reads = append(reads, h)
						}
					}
					if len(reads) != 1 {
						t.Errorf("%s: %q query %q reads %q, want one engine's histogram", base, panel.Title, q.Expr, reads)
						continue
					}
					read[reads[0]]++
				}
				for _, h := range histograms {
					if read[h] != 3 {
						t.Errorf("%s: %q reads %s in %d quantiles, want 3 (p50, p95, p99)", base, panel.Title, h, read[h])
					}
				}
				delete(panels, panel.Title)
			}
		}
		for title := range panels {
			t.Errorf("%s: L4 has no panel %q", base, title)
		}
	}
}
