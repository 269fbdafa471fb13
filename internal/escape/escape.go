// Package escape makes text from data (names, annotations, paths from a pull request) safe in
// what gpuobs prints: on the lines it belongs to, and inert in Markdown.
package escape

import (
	"fmt"
	"html"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
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

// CommentLimit is the most characters GitHub accepts in a pull-request comment's body.
const CommentLimit = 65536

// commentReserve is room kept under CommentLimit for the closers and the line that says
// what was cut.
const commentReserve = 512

// Comment is a Markdown report that GitHub accepts as a comment: within CommentLimit
// characters, cut at a line and ended by a line saying how much was cut, with the code block
// and <details> sections open at the cut closed so that the line reads as text.
func Comment(report string) string {
	total := utf8.RuneCountInString(report)
	if total <= CommentLimit {
		return report
	}
	end := 0
	for n := 0; n < CommentLimit-commentReserve; n++ {
		_, size := utf8.DecodeRuneInString(report[end:])
		end += size
	}
	if nl := strings.LastIndexByte(report[:end], '\n'); nl >= 0 {
		end = nl + 1
	}
	kept, cut := report[:end], report[end:]
	var b strings.Builder
	b.WriteString(kept)
	b.WriteString(closers(kept))
	fmt.Fprintf(&b, "\n**Cut here:** this report has %d characters and GitHub takes at most %d in a comment; the last %d characters (%d lines) are not shown. Run the command with `--format text` or `--format json` for all of it.\n",
		total, CommentLimit, utf8.RuneCountInString(cut), strings.Count(cut, "\n"))
	return b.String()
}

// cellLimits are the lengths FitComment tries in turn for a report's names and label values,
// longest first: each a quarter of the one before.
var cellLimits = []int{4096, 1024, 256, 64, 16}

// FitComment is a Markdown report that GitHub accepts as a comment and that keeps every row:
// render writes the report with cut applied to each name and label value before it is
// escaped; where the whole report is over CommentLimit, each text is cut to the longest of
// cellLimits at which it fits, its end replaced by a mark saying how much was cut, and a line
// says so. Where even the shortest does not fit, Comment cuts lines.
func FitComment(render func(cut func(string) string) string) string {
	report := render(func(s string) string { return s })
	for _, limit := range cellLimits {
		if utf8.RuneCountInString(report) <= CommentLimit {
			break
		}
		cut := 0
		report = render(func(s string) string {
			n := utf8.RuneCountInString(s)
			if n <= limit {
				return s
			}
			cut++
			runes := []rune(s)
			return string(runes[:limit]) + fmt.Sprintf("… (%d more characters)", n-limit)
		})
		if cut > 0 {
			report += fmt.Sprintf("\n**Cut cells:** %d names or label values longer than %d characters end in … here, so that every row fits GitHub's %d characters; run the command with `--format text` or `--format json` for them whole.\n", cut, limit, CommentLimit)
		}
	}
	return Comment(report)
}

// closers closes the code block and the <details> sections that are open at the end of a
// Markdown text.
func closers(markdown string) string {
	fence, open := "", 0
	for line := range strings.Lines(markdown) {
		line = strings.TrimRight(line, "\n")
		switch {
		case fence != "":
			if strings.HasPrefix(line, fence) && strings.Trim(line, "`") == "" {
				fence = ""
			}
		case strings.HasPrefix(line, "```"):
			fence = line[:leadingBackticks(line)]
		case strings.HasPrefix(line, "<details>"):
			open++
		case strings.HasPrefix(line, "</details>"):
			open--
		}
	}
	var b strings.Builder
	if fence != "" {
		b.WriteString(fence + "\n")
	}
	for range max(open, 0) {
		b.WriteString("\n</details>\n")
	}
	return b.String()
}

// Prose is text from the catalog for a Markdown page, whose Markdown (code spans, emphasis,
// links) is meant but whose HTML is not: outside code spans, < and & are written as entities,
// so that a tag or a comment in a summary is shown, not run or hidden.
func Prose(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] == '`' {
			end := codeSpanEnd(s, i)
			b.WriteString(s[i:end])
			i = end
			continue
		}
		switch s[i] {
		case '<':
			b.WriteString("&lt;")
		case '&':
			b.WriteString("&amp;")
		default:
			b.WriteByte(s[i])
		}
		i++
	}
	return b.String()
}

// codeSpanEnd is the offset after the code span that opens at i, or after its backticks when
// no run of as many closes it (they are then literal text).
func codeSpanEnd(s string, i int) int {
	n := leadingBackticks(s[i:])
	fence := s[i : i+n]
	for j := i + n; j < len(s); {
		k := strings.Index(s[j:], fence)
		if k < 0 {
			break
		}
		k += j
		m := leadingBackticks(s[k:])
		if m == n {
			return k + n
		}
		j = k + m
	}
	return i + n
}

// leadingBackticks is how many backticks s starts with.
func leadingBackticks(s string) int {
	return len(s) - len(strings.TrimLeft(s, "`"))
}

// Cell is Prose for a cell of a Markdown table, on one line, with the pipes that would end
// the cell escaped.
func Cell(s string) string {
	return strings.ReplaceAll(Prose(strings.Join(strings.Fields(s), " ")), "|", `\|`)
}
