package lint

import (
	"fmt"
	"io"
	"strings"

	"github.com/gpuobs/gpuobs/internal/escape"
)

// maxSourceWidth is how much of a source line a problem shows: a minified dashboard is one
// line of many kilobytes.
const maxSourceWidth = 160

// sourceWindow cuts a long line to maxSourceWidth bytes around column col (1-based), marking
// the cuts with "...", and returns the caret's column in what it shows.
func sourceWindow(line string, col int) (string, int) {
	if len(line) <= maxSourceWidth {
		return line, col
	}
	start := max(0, min(col-1-maxSourceWidth/3, len(line)-maxSourceWidth))
	end := min(len(line), start+maxSourceWidth)
	shown, col := line[start:end], col-start
	if start > 0 {
		shown, col = "..."+shown, col+3
	}
	if end < len(line) {
		shown += "..."
	}
	return shown, col
}

// textReporter prints each problem with its source line and a caret under the offending part,
// then how many problems of each severity there are.
type textReporter struct{}

func (textReporter) Format() string { return "text" }

func (textReporter) Write(w io.Writer, r Result) error {
	lines := map[string][]string{}
	for _, f := range r.Files {
		lines[f.Path] = f.Lines
	}
	for _, p := range r.Problems {
		// Paths and messages carry names from the files: each stays on its line.
		fmt.Fprintf(w, "%s:%d:%d: %s: %s [%s]\n", escape.Leading(p.Path), p.Pos.Line, p.Pos.Col, p.Severity, escape.Line(p.Message), p.Check)
		src := lines[p.Path]
		if p.Pos.Line < 1 || p.Pos.Line > len(src) {
			continue
		}
		line, col := sourceWindow(strings.ReplaceAll(src[p.Pos.Line-1], "\t", " "), p.Pos.Col)
		width := p.Width
		if rest := len(line) - col + 1; width > rest {
			width = rest
		}
		if width < 1 {
			width = 1
		}
		gutter := fmt.Sprintf("%5d | ", p.Pos.Line)
		fmt.Fprintf(w, "%s%s\n%s%s%s\n", gutter, escape.Line(line), strings.Repeat(" ", len(gutter)-2)+"| ", strings.Repeat(" ", max(col-1, 0)), strings.Repeat("^", width))
	}
	if len(r.Problems) > 0 {
		counts := map[Severity]int{}
		for _, p := range r.Problems {
			counts[p.Severity]++
		}
		_, err := fmt.Fprintf(w, "%d problems: %d errors, %d warnings, %d info\n", len(r.Problems), counts[Error], counts[Warning], counts[Info])
		return err
	}
	return nil
}
