package source

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestAliasesAndMergeKeys: a rule given as an alias is read, and a merge key supplies the
// fields it merges (the rule's own keys win).
func TestAliasesAndMergeKeys(t *testing.T) {
	src := `groups:
  - name: g
    rules:
      - &rule
        record: node:x:sum
        expr: sum by (cluster) (up)
      - *rule
      - <<: *rule
        record: node:y:sum
`
	f := ReadRules("r.yaml", []byte(src))
	if f.Err != nil || len(f.Rules) != 3 {
		t.Fatalf("read %d rules (%v), want 3", len(f.Rules), f.Err)
	}
	for i, want := range []string{"node:x:sum", "node:x:sum", "node:y:sum"} {
		r := f.Rules[i]
		if r.Record != want || r.Expr.Node == nil || r.Expr.Text != "sum by (cluster) (up)" {
			t.Errorf("rule %d: %s %q (%v), want %s with the anchor's expr", i, r.Record, r.Expr.Text, r.Expr.Err, want)
		}
	}
	loop := "a: &a\n  <<: *a\n"
	if f := ReadRules("loop.yaml", []byte(loop)); len(f.Rules) != 0 {
		t.Errorf("a self-merging document yields %d rules", len(f.Rules))
	}
}

// TestBadBytesAreReportedOnTheirLine: bytes that are not UTF-8 point at their own line.
func TestBadBytesAreReportedOnTheirLine(t *testing.T) {
	src := "groups:\n  - name: g\n    rules:\n      - record: a\xff\n        expr: up\n"
	f := ReadRules("r.yaml", []byte(src))
	if f.Err == nil || f.Err.Pos != (Pos{Line: 4, Col: 18}) {
		t.Fatalf("error %+v, want one at 4:18", f.Err)
	}
}

// TestMergeKeysCannotMultiply: merge keys that each merge the previous mapping twice (a
// billion laughs) are read in bounded time.
func TestMergeKeysCannotMultiply(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 {x: 1, y: 2}\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "a%d: &a%d\n  <<: [*a%d, *a%d]\n  k%d: v\n", i, i, i-1, i-1, i)
	}
	b.WriteString("groups:\n  - name: g\n    rules:\n      - <<: *a40\n        record: a:b:c\n        expr: up\n")
	start := time.Now()
	f := ReadRules("laughs.yaml", []byte(b.String()))
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("took %s", took)
	}
	if len(f.Rules) != 1 {
		t.Errorf("%d rules, want 1", len(f.Rules))
	}
}

func TestPositionsInEveryScalarStyle(t *testing.T) {
	src := "groups:\n  - name: g\n    rules:\n" + (`      - record: a:b:c
        expr: sum(x)
      - record: a:b:d
        expr: "sum(x)"
      - record: a:b:e
        expr: |
          sum(
            x
          )
      - record: a:b:f
        expr: |2-
            sum(x)
          > 0
`)
	f := ReadRules("p.yaml", []byte(src))
	if len(f.Rules) != 4 {
		t.Fatalf("%d rules", len(f.Rules))
	}
	for _, r := range f.Rules {
		for _, token := range []string{"sum", "x"} {
			pos := r.Expr.PosAt(strings.Index(r.Expr.Text, token))
			if line := f.Lines[pos.Line-1]; pos.Col < 1 || !strings.HasPrefix(line[pos.Col-1:], token) {
				t.Errorf("%s: %q reported at %+v, line is %q", r.Record, token, pos, line)
			}
		}
	}
}

