package catalog

import (
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
