// Package lint checks Prometheus rule files and Grafana dashboards offline, against what the
// catalog knows about dcgm-exporter's fields: cardinality at fleet size, PromQL semantics,
// alert hygiene and naming. Each check is a small type with a stable name (area/name).
package lint

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/gpuobs/gpuobs/internal/lint/analysis"
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
		promqlSyntax{}, promqlFeature{}, promqlFloatLabel{}, promqlHistogramForm{}, promqlBucketBound{}, promqlCounter{}, promqlUnknownMetric{}, promqlMIGDoubleCount{},
		exporterNotCollected{}, unitsMismatch{},
		cardinalityBudget{}, cardinalityLabel{},
		alertsSeverity{}, alertsAnnotations{}, alertsFor{}, alertsTemplateLabels{}, alertsLastEventState{}, alertsValueInLabel{},
		groupsInterval{}, groupsDuplicateRule{},
		namingRecord{}, namingAlert{}, namingUnit{}, namingLegacyNames{},
		placementGlobalRaw{}, placementShardReadsGlobal{},
	}
}

// DocsURL is where the documentation page of each check lives.
const DocsURL = "https://github.com/gpuobs/gpuobs/blob/main/docs/checks/"

// DocPath is the documentation page of a check, relative to docs/checks/.
func DocPath(check string) string { return strings.ReplaceAll(check, "/", "-") + ".md" }

// Inputs is everything a check sees: the catalog, the files, and the analysis of both.
type Inputs struct {
	Model *model.Model
	Files []*source.File
	// Analysis answers what the checks ask of expressions and metrics: labels, units,
	// projections, which rules record a metric, in which layer a file runs.
	Analysis *analysis.Analysis
	// FleetSource says where the fleet size projections use comes from.
	FleetSource string
	// BaseDir is the catalog file's directory: lint.ignore paths are relative to it.
	BaseDir string
}

// NewInputs prepares files for checking against a catalog's plan.
func NewInputs(p *plan.Plan, files []*source.File) *Inputs {
	return &Inputs{Model: p.Model, Files: files, Analysis: analysis.New(p, files), FleetSource: "the catalog's fleet"}
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
	charts := map[string][]*source.File{}
	for _, f := range in.Files {
		switch {
		case f.Err != nil && f.Err.Chart != "":
			charts[f.Err.Chart] = append(charts[f.Err.Chart], f)
		case f.Err != nil:
			out = append(out, readProblem(f))
		}
	}
	for _, chart := range model.SortedKeys(charts) {
		out = append(out, chartProblem(chart, charts[chart]))
	}
	byPath := map[string]*source.File{}
	for _, f := range in.Files {
		byPath[f.Path] = f
	}
	sup := newSuppressions(in.Model, in.BaseDir)
	for _, f := range in.Files {
		for _, p := range sup.unknown(f) {
			if !sup.suppressed(f, p) {
				out = append(out, p)
			}
		}
	}
	for _, c := range checks {
		c.Run(in, func(p Problem) {
			p.Check = c.Name()
			if !sup.suppressed(byPath[p.Path], p) {
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

// chartProblem is the one problem of the templates of a Helm chart that lint cannot read, at
// the first: info, since a chart's templates are never deployed as they are (a pull request
// that turns a rule file outside a chart into a template still fails: readProblem).
func chartProblem(chart string, templates []*source.File) Problem {
	first := templates[0]
	for _, f := range templates {
		if f.Path < first.Path {
			first = f
		}
	}
	return Problem{Check: ReadCheck, Severity: Info, Path: first.Path, Pos: first.Err.Pos,
		Message: fmt.Sprintf("cannot read %d templates of the Helm chart %s, this one first: they are not YAML until rendered; lint what `helm template %s` renders (info: a chart's templates are never deployed as they are)", len(templates), chart, chart)}
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
