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

// TestWorkersBehindAFrontendKeepTheirHealth: TensorRT-LLM workers behind Dynamo's frontend,
// given the role behindFrontend, are left out of every record that counts a client's request
// (its latencies, requests, tokens and running batch: the frontend's already) and read by
// the KV-cache and queue alerts like any server; on the embedded catalog and on a team's.
func TestWorkersBehindAFrontendKeepTheirHealth(t *testing.T) {
	// Dynamo's ladders set to have the thresholds as bounds (DYN_METRICS_ITL_* and
	// DYN_METRICS_REQUEST_DURATION_*, as in the engines fixture).
	role := `local engine = import 'lib/engine.libsonnet'; { thresholds+: { e2eLatencySeconds: 40 }, inference+:: { engines: ['dynamo', 'trtllm'], profiles+: {
		dynamo+: { interTokenLatency+: { buckets: [0, 0.01, 0.1, 1] }, requestLatency+: { buckets: [0, 10, 40, 160] } },
		trtllm+: { roles+: { worker: engine.behindFrontend(engine.read('trtllm_request_success_total', 'namespace="dynamo"'), { namespace: 'dynamo' }) } },
	} } }`
	leftOut := regexp.MustCompile(`^trtllm_(time_to_first_token_seconds|time_per_output_token_seconds|e2e_request_latency_seconds|request_success_total|request_error_total|generation_tokens_total|num_requests_running)`)
	health := regexp.MustCompile(`^trtllm_(kv_cache_utilization|num_paused_requests|num_requests_waiting)$`)
	for _, base := range []string{"(import 'gpuobs.libsonnet')", "(import 'adopter.jsonnet')"} {
		p := plantest.Plan(t, plantest.Catalog(t, base+" + "+role))
		seen := map[string]bool{}
		for i, expr := range p.RuleExprs() {
			record := i < len(p.Recorded)
			n, err := promql.Parse(expr)
			if err != nil {
				t.Fatalf("%s: %v", expr, err)
			}
			promql.Walk(n, func(c *promql.Node, parents []*promql.Node) {
				if c.Kind != promql.Selector || !strings.HasPrefix(c.Name, "trtllm_") || slices.Contains(c.Matchers, promql.Matcher{Name: "namespace", Type: "=", Value: "dynamo"}) {
					return
				}
				workersLeft := slices.ContainsFunc(parents, func(a *promql.Node) bool {
					return a.Kind == promql.Binary && a.Name == "unless" && strings.Contains(expr[a.Start:a.End], `trtllm_request_success_total{namespace="dynamo"}`)
				})
				switch {
				case record && leftOut.MatchString(c.Name) && !workersLeft:
					t.Errorf("%s: a record reads %s of the workers behind the frontend: %s", base, c.Name, expr)
				case health.MatchString(c.Name) && workersLeft:
					t.Errorf("%s: %s is read without the workers behind the frontend: %s", base, c.Name, expr)
				}
				seen[strings.TrimSuffix(c.Name, "_bucket")] = true // classic or native histograms
			})
		}
		for _, name := range []string{"trtllm_time_to_first_token_seconds", "trtllm_request_success_total", "trtllm_generation_tokens_total", "trtllm_kv_cache_utilization", "trtllm_num_requests_waiting"} {
			if !seen[name] {
				t.Errorf("%s: no rule reads %s", base, name)
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
