package escape

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

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

// FuzzEscapes: whatever a name holds, Line keeps it on one line without control characters,
// Code makes a span whose fence no backtick run inside reaches, Fence outruns every backtick
// run of a block, and Markdown leaves no raw HTML and no line break.
func FuzzEscapes(f *testing.F) {
	for _, seed := range []string{"GPUHot", "a\n::error::x", "``` <!-- ", "`", "\x00\x1b[2J", "≥ ∞ \u2028", "\u202eevil", "##[error]x", " ::x"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{Line(s), Markdown(s), Leading(s)} {
			if strings.ContainsFunc(out, unsafeInLine) || strings.Contains(out, "##[") {
				t.Errorf("%q: a control, separator or format character, or ##[, is left in %q", s, out)
			}
		}
		if strings.HasPrefix(strings.TrimLeft(Leading(s), " \t"), ":") {
			t.Errorf("%q: Leading(s) = %q starts with a colon", s, Leading(s))
		}
		for _, line := range strings.Split(Lines(s, "+ "), "\n")[1:] {
			if !strings.HasPrefix(line, "+ ") {
				t.Errorf("%q: the line %q of Lines is not led", s, line)
			}
		}
		if m := Markdown(s); strings.ContainsAny(m, "<>") {
			t.Errorf("%q: raw HTML in %q", s, m)
		}
		code := Code(s)
		fence := longestRun(Line(s), '`') + 1
		if !strings.HasPrefix(code, strings.Repeat("`", fence)) || !strings.HasSuffix(code, strings.Repeat("`", fence)) || len(code) < 2*fence {
			t.Fatalf("%q: %q is not fenced with %d backticks", s, code, fence)
		}
		inner := code[fence : len(code)-fence]
		if longestRun(inner, '`') >= fence || strings.ContainsFunc(inner, unicode.IsControl) {
			t.Errorf("%q: the span %q can be closed from inside", s, code)
		}
		if block := s + "\n"; longestRun(block, '`') >= len(Fence(block)) {
			t.Errorf("%q: the fence %q does not outrun the content", s, Fence(block))
		}
	})
}

// TestCommentsFitGitHub: a report over GitHub's comment limit is cut at a line, within the
// limit, with its open code block and <details> closed and a line saying what was cut; a
// report within the limit is left as it is.
func TestCommentsFitGitHub(t *testing.T) {
	short := "### report\n\n| a | b |\n"
	if got := Comment(short); got != short {
		t.Errorf("a short report changed: %q", got)
	}
	long := "### report\n\n<details><summary>Alerts</summary>\n\n````diff\n" +
		strings.Repeat("+ ünïcode value that is long enough to matter\n", 4000) + "````\n</details>\n"
	got := Comment(long)
	if n := utf8.RuneCountInString(got); n > CommentLimit {
		t.Fatalf("cut report has %d characters, over %d", n, CommentLimit)
	}
	kept, note, found := strings.Cut(got, "````\n\n</details>\n\n**Cut here:**")
	if !found {
		t.Fatalf("the open fence and <details> are not closed before the note:\n%s", got[len(got)-600:])
	}
	if !strings.HasPrefix(long, kept) || !strings.HasSuffix(kept, "\n") {
		t.Errorf("the kept part is not the report's start, cut at a line")
	}
	want := fmt.Sprintf("this report has %d characters", utf8.RuneCountInString(long))
	if !strings.Contains(note, want) || !strings.Contains(note, "lines) are not shown") {
		t.Errorf("the note does not say what was cut: %q", note)
	}
}

// TestProseKeepsMarkdownNotHTML: a summary's tags and comments are shown, not run or hidden;
// its code spans (where HTML is text already) and Markdown are kept.
func TestProseKeepsMarkdownNotHTML(t *testing.T) {
	for in, want := range map[string]string{
		"GPU hot":                                "GPU hot",
		"<!-- hide the rest":                     "&lt;!-- hide the rest",
		`<img src=x onerror="alert(1)"> R&D`:     `&lt;img src=x onerror="alert(1)"> R&amp;D`,
		"run `kubectl get <pod>` & **then** <b>": "run `kubectl get <pod>` &amp; **then** &lt;b>",
		"``a ` <b>`` <i>":                        "``a ` <b>`` &lt;i>",
		"an unclosed ` <b>":                      "an unclosed ` &lt;b>",
	} {
		if got := Prose(in); got != want {
			t.Errorf("Prose(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Cell("a | b\n<c>"); got != `a \| b &lt;c>` {
		t.Errorf("Cell: %q", got)
	}
}
