package testutil

import (
	"strings"
	"testing"
)

// CommandLines are the lines of a text report that GitHub's runner would read as a workflow
// command: starting with :: after leading spaces (the runner trims them), or holding the older
// ##[ prefix anywhere.
func CommandLines(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " \t"), "::") || strings.Contains(line, "##[") {
			out = append(out, line)
		}
	}
	return out
}

// Unescaped counts c in s where no backslash escapes it.
func Unescaped(s, c string) int {
	n := 0
	for i := strings.Index(s, c); i >= 0; {
		if i == 0 || s[i-1] != '\\' {
			n++
		}
		next := strings.Index(s[i+1:], c)
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return n
}

// OutsideCode is Markdown with its fenced blocks (a line opening with three or more backticks,
// up to a line of at least as many) and code spans (a run of backticks not escaped by a
// backslash, up to the next run of the same length) removed: what a renderer reads as Markdown
// and HTML.
func OutsideCode(md string) string {
	var kept []string
	fence := 0
	for _, line := range strings.Split(md, "\n") {
		run := len(line) - len(strings.TrimLeft(line, "`"))
		switch {
		case fence == 0 && run >= 3:
			fence = run
		case fence > 0:
			if run >= fence && strings.TrimSpace(line[run:]) == "" {
				fence = 0
			}
		default:
			kept = append(kept, line)
		}
	}
	text := strings.Join(kept, "\n")
	var b strings.Builder
	for i := 0; i < len(text); {
		if text[i] != '`' || (i > 0 && text[i-1] == '\\') {
			b.WriteByte(text[i]) // text, or an escaped backtick, which opens no span
			i++
			continue
		}
		n := 0
		for i+n < len(text) && text[i+n] == '`' {
			n++
		}
		rest := text[i+n:]
		end := -1
		for j := 0; j+n <= len(rest); j++ {
			if strings.Count(rest[j:j+n], "`") == n && (j+n == len(rest) || rest[j+n] != '`') && (j == 0 || rest[j-1] != '`') {
				end = j
				break
			}
		}
		if end < 0 {
			b.WriteString(text[i : i+n])
			i += n
			continue
		}
		i += n + end + n
	}
	return b.String()
}

// ReportShape checks a report written with a name from data (got) against the same report
// written with a plain name (plain; ref is the plain report Markdown's HTML and pipes are
// counted in): as many lines; in text, no line GitHub's runner reads as a workflow command; in
// Markdown, no HTML or unescaped pipe outside code that ref does not have.
func ReportShape(t *testing.T, format, name, plain, ref, got string) {
	t.Helper()
	if p, g := strings.Count(plain, "\n"), strings.Count(got, "\n"); p != g {
		t.Fatalf("%s: the name %q makes %d lines, a plain one %d:\n%s", format, name, g, p, got)
	}
	if format == "text" {
		for _, line := range CommandLines(got) {
			t.Errorf("text: the line %q can be read as a workflow command", line)
		}
		return
	}
	for _, c := range []string{"<", ">", "|"} {
		if p, g := Unescaped(ref, c), Unescaped(OutsideCode(got), c); g > p {
			t.Errorf("the name %q adds a %q outside code:\n%s", name, c, got)
		}
	}
}
