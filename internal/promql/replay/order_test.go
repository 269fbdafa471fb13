package replay

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/prometheus/storage"
)

// TestEvaluationOrder: groups are evaluated after the groups they read, records no alert
// reads are left out, and a window of steps is used only when no rule reads what a rule after
// it writes.
func TestEvaluationOrder(t *testing.T) {
	for _, c := range []struct {
		name, rules string
		order       []string
		windowed    bool
	}{
		{"a group reads records written in a later group", `
  - name: alerts
    rules:
      - {alert: Hot, expr: "gpu:temp:max > 85"}
  - name: records
    rules:
      - {record: gpu:temp:max, expr: "max by (gpu) (DCGM_FI_DEV_GPU_TEMP)"}
      - {record: gpu:power:max, expr: "max by (gpu) (DCGM_FI_DEV_POWER_USAGE)"}
`, []string{"gpu:temp:max", "Hot"}, true},
		{"an alert reads another group's alert", `
  - name: meta
    rules:
      - {alert: ManyHot, expr: "count(ALERTS{alertname=\"Hot\"}) > 3"}
  - name: alerts
    rules:
      - {alert: Hot, expr: "DCGM_FI_DEV_GPU_TEMP > 85"}
`, []string{"Hot", "ManyHot"}, true},
		{"a rule reads a record after it in its own group", `
  - name: gpu
    rules:
      - {alert: Hot, expr: "gpu:temp:max > 85"}
      - {record: gpu:temp:max, expr: "max by (gpu) (DCGM_FI_DEV_GPU_TEMP)"}
`, []string{"Hot", "gpu:temp:max"}, false},
		{"a record reads itself", `
  - name: gpu
    rules:
      - {record: gpu:temp:max, expr: "max by (gpu) (DCGM_FI_DEV_GPU_TEMP) or gpu:temp:max offset 1m"}
      - {alert: Hot, expr: "gpu:temp:max > 85"}
`, []string{"gpu:temp:max", "Hot"}, false},
		{"a selector names no metric", `
  - name: gpu
    rules:
      - {alert: Hot, expr: "{gpu=\"0\"} > 85"}
`, []string{"Hot"}, false},
		{"two groups read each other", `
  - name: a
    rules:
      - {record: a:x, expr: "b:x or vector(1)"}
  - name: b
    rules:
      - {record: b:x, expr: "a:x"}
      - {alert: X, expr: "b:x > 1"}
`, []string{"a:x", "b:x", "X"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "rules.yaml")
			if err := os.WriteFile(path, []byte("groups:"+c.rules), 0o644); err != nil {
				t.Fatal(err)
			}
			groups, err := LoadGroups(storage.QueryableFunc(nil), nil, time.Minute, path)
			if err != nil {
				t.Fatal(err)
			}
			order, windowed := evaluationPlan(groups)
			var names []string
			for _, e := range order {
				names = append(names, e.rule.Name())
			}
			if !slices.Equal(names, c.order) {
				t.Errorf("evaluation order %v, want %v", names, c.order)
			}
			if windowed != c.windowed {
				t.Errorf("evaluated in windows of steps: %v, want %v", windowed, c.windowed)
			}
		})
	}
}

// TestOrderingIsLinear: 3,000 groups, each reading the record of the group written after it
// (a chain written last-first), are ordered in well under a second, last group first, and
// each is kept (the alert at the chain's end reads them all).
func TestOrderingIsLinear(t *testing.T) {
	const n = 3000
	var b strings.Builder
	b.WriteString("groups:\n  - name: g0\n    rules:\n      - {alert: End, expr: \"r:1 > 0\"}\n")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "  - name: g%d\n    rules:\n      - {record: \"r:%d\", expr: \"r:%d\"}\n", i, i, i+1)
	}
	path := filepath.Join(t.TempDir(), "rules.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	groups, err := LoadGroups(storage.QueryableFunc(nil), nil, time.Minute, path)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	order, windowed := evaluationPlan(groups)
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("ordering %d groups took %s", n, took)
	}
	if len(order) != n || order[0].rule.Name() != fmt.Sprintf("r:%d", n-1) || order[n-1].rule.Name() != "End" || !windowed {
		t.Errorf("%d rules, first %s, last %s, windowed %v", len(order), order[0].rule.Name(), order[len(order)-1].rule.Name(), windowed)
	}
}
