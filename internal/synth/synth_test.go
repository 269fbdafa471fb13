package synth

import (
	"strconv"
	"testing"
)

// TestMatchersQuoteAsGo: label values are quoted as strconv.Quote quotes them, the plain
// ASCII ones without its Unicode tables included.
func TestMatchersQuoteAsGo(t *testing.T) {
	for _, v := range []string{"", "llm-0", "GPU-node-a-0", `a"b`, `back\slash`, "tab\tand\nnewline", "nul\x00", "del\x7f", "ünï", "日本", "\xff", "{{ $labels.x }}", "~ !"} {
		got := Labels{"v": v}.Matchers()
		if want := "{v=" + strconv.Quote(v) + "}"; got != want {
			t.Errorf("Matchers of %q = %s, want %s", v, got, want)
		}
	}
}
