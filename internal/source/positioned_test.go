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