// TestPositionsInQuotedMultiLineQueries: a dashboard query written on one JSON line with \n
// escapes, and a YAML double-quoted value folded over lines, place each token where it is in
// the file, escapes and folds counted.
func TestPositionsInQuotedMultiLineQueries(t *testing.T) {
	dashboard := "{\"panels\": [{\"title\": \"p\", \"targets\": [{\"expr\": \"sum by (gpu) (\\n  rate(\\\"x\\\"[5m])\\n  + DCGM_FI_DEV_GPU_TEMP\\n)\"}]}]}\n"
	f := ReadDashboard("d.json", []byte(dashboard))
	if f.Err != nil || f.Dashboard == nil || len(f.Dashboard.Queries) != 1 {
		t.Fatalf("read %+v", f.Err)
	}
	e := f.Dashboard.Queries[0].Expr
	pos := e.PosAt(strings.Index(e.Text, "DCGM_FI_DEV_GPU_TEMP"))
	if want := strings.Index(dashboard, "DCGM_FI_DEV_GPU_TEMP") + 1; pos != (Pos{Line: 1, Col: want}) {
		t.Errorf("JSON: token at %+v, want 1:%d", pos, want)
	}
	rules := "groups:\n  - name: g\n    rules:\n      - record: a:b:c\n        expr: \"sum(x)\n          + DCGM_FI_DEV_GPU_TEMP\"\n"
	r := ReadRules("r.yaml", []byte(rules))
	if r.Err != nil || len(r.Rules) != 1 {
		t.Fatalf("read %+v", r.Err)
	}
	e = r.Rules[0].Expr
	if pos := e.PosAt(strings.Index(e.Text, "DCGM_FI_DEV_GPU_TEMP")); pos != (Pos{Line: 6, Col: 13}) {
		t.Errorf("YAML folded: token at %+v, want 6:13", pos)
	}
}

// TestDuplicateKeys: a dashboard that gives expr or panels twice is read at the last value,
// as Grafana reads it; a rule file that gives a key twice is refused at the second, as
// Prometheus refuses it; a ConfigMap's dashboard that does not read is an error at its line,
// not skipped.
func TestDuplicateKeys(t *testing.T) {
	dashboard := ReadDashboard("d.json", []byte(`{"title": "x", "panels": [
  {"title": "p", "targets": [{"expr": "up", "expr": "sum(last)"}]}],
 "panels": [{"title": "q", "targets": [{"expr": "first", "expr": "sum(kept)"}]}]}`))
	if dashboard.Err != nil || len(dashboard.Dashboard.Queries) != 1 || dashboard.Dashboard.Queries[0].Expr.Text != "sum(kept)" {
		t.Errorf("dashboard: want the last panels' last expr, got %+v %+v", dashboard.Err, dashboard.Dashboard)
	}
	rules := ReadRules("r.yaml", []byte("groups:\n  - name: g\n    rules:\n      - record: a:b:c\n        expr: up\n        expr: sum(up)\n"))
	if rules.Err == nil || rules.Err.Pos != (Pos{6, 9}) || !strings.Contains(rules.Err.Message, `key "expr" is given twice in one object (first on line 5)`) || len(rules.Rules) != 0 {
		t.Errorf("rule file: want refused at 6:9, got %+v, %d rules", rules.Err, len(rules.Rules))
	}
	configMap := ReadRules("cm.yaml", []byte("apiVersion: v1\nkind: ConfigMap\ndata:\n  gpu.json: |\n    {\"title\": \"x\",\n     \"panels\": [}\n"))
	if len(configMap.Embedded) != 1 || configMap.Embedded[0].Err == nil || configMap.Embedded[0].Err.Pos.Line != 5 {
		t.Errorf("a ConfigMap's unreadable dashboard: want an error on its line 5 (YAML names the line its flow starts), got %+v", configMap.Embedded[0].Err)
	}
}

