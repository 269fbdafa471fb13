package catalog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFillWritesPieces: e.fill in Go fills each $(name), writes a number as Jsonnet's + does,
// leaves out pieces the template does not name, and fails on a name pieces lacks.
func TestFillWritesPieces(t *testing.T) {
	for _, c := range []struct {
		template string
		pieces   map[string]any
		want     string
	}{
		{"max by ($(by)) (x) > $(th)", map[string]any{"by": "gpu", "th": 0.5}, "max by (gpu) (x) > 0.5"},
		{"x > $(th)", map[string]any{"th": 0.95}, "x > 0.94999999999999996"},
		{"x > $(th)", map[string]any{"th": 90.0}, "x > 90"},
		{"x{$(sel)} or y{$(sel)}", map[string]any{"sel": `a="b"`, "unused": "z"}, `x{a="b"} or y{a="b"}`},
		{"label_replace(x, \"a\", \"$1\", \"b\", \"(.*)\")\n", map[string]any{}, `label_replace(x, "a", "$1", "b", "(.*)")`},
	} {
		got, err := fillNative.Func([]any{c.template, c.pieces})
		if err != nil || got != c.want {
			t.Errorf("fill(%q) = %q, %v; want %q", c.template, got, err, c.want)
		}
	}
	if _, err := fillNative.Func([]any{"x > $(th)", map[string]any{}}); err == nil || !strings.Contains(err.Error(), "unfilled piece in query: x > $(th)") {
		t.Errorf("an unfilled piece: %v", err)
	}
}

// TestNumReadsBack: e.num writes each number in the fewest digits that read back as the same
// float, through the catalog's own evaluation. The Jsonnet search it replaces stopped at 17
// decimals and wrote 1/60 (the chargeback's hours per minute) as 0.01666666666666667, which
// reads back as another number.
func TestNumReadsBack(t *testing.T) {
	values := []float64{0.95, 1.0 / 60, 60, 0.1 + 0.2, -2.5, 1e-7, 123456789.125, 0.07 * 100, 1e21}
	var list []string
	for _, v := range values {
		list = append(list, strconv.FormatFloat(v, 'g', -1, 64))
	}
	path := filepath.Join(t.TempDir(), "num.jsonnet")
	snippet := "local e = import 'lib/expr.libsonnet'; [e.num(x) for x in [" + strings.Join(list, ", ") + "]]"
	if err := os.WriteFile(path, []byte(snippet), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := Evaluate(Options{ConfigPath: path})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	for i, v := range values {
		back, err := strconv.ParseFloat(got[i], 64)
		if err != nil || back != v || strings.ContainsAny(got[i], "eE") {
			t.Errorf("num(%v) = %q, which reads back as %v (%v)", v, got[i], back, err)
		}
		if short := strconv.FormatFloat(v, 'f', -1, 64); len(got[i]) > len(short) {
			t.Errorf("num(%v) = %q, longer than %q", v, got[i], short)
		}
	}
	if got[0] != "0.95" || got[2] != "60" {
		t.Errorf("num(0.95), num(60) = %q, %q", got[0], got[2])
	}
}

// TestNativesNameWhatTheyWant: a native given the wrong type says which and what it wants.
func TestNativesNameWhatTheyWant(t *testing.T) {
	if _, err := numNative.Func([]any{"ninety"}); err == nil || err.Error() != "num: ninety is a string, not a number" {
		t.Errorf("num of a string: %v", err)
	}
	if _, err := signalNative.Func([]any{42.0}); err == nil || err.Error() != "signal: 42 is a float64, not a field name" {
		t.Errorf("signal of a number: %v", err)
	}
}
