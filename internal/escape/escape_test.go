package escape

import "testing"

func TestEscapes(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Line("GPUHot\n::error file=x::owned"), `GPUHot\n::error file=x::owned`},
		{Line("plain ≥ name"), "plain ≥ name"},
		{Line("a\x1b[31mred"), `a\x1b[31mred`},
		{Code("GPUHot"), "`GPUHot`"},
		{Code("a`b<!--"), "``a`b<!--``"},
		{Code("`x`"), "`` `x` ``"},
		{Fence("x\n```\n<!--"), "````"},
		{Fence("plain"), "```"},
		{Markdown("silent<!-- hide"), `silent&lt;\!\-\- hide`},
		{Markdown("a*b_[c](d)\nx"), `a\*b\_\[c\]\(d\)\\nx`},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
