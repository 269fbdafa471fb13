package generators

import (
	"regexp"
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

// TestHistogramsReadInTheServersForm: every rule, panel, runbook query and promtool series of a
// catalog histogram is in the form prometheus.nativeHistograms says the servers keep: the bare
// name for native histograms, the _bucket, _count and _sum series for classic ones. On the
// embedded catalog (classic), the same switched to native, and the adopter's catalog (native,
// every label renamed, some sections off). docs/ lists the metrics by their catalog names.
func TestHistogramsReadInTheServersForm(t *testing.T) {
	t.Parallel()
	for _, config := range []string{"", "promtooltests/testdata/native-histograms.jsonnet", adopter} {
		p := plantest.Plan(t, config)
		native := p.Model.Prometheus.NativeHistograms
		if config != "" && !native {
			t.Fatalf("%s: the fixture keeps classic histograms", config)
		}
		files, _, err := Run(p, Options{RulesFormats: []string{"operator", "mimir"}})
		if err != nil {
			t.Fatal(err)
		}
		for name, mt := range p.Model.Metrics {
			if mt.Type != "histogram" {
				continue
			}
			form := regexp.MustCompile(regexp.QuoteMeta(name) + `(_bucket|_count|_sum)?([^a-z0-9_:]|$)`)
			reads := map[bool]int{}
			for _, f := range files {
				if strings.HasPrefix(f.Path, "docs/") {
					continue
				}
				for _, m := range form.FindAllSubmatch(f.Content, -1) {
					classic := len(m[1]) > 0
					if reads[classic]++; classic == native && reads[classic] == 1 {
						t.Errorf("%s: %s reads %s%s, which servers with nativeHistograms: %v do not have", config, f.Path, name, m[1], native)
					}
				}
			}
			if reads[!native] == 0 {
				t.Errorf("%s: nothing reads %s", config, name)
			}
		}
	}
}
