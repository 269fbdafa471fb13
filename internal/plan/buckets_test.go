package plan_test

import (
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
	"github.com/gpuobs/gpuobs/internal/testutil/testcatalog"
)

// TestThresholdsOffTheLadderAreRefused: a latency threshold that is not a bound of the engine's
// bucket ladder makes the SLO's good-events selector read nothing (every request bad).
// Generation refuses it by the SLO's catalog path and the threshold's, naming the nearest
// bounds; a bound, or servers that keep native histograms (histogram_fraction interpolates),
// pass. On the embedded catalog and on the adopter's (labels and teams renamed, sections off,
// its servers switched to classic histograms).
func TestThresholdsOffTheLadderAreRefused(t *testing.T) {
	for _, base := range []string{
		"(import 'gpuobs.libsonnet')",
		"(import 'adopter.jsonnet') { prometheus+: { nativeHistograms: false } }",
	} {
		build := func(override string) error {
			_, err := plan.Build(testcatalog.Model(t, plantest.Catalog(t, base+" "+override)))
			return err
		}
		// refused checks that a catalog is refused with every text of wants, and not for the
		// histogram named in spared (where not "").
		refused := func(what, override, spared string, wants ...string) {
			err := build(override)
			for _, want := range wants {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%s, %s: Build error %v, want %q", base, what, err, want)
				}
			}
			if spared != "" && err != nil && strings.Contains(err.Error(), "bucket of "+spared) {
				t.Errorf("%s, %s: %s has the bound, yet %v", base, what, spared, err)
			}
		}
		refused("TTFT threshold 0.4", "{ thresholds+: { ttftSeconds: 0.4 } }", "",
			"slos.InferenceTTFT (recording rule slo:sli_bad_events:rate5m) (thresholds.ttftSeconds is 0.4)",
			`le=~"0\\.4" selects no bucket of vllm:time_to_first_token_seconds`,
			"the nearest bounds are 0.25, 0.5")
		// SGLang served beside vLLM: 0.5 s is a bound of vLLM's ladder, not of SGLang's.
		refused("SGLang served, TTFT threshold 0.5", "{ thresholds+: { ttftSeconds: 0.5 }, inference+:: { engines+: ['sglang'] } }", "vllm:time_to_first_token_seconds",
			"slos.InferenceTTFT (recording rule slo:sli_bad_events:rate5m) (thresholds.ttftSeconds is 0.5)",
			`le=~"0\\.5" selects no bucket of sglang:time_to_first_token_seconds`,
			"the nearest bounds are 0.4, 0.6")
		if err := build("{ thresholds+: { ttftSeconds: 0.5 } }"); err != nil {
			t.Errorf("%s, TTFT threshold 0.5 (a bound): %v", base, err)
		}
		if err := build("{ thresholds+: { ttftSeconds: 0.4 }, prometheus+: { nativeHistograms: true } }"); err != nil {
			t.Errorf("%s, TTFT threshold 0.4 on native histograms: %v", base, err)
		}
		refused("a ladder that descends", "{ metrics+: { 'vllm:time_to_first_token_seconds'+: { buckets: [1, 0.5] } } }", "",
			"metrics.vllm:time_to_first_token_seconds.buckets: 1, 0.5 do not ascend")
	}
}
