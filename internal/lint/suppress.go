package lint

import (
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/source"
)

// suppressions decide which problems the catalog's lint.disable and lint.ignore lists and the
// files' gpuobs-lint comments suppress.
type suppressions struct {
	model *model.Model
	// baseDir is the catalog file's directory: lint.ignore paths are relative to it.
	baseDir string
	// scanned are the gpuobs-lint comments of the files read so far.
	scanned map[*source.File]*fileComments
}

// newSuppressions applies a catalog's lists, its ignore paths relative to baseDir.
func newSuppressions(m *model.Model, baseDir string) *suppressions {
	return &suppressions{model: m, baseDir: baseDir, scanned: map[*source.File]*fileComments{}}
}

// disableComment is a gpuobs-lint comment: disable or disable-file, then the checks it names.
var disableComment = regexp.MustCompile(`#\s*gpuobs-lint\s+(disable|disable-file)\s+([\w/,\s-]+)`)

// ignored reports whether a lint.ignore pattern, relative to the catalog's directory, matches
// a problem's file, however its path was typed (relative to the working directory, with ./,
// or absolute).
func (s *suppressions) ignored(pattern, file string) bool {
	abs := func(p string) string {
		if !filepath.IsAbs(p) {
			if wd, err := os.Getwd(); err == nil {
				p = filepath.Join(wd, p)
			}
		}
		return filepath.ToSlash(filepath.Clean(p))
	}
	full := pattern
	if !filepath.IsAbs(pattern) {
		full = filepath.Join(s.baseDir, pattern)
	}
	ok, _ := path.Match(abs(full), abs(file))
	return ok
}

// suppressed applies the catalog's disable and ignore lists, a file-wide
// "# gpuobs-lint disable-file <check>" comment, and a "# gpuobs-lint disable <check>" comment
// inside the rule or on the comment lines just above it.
func (s *suppressions) suppressed(f *source.File, p Problem) bool {
	m := s.model
	for _, d := range m.Lint.Disable {
		if matchesCheck(d, p.Check) {
			return true
		}
	}
	for _, ig := range m.Lint.Ignore {
		if matchesCheck(ig.Check, p.Check) && s.ignored(ig.Path, p.Path) {
			return true
		}
	}
	if f == nil {
		return false
	}
	c := s.comments(f)
	for _, name := range c.fileDisabled {
		if matchesCheck(name, p.Check) {
			return true
		}
	}
	// The rule holding the problem: the last one starting at or before its line.
	i := sort.Search(len(f.Rules), func(i int) bool { return f.Rules[i].Pos.Line > p.Pos.Line }) - 1
	if i < 0 || p.Pos.Line > f.Rules[i].End {
		return false
	}
	r := f.Rules[i]
	from := r.Pos.Line - 1 // 0-based index of the rule's first line
	for from > 0 && strings.HasPrefix(strings.TrimSpace(f.Lines[from-1]), "#") {
		from--
	}
	for line := from; line < r.End; line++ {
		for _, name := range c.disabled[line] {
			if matchesCheck(name, p.Check) {
				return true
			}
		}
	}
	return false
}

// unknown are the problems of a file's gpuobs-lint comments that name no check.
func (s *suppressions) unknown(f *source.File) []Problem {
	named := s.comments(f).named
	var out []Problem
	for _, line := range slices.Sorted(maps.Keys(named)) {
		for _, name := range named[line] {
			if !ValidCheckName(name) {
				out = append(out, Problem{Check: SuppressionCheck, Severity: Error, Path: f.Path, Pos: source.Pos{Line: line + 1, Col: 1},
					Message: fmt.Sprintf("gpuobs-lint comment names %q, which is not a check or an area of checks: it suppresses nothing", name)})
			}
		}
	}
	return out
}

// fileComments are the gpuobs-lint comments of a file: disabled maps 0-based line numbers to
// the checks a disable comment there names, fileDisabled are the checks disable-file comments
// name, and named the checks every gpuobs-lint comment names, by 0-based line.
type fileComments struct {
	disabled, named map[int][]string
	fileDisabled    []string
}

// comments finds a file's gpuobs-lint comments, once per file.
func (s *suppressions) comments(f *source.File) *fileComments {
	if c, ok := s.scanned[f]; ok {
		return c
	}
	c := &fileComments{disabled: map[int][]string{}, named: map[int][]string{}}
	for i, line := range f.Lines {
		if !strings.Contains(line, "gpuobs-lint") {
			continue
		}
		m := disableComment.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		names := strings.FieldsFunc(m[2], func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
		c.named[i] = names
		if m[1] == "disable-file" {
			c.fileDisabled = append(c.fileDisabled, names...)
		} else {
			c.disabled[i] = append(c.disabled[i], names...)
		}
	}
	s.scanned[f] = c
	return c
}
