package libsonnet

import (
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"unicode/utf8"
)

// The size of a room a newcomer can hold in the head: no catalog file runs past maxLines (the
// largest alert file of kubernetes-mixin has 419), and no line's code past maxColumns.
const (
	maxLines   = 400
	maxColumns = 160
)

// TestFilesAreRooms holds every catalog file to maxLines lines and every line's code to
// maxColumns characters. Text is not code: a string literal counts as its quotes (a sentence
// of a runbook or a summary cannot be wrapped without a join that reads worse), and the lines
// of a ||| block (a query's template, written as it runs) are not counted.
func TestFilesAreRooms(t *testing.T) {
	err := fs.WalkDir(FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := FS.ReadFile(path)
		if err != nil {
			return err
		}
		for _, p := range roomProblems(path, string(src)) {
			t.Error(p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRoomProblemsAreFound: a file one line too long and a line of code one column too wide
// are found; a long sentence in a string and a long template line are not.
func TestRoomProblemsAreFound(t *testing.T) {
	long := strings.Repeat("x", maxColumns)
	for name, c := range map[string]struct {
		src  string
		want int
	}{
		"lines at the bound":      {strings.Repeat("{}\n", maxLines), 0},
		"a line too many":         {strings.Repeat("{}\n", maxLines+1), 1},
		"code too wide":           {"local " + long + " = 1;\n", 1},
		"a long sentence":         {"{ a: '" + long + "' }\n", 0},
		"a long escaped sentence": {"{ a: 'it\\'s " + long + "' }\n", 0},
		"a long template line":    {"{ a: |||\n  " + long + "\n||| }\n", 0},
		"code after a template":   {"{ a: |||\n  x\n|||, " + long + ": 1 }\n", 1},
	} {
		if got := roomProblems("t.libsonnet", c.src); len(got) != c.want {
			t.Errorf("%s: %d problems (%v), want %d", name, len(got), got, c.want)
		}
	}
}

// roomProblems lists where a file breaks the bounds.
func roomProblems(path, src string) []string {
	var problems []string
	lines := strings.Split(strings.TrimSuffix(src, "\n"), "\n")
	if len(lines) > maxLines {
		problems = append(problems, fmt.Sprintf("%s: %d lines, more than %d: split it by family (or move its builders to lib/)", path, len(lines), maxLines))
	}
	inBlock := false
	for i, line := range lines {
		blocks := strings.Count(line, "|||")
		if inBlock && blocks == 0 {
			continue
		}
		if blocks%2 == 1 {
			inBlock = !inBlock
		}
		if blocks > 0 && inBlock {
			// The code before the block opens: "expr: e.fill(|||".
			line = line[:strings.Index(line, "|||")]
		} else if blocks > 0 {
			// The code after the block closes: "|||, { by: ... }),".
			line = line[strings.LastIndex(line, "|||"):]
		}
		if n := codeColumns(line); n > maxColumns {
			problems = append(problems, fmt.Sprintf("%s:%d: %d columns of code, more than %d: break it after a comma or an operator", path, i+1, n, maxColumns))
		}
	}
	return problems
}

// codeColumns is a line's width with each string literal counted as its two quotes.
func codeColumns(line string) int {
	n := 0
	for i := 0; i < len(line); {
		c := line[i]
		if c != '\'' && c != '"' {
			_, size := utf8.DecodeRuneInString(line[i:])
			n++
			i += size
			continue
		}
		j := i + 1
		for j < len(line) && line[j] != c {
			if line[j] == '\\' {
				j++
			}
			j++
		}
		n += 2
		i = j + 1
	}
	return n
}
