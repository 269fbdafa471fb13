// Package lint checks Prometheus rule files and Grafana dashboards offline, against what the
// catalog knows about dcgm-exporter's fields: cardinality at fleet size, PromQL semantics,
// alert hygiene and naming. Each check is a small type with a stable name (area/name).
package lint

import (
	"errors"
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
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/source"
)

// Severity of a problem.
type Severity int

// Severities, in increasing order.
const (
	Info Severity = iota
	Warning
	Error
)

func (s Severity) String() string { return [...]string{"info", "warning", "error"}[s] }

// ParseSeverity reads info, warning or error.
func ParseSeverity(s string) (Severity, error) {
	for v := Info; v <= Error; v++ {
		if v.String() == s {
			return v, nil
		}
	}
	return 0, fmt.Errorf("unknown severity %q: use info, warning or error", s)
}

// ReadCheck names problems reading an input file.
const ReadCheck = "input/read"

// SuppressionCheck names suppression comments that name no check: they would silently do
// nothing.
const SuppressionCheck = "input/suppression"

// Problem is one finding, at a position in a file.
type Problem struct {
	Check    string
	Severity Severity
	Path     string
	Pos      source.Pos
	// Width is how many characters from Pos the problem spans on its line (for the caret).
	Width   int
	Message string
}

// Check is one lint check.
type Check interface {
	// Name is the stable name, area/name.
	Name() string
	// Doc is a one-line description.
	Doc() string
	// Run reports the problems it finds in the inputs.
	Run(in *Inputs, report func(Problem))
}

// Checks is every check, in the order they run.
func Checks() []Check {
	return []Check{
		promqlSyntax{}, promqlFeature{}, promqlFloatLabel{}, promqlHistogramForm{}, promqlCounter{}, promqlUnknownMetric{}, promqlMIGDoubleCount{},
		exporterNotCollected{}, unitsMismatch{},
		cardinalityBudget{}, cardinalityLabel{},
		alertsSeverity{}, alertsAnnotations{}, alertsFor{}, alertsTemplateLabels{}, alertsLastEventState{}, alertsValueInLabel{},
		groupsInterval{}, groupsDuplicateRule{},
		namingRecord{}, namingAlert{}, namingUnit{}, namingLegacyNames{},
		placementGlobalRaw{}, placementShardReadsGlobal{},
	}
}

// Inputs is everything a check sees: the catalog and the files.
type Inputs struct {
	Model *model.Model
	Files []*source.File
	// recorded maps recorded metric names to the rules recording them: the inputs' when they
	// record the name, else the rules the catalog generates (known even when only dashboards
	// are linted). Several rules may record one name with different static labels.
	recorded map[string][]*source.Rule
	// labels resolves the labels of expressions over the catalog and the recorded rules.
	labels *plan.Labels
	// gpuMemo remembers which recorded metrics derive from GPU metrics.
	gpuMemo map[string]bool
	// FleetSource says where the fleet size projections use comes from.
	FleetSource string
	// BaseDir is the catalog file's directory: lint.ignore paths are relative to it.
	BaseDir string
	// GlobalPaths are rule files (or directories of them) the global layer of a sharded fleet
	// evaluates, besides those under a directory named global.
	GlobalPaths []string
	// layers places the catalog's rules when it is sharded.
	layers map[string]plan.Layer
	// scanned are the gpuobs-lint comments of the files read so far.
	scanned map[*source.File]*fileComments
}

// NewInputs prepares files for checking against a catalog's plan.
func NewInputs(p *plan.Plan, files []*source.File) *Inputs {
	in := &Inputs{Model: p.Model, Files: files, recorded: map[string][]*source.Rule{}, gpuMemo: map[string]bool{}, FleetSource: "the catalog's fleet", layers: p.Layers}
	for _, f := range files {
		for _, r := range f.Rules {
			if r.Record != "" {
				in.recorded[r.Record] = append(in.recorded[r.Record], r)
			}
		}
	}
	fromInputs := map[string]bool{}
	for name := range in.recorded {
		fromInputs[name] = true
	}
	for _, r := range p.Recorded {
		if !fromInputs[r.Name] {
			in.recorded[r.Name] = append(in.recorded[r.Name], &source.Rule{Record: r.Name, Labels: r.Labels, Expr: source.ParsedExpr(r.Expr, r.Parsed)})
		}
	}
	sources := map[string][]plan.Source{}
	for name, rules := range in.recorded {
		for _, r := range rules {
			sources[name] = append(sources[name], plan.Source{Expr: r.Expr.Node, Labels: r.Labels})
		}
	}
	in.labels = plan.NewLabels(p.Model, sources).WithTargetLabels()
	return in
}

// Rules calls fn for every rule of every file.
func (in *Inputs) Rules(fn func(*source.Rule)) {
	for _, f := range in.Files {
		for _, r := range f.Rules {
			fn(r)
		}
	}
}

// Exprs calls fn for every parsed expression: rule expressions and dashboard queries.
func (in *Inputs) Exprs(fn func(f *source.File, r *source.Rule, q *source.Query, e *source.Expr)) {
	for _, f := range in.Files {
		for _, r := range f.Rules {
			if r.Expr.Node != nil {
				fn(f, r, nil, r.Expr)
			}
		}
		if f.Dashboard != nil {
			for _, q := range f.Dashboard.Queries {
				if q.Expr.Node != nil {
					fn(f, nil, q, q.Expr)
				}
			}
		}
	}
}

