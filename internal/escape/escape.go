// Package escape makes text from data (names, annotations, paths from a pull request) safe in
// what gpuobs prints: on the lines it belongs to, and inert in Markdown.
package escape

import (
	"html"
	"strconv"
	"strings"
	"unicode"
)

// Line writes s on one line: control characters as Go escapes (\n, \r, \x1b), so that a
// newline in a name cannot start a line of its own, such as a GitHub workflow command; line
// and paragraph separators and format characters (the bidirectional overrides that reorder
// what a reviewer sees) as \u escapes; and GitHub's older command prefix ##[ broken (#\x23[),
// since the runner finds it anywhere in a line.
func Line(s string) string {
	if !strings.ContainsFunc(s, unsafeInLine) && !strings.Contains(s, "##[") {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unsafeInLine(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return strings.ReplaceAll(b.String(), "##[", `#\x23[`)
}

// unsafeInLine reports whether a rune can break a line or reorder how it reads.
func unsafeInLine(r rune) bool {
	return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

// Leading is s escaped by Line for the start of a line of a text report (a path, an alert
// name in a table's first column): a leading colon written \x3a, so that a file or alert
// named "::error x" does not read as a workflow command.
func Leading(s string) string {
	s = Line(s)
	if rest := strings.TrimLeft(s, " \t"); strings.HasPrefix(rest, ":") {
		return s[:len(s)-len(rest)] + `\x3a` + rest[1:]
	}
	return s
}

// Lines is a value of several lines (an expression, an annotation) for a text report, each
// line escaped by Line and each after the first led by lead, so that none can begin a line
// of the report's own (a workflow command, which GitHub's runner finds after leading spaces).
func Lines(s, lead string) string {
	parts := strings.Split(s, "\n")
	for i, p := range parts {
		parts[i] = Line(p)
	}
	return strings.Join(parts, "\n"+lead)
}

// Code is s as an inline Markdown code span on one line that nothing in s can close: fenced
// with one backtick more than the longest run of backticks in s.
func Code(s string) string {
	s = Line(s)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// Fence is a fence for a Markdown code block of content that content cannot close: three
// backticks, or one more than its longest run of them.
func Fence(content string) string {
	return strings.Repeat("`", max(3, longestRun(content, '`')+1))
}

// Markdown is s as Markdown text on one line: HTML (a comment that would hide the rest of a
// pull-request comment) and Markdown punctuation escaped.
func Markdown(s string) string {
	s = html.EscapeString(Line(s))
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_{}[]()#+-!|~", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c rune) int {
	longest, run := 0, 0
	for _, r := range s {
		if r == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}