// TestPanelsRepeatedByAliasesAreBounded: a 1 KB ConfigMap whose dashboard nests rows through
// YAML aliases, ten of the level below at each of nine levels, holds a billion panels once
// expanded; it is refused at once, in one sentence naming the budget, as is a dashboard file
// of the same shape.
func TestPanelsRepeatedByAliasesAreBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"title": "x", "l0": &l0 [{"title": "p", "targets": [{"expr": "up"}]}]`)
	for level := 1; level <= 9; level++ {
		fmt.Fprintf(&b, `, "l%d": &l%d [`, level, level)
		for i := range 10 {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, `{"type": "row", "panels": *l%d}`, level-1)
		}
		b.WriteString("]")
	}
	b.WriteString(`, "panels": *l9}`)
	nested := b.String()
	want := "the dashboard holds more than 10000 panels and targets, counting each time a YAML alias repeats them: not read"
	start := time.Now()
	configMap := ReadRules("cm.yaml", []byte("apiVersion: v1\nkind: ConfigMap\ndata:\n  gpu.json: |\n    "+nested+"\n"))
	if len(configMap.Embedded) != 1 || configMap.Embedded[0].Err == nil || configMap.Embedded[0].Err.Message != want || configMap.Embedded[0].Dashboard != nil {
		t.Errorf("a ConfigMap's aliased rows: want %q, got %+v", want, configMap.Embedded)
	}
	file := ReadDashboard("d.json", []byte(nested))
	if file.Err == nil || file.Err.Message != want || file.Dashboard != nil {
		t.Errorf("a dashboard file's aliased rows: want %q, got %+v", want, file.Err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %s", took)
	}
	// A real dashboard under the budget, rows and all, is read whole.
	ordinary := ReadDashboard("d.json", []byte(`{"title": "x", "rows": [{"panels": [{"title": "a", "targets": [{"expr": "up"}, {"expr": "sum(up)"}]}]}], "panels": [{"type": "row", "panels": [{"title": "b", "targets": [{"expr": "vector(1)"}]}]}]}`))
	if ordinary.Err != nil || len(ordinary.Dashboard.Queries) != 3 {
		t.Errorf("an ordinary dashboard: %+v", ordinary)
	}
}

// TestDashboardsWithUTF16Escapes: a dashboard as Python's json.dump writes it (every character
// outside ASCII escaped, one beyond the Basic Multilingual Plane as a UTF-16 surrogate pair)
// is valid JSON and is read, its queries where they are; a lone surrogate reads as U+FFFD and
// an escaped backslash before "u" stays text.
func TestDashboardsWithUTF16Escapes(t *testing.T) {
	data := []byte("{\n  \"title\": \"GPUs \\ud83d\\udfe2 \\u00e9t\\u00e9 \\ud83d\",\n  \"tags\": [\"L3\", \"a\\\\ud83d\"],\n  \"panels\": [\n    {\"title\": \"\\ud83d\\udd25\\ud83d\\udd25 hot\", \"targets\": [{\"expr\": \"max(DCGM_FI_DEV_GPU_TEMP)\"}]}\n  ]\n}\n")
	f := ReadDashboard("d.json", data)
	if f.Err != nil || f.Dashboard == nil {
		t.Fatalf("read error %v", f.Err)
	}
	if got := f.Dashboard.Tags; len(got) != 2 || got[1] != `a\ud83d` {
		t.Errorf("tags %q, want the escaped backslash kept as text", got)
	}
	if len(f.Dashboard.Queries) != 1 || f.Dashboard.Queries[0].Expr.pos.Line != 5 {
		t.Errorf("queries %+v, want one on line 5", f.Dashboard.Queries)
	}
	if got := string(utf16Escapes([]byte(`"\ud83d\udfe2 \ud83d x \udfe2"`))); got != `"\U0001F7E2 \ufffd x \ufffd"` {
		t.Errorf("utf16Escapes = %s", got)
	}
}

// TestRulesInConfigMaps: a ConfigMap that holds rule files in its data (as Prometheus mounts
// them without the operator) has its rules read, each where it stands in the ConfigMap; a
// key that is not a rule file (a .conf) and a rule file without groups add nothing.
func TestRulesInConfigMaps(t *testing.T) {
	data := []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: prometheus-rules
data:
  prometheus.conf: |
    groups: not rules
  gpu.rules.yaml: |
    groups:
      - name: gpu
        rules:
          - alert: GPUHot
            expr: max by (UUID) (DCGM_FI_DEV_GPU_TEMP) > 85
            for: 10m
  empty.yml: |
    # nothing yet
`)
	f := ReadRules("cm.yaml", data)
	if f.Err != nil || len(f.Rules) != 1 || len(f.Groups) != 1 {
		t.Fatalf("read %v: %d rules, %d groups; want the one rule of gpu.rules.yaml", f.Err, len(f.Rules), len(f.Groups))
	}
	r := f.Rules[0]
	if r.Alert != "GPUHot" || r.Pos.Line != 12 || r.Group.Name != "gpu" || r.File != f {
		t.Errorf("rule %q at %+v in group %q, want GPUHot on line 12 of the ConfigMap", r.Alert, r.Pos, r.Group.Name)
	}
	if got := r.Expr.pos; got.Line != 13 || got.Col != 19 {
		t.Errorf("expression at %+v, want 13:19", got)
	}
}