// Selectors calls fn for every metric selector in every parsed expression, with its ancestors
// (outermost first).
func (in *Inputs) Selectors(fn func(f *source.File, e *source.Expr, n *promql.Node, up []*promql.Node)) {
	in.Exprs(func(f *source.File, _ *source.Rule, _ *source.Query, e *source.Expr) {
		promql.Walk(e.Node, func(n *promql.Node, up []*promql.Node) {
			if n.Kind == promql.Selector {
				fn(f, e, n, up)
			}
		})
	})
}

// Run runs the checks on the inputs and returns the problems that are not suppressed, sorted
// by file, position and check.
func Run(in *Inputs, checks []Check) []Problem {
	var out []Problem
	for _, f := range in.Files {
		if f.Err != nil {
			out = append(out, readProblem(f))
		}
	}
	byPath := map[string]*source.File{}
	for _, f := range in.Files {
		byPath[f.Path] = f
	}
	for _, f := range in.Files {
		for _, p := range in.unknownSuppressions(f) {
			if !in.suppressed(f, p) {
				out = append(out, p)
			}
		}
	}
	for _, c := range checks {
		c.Run(in, func(p Problem) {
			p.Check = c.Name()
			if !in.suppressed(byPath[p.Path], p) {
				out = append(out, p)
			}
		})
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line < b.Pos.Line
		}
		if a.Pos.Col != b.Pos.Col {
			return a.Pos.Col < b.Pos.Col
		}
		return a.Check < b.Check
	})
	return out
}

// matchesCheck reports whether a suppression names the check or its area.
func matchesCheck(name, check string) bool {
	return name == check || name == strings.SplitN(check, "/", 2)[0]
}

var disableComment = regexp.MustCompile(`#\s*gpuobs-lint\s+(disable|disable-file)\s+([\w/,\s-]+)`)

// ValidCheckName reports whether a suppression names a check or an area of checks.
func ValidCheckName(name string) bool {
	if matchesCheck(name, ReadCheck) || matchesCheck(name, SuppressionCheck) {
		return true
	}
	for _, c := range Checks() {
		if matchesCheck(name, c.Name()) {
			return true
		}
	}
	return false
}

// CheckSuppressions reports the catalog's lint.disable and lint.ignore entries that name no
// check, by catalog path.
func CheckSuppressions(m *model.Model) error {
	var errs []error
	for i, d := range m.Lint.Disable {
		if !ValidCheckName(d) {
			errs = append(errs, fmt.Errorf("lint.disable[%d]: %q is not a check or an area of checks (gpuobs lint --help lists them)", i, d))
		}
	}
	for i, ig := range m.Lint.Ignore {
		if !ValidCheckName(ig.Check) {
			errs = append(errs, fmt.Errorf("lint.ignore[%d].check: %q is not a check or an area of checks", i, ig.Check))
		}
		if _, err := path.Match(ig.Path, ""); err != nil {
			errs = append(errs, fmt.Errorf("lint.ignore[%d].path: %q is not a path pattern: %v", i, ig.Path, err))
		}
	}
	return errors.Join(errs...)
}

// ignored reports whether a lint.ignore pattern, relative to the catalog's directory, matches
// a problem's file, however its path was typed (relative to the working directory, with ./,
// or absolute).
func (in *Inputs) ignored(pattern, file string) bool {
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
		full = filepath.Join(in.BaseDir, pattern)
	}
	ok, _ := path.Match(abs(full), abs(file))
	return ok
}

// suppressed applies the catalog's disable and ignore lists, a file-wide
// "# gpuobs-lint disable-file <check>" comment, and a "# gpuobs-lint disable <check>" comment
// inside the rule or on the comment lines just above it.
func (in *Inputs) suppressed(f *source.File, p Problem) bool {
	m := in.Model
	for _, d := range m.Lint.Disable {
		if matchesCheck(d, p.Check) {
			return true
		}
	}
	for _, ig := range m.Lint.Ignore {
		if matchesCheck(ig.Check, p.Check) && in.ignored(ig.Path, p.Path) {
			return true
		}
	}
	if f == nil {
		return false
	}
	c := in.comments(f)
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

// unknownSuppressions are the file's gpuobs-lint comments that name no check.
func (in *Inputs) unknownSuppressions(f *source.File) []Problem {
	named := in.comments(f).named
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
func (in *Inputs) comments(f *source.File) *fileComments {
	if c, ok := in.scanned[f]; ok {
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
	if in.scanned == nil {
		in.scanned = map[*source.File]*fileComments{}
	}
	in.scanned[f] = c
	return c
}

// readProblem is the problem a file that was not read is: an error, or a warning when it was
// skipped as not a file lint reads.
func readProblem(f *source.File) Problem {
	severity := Error
	if f.Err.Skipped {
		severity = Warning
	}
	return Problem{Check: ReadCheck, Severity: severity, Path: f.Path, Pos: f.Err.Pos, Message: f.Err.Message}
}
