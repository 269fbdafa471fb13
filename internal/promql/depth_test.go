package promql

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestDeepNestingIsRefusedInLinearTime: Prometheus' parser is quadratic in nested parentheses;
// 100,000 of them are refused at once, at the offset where the limit is passed, while a
// nesting up to the limit parses.
func TestDeepNestingIsRefusedInLinearTime(t *testing.T) {
	start := time.Now()
	_, err := Parse(strings.Repeat("(", 100000) + "up" + strings.Repeat(")", 100000))
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Offset != MaxNesting || !strings.Contains(pe.Msg, "nests more than") {
		t.Fatalf("Parse = %v, want a nesting error at offset %d", err, MaxNesting)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("took %s", took)
	}
	if _, err := Parse(strings.Repeat("(", MaxNesting) + "up" + strings.Repeat(")", MaxNesting)); err != nil {
		t.Errorf("nesting at the limit: %v", err)
	}
	if _, err := Parse(`label_replace(up, "x", "` + strings.Repeat("(", 1000) + `", "instance", ".*")`); err != nil {
		t.Errorf("parentheses inside a string count: %v", err)
	}
}

// FuzzParse: any text either parses into a tree whose node offsets lie in the text, or fails
// with a ParseError whose offset does; nothing panics.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`sum by (cluster) (rate(DCGM_FI_DEV_ECC_DBE_VOL_TOTAL{cluster="a"}[5m])) > 0`,
		`max by (gpu) (x) * on (gpu) group_left (pod) y`,
		`histogram_quantile(0.99, sum by (le) (rate(h_bucket[5m])))`,
		`label_replace(up, "a", "$1", "b", "(.*)") or vector(1)`,
		`avg_over_time(x[1h:5m] offset 1d)`,
		strings.Repeat("(", 300) + "up" + strings.Repeat(")", 300),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		n, err := Parse(expr)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Offset < 0 || pe.Offset > len(expr) {
				t.Fatalf("error %v has no offset in the text", err)
			}
			return
		}
		Walk(n, func(c *Node, _ []*Node) {
			if c.Start < 0 || c.End > len(expr) || c.Start > c.End {
				t.Fatalf("node %s at %d..%d outside the %d-byte text", c.Name, c.Start, c.End, len(expr))
			}
		})
	})
}

// TestEachExpressionIsParsedOnce: the canonical form, the pretty form, the metric names and the
// tree of one expression come from one parse (the same tree serves them), and a parse error is
// kept as well.
func TestEachExpressionIsParsedOnce(t *testing.T) {
	const expr = `sum by (cluster) (rate(DCGM_FI_DEV_ECC_DBE_VOL_TOTAL{job="dcgm-exporter"}[5m])) > 0`
	if _, err := Canonical(expr); err != nil {
		t.Fatal(err)
	}
	first, _ := parsed.get(expr)
	if _, err := Pretty(expr); err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(expr); err != nil {
		t.Fatal(err)
	}
	again, err := parseExpr(expr)
	if err != nil || first.expr == nil || again != first.expr {
		t.Error("the expression was parsed again")
	}
	if _, err := Parse("sum(("); err == nil {
		t.Fatal("a broken expression parsed")
	}
	if r, ok := parsed.get("sum(("); !ok || r.err == nil {
		t.Error("the parse error was not kept")
	}
}

// TestFlatChainsAreBoundedBeforeParsing: flat chains of 100,000 and 20,000 operands (Prometheus'
// parser would take half a minute, and a second) and an expression over MaxLength are refused
// at once, by offset;
// a chain at the bound parses, and operators inside label matchers and strings do not count.
func TestFlatChainsAreBoundedBeforeParsing(t *testing.T) {
	start := time.Now()
	var pe *ParseError
	if _, err := Parse("x" + strings.Repeat(" + x", 100000)); !errors.As(err, &pe) {
		t.Errorf("a 100,000-operand chain: %v", err)
	}
	_, err := Parse("x" + strings.Repeat(" + x", 20000))
	if !errors.As(err, &pe) || !strings.Contains(pe.Msg, "more than 2000 operators") || pe.Offset != 1+4*MaxOperators+1 {
		t.Errorf("a 20,000-operand chain: %v", err)
	}
	if _, err := Parse(`x{a="` + strings.Repeat("a", MaxLength) + `"}`); !errors.As(err, &pe) || !strings.Contains(pe.Msg, "longer than") {
		t.Errorf("a long expression: %v", err)
	}
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("refusing took %v", elapsed)
	}
	if _, err := Parse("x" + strings.Repeat(" + x", MaxOperators-1) + ` and y{a!="+-*/", b=~"or|and"} > bool 1`); err == nil || !strings.Contains(err.Error(), "operators") {
		t.Errorf("one past the bound with matchers: %v", err)
	}
	if _, err := Parse("x" + strings.Repeat(" + x", MaxOperators-2) + ` and y{a!="+-*/", b=~"or|and"}`); err != nil {
		t.Errorf("at the bound, matchers not counted: %v", err)
	}
}
