package lint

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/source"
)

// fuzzChecks reads data as path would be read and runs every check on it: nothing may panic,
// and every problem must point into the file.
func fuzzChecks(t *testing.T, p *plan.Plan, path string, data []byte) {
	// The fuzzer does not report an input that hangs: fail on one that takes seconds.
	timer := time.AfterFunc(5*time.Second, func() { panic(fmt.Sprintf("reading and checking took over 5 s: %q", data)) })
	defer timer.Stop()
	f := source.ReadFile(path, data)
	for _, p := range Run(NewInputs(p, []*source.File{f}), Checks()) {
		if p.Pos.Line < 1 || p.Pos.Col < 1 || p.Pos.Line > len(f.Lines)+1 {
			t.Fatalf("problem outside the file: %+v (%d lines)", p, len(f.Lines))
		}
	}
}

// FuzzReadRules starts from small rule files (a few hundred bytes each, so that mutations
// reach the readers and checks quickly): plain groups, a PrometheusRule manifest, aliases and
// merge keys, several documents, a deep expression.
func FuzzReadRules(f *testing.F) {
	p := loadPlan(f)
	for _, name := range []string{"testdata/rules.yaml", "testdata/operator.yaml"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("groups:\n  - name: g\n    rules:\n      - &r\n        record: node:x:sum\n        expr: sum by (cluster) (rate(DCGM_FI_DEV_ECC_DBE_VOL_TOTAL[5m]))\n      - *r\n      - <<: *r\n        alert: GPUX\n        for: 5m\n        labels: {severity: page}\n"))
	f.Add([]byte("---\ngroups: []\n---\nkind: PrometheusRule\nspec:\n  groups:\n    - name: g\n      rules:\n        - alert: A\n          expr: |\n            max by (gpu) (DCGM_FI_DEV_GPU_TEMP) > 85\n"))
	f.Add([]byte("groups:\n  - name: g\n    rules:\n      - record: a:b:c\n        expr: " + strings.Repeat("(", 300) + "up" + strings.Repeat(")", 300) + "\n"))
	// A PrometheusRule for Loki's ruler: expressions that are not PromQL.
	f.Add([]byte("kind: PrometheusRule\nmetadata: {name: logs}\nspec:\n  groups:\n    - name: logs\n      rules:\n        - alert: Errors\n          expr: sum(count_over_time({app=\"gpu\"} |= \"error\" [5m])) > 0\n        - record: a.b\n          expr: rate(\n"))
	// A ConfigMap's rule files, one that does not parse.
	f.Add([]byte("kind: ConfigMap\ndata:\n  a.rules: |\n    groups:\n      - name: g\n        rules:\n          - alert: A\n            expr: up == 0\n  b.yaml: |\n    groups: [\n"))
	for name, src := range brokenInputs {
		if name[len(name)-4:] == "yaml" {
			f.Add([]byte(src))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzChecks(t, p, "fuzz.yaml", data) })
}

func FuzzReadDashboard(f *testing.F) {
	p := loadPlan(f)
	data, err := os.ReadFile("testdata/l1.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	for name, src := range brokenInputs {
		if name[len(name)-4:] == "json" {
			f.Add([]byte(src))
		}
	}
	f.Add([]byte(dashboard("L2", "sum by (cluster) (DCGM_FI_DEV_FB_USED)", "rate(DCGM_FI_DEV_GPU_TEMP[5m])")))
	// UTF-16 escapes as json.dump writes them: a pair, a lone high and a lone low surrogate,
	// an escaped backslash, an escape cut short.
	f.Add([]byte(`{"title": "\ud83d\udfe2 \ud83d x \udfe2 \\ud83d", "panels": [], "tags": ["\ud83`))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzChecks(t, p, "fuzz.json", data) })
}
