package promql

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/template/parse"

	"github.com/prometheus/prometheus/promql/parser"
)

// Version is a Prometheus release line, 3.N: what its parser reads is decided by its minor
// version.
type Version struct{ Major, Minor int }

// Newest is the Prometheus release gpuobs parses and tests rules with (the pinned module's).
var Newest = Version{3, 16}

// Oldest is the oldest release a target may be: Prometheus 3.0 changed the rule and query
// language (holt_winters renamed, UTF-8 names), and nothing older is modelled.
var Oldest = Version{3, 0}

// ParseVersion reads a release line such as "3.5", "3.13" or "3.13.2" (the patch is ignored:
// patches change no PromQL).
func ParseVersion(s string) (Version, error) {
	parts := strings.Split(strings.TrimPrefix(s, "v"), ".")
	if len(parts) < 2 || len(parts) > 3 {
		return Version{}, fmt.Errorf("%q is not a Prometheus version such as 3.13", s)
	}
	var v Version
	var err error
	if v.Major, err = strconv.Atoi(parts[0]); err != nil {
		return Version{}, fmt.Errorf("%q is not a Prometheus version such as 3.13", s)
	}
	if v.Minor, err = strconv.Atoi(parts[1]); err != nil {
		return Version{}, fmt.Errorf("%q is not a Prometheus version such as 3.13", s)
	}
	if v.Less(Oldest) || Newest.Less(v) {
		return Version{}, fmt.Errorf("%s is outside the releases gpuobs knows, %s to %s", v, Oldest, Newest)
	}
	return v, nil
}

// Less reports whether v is an older release than w.
func (v Version) Less(w Version) bool {
	return v.Major < w.Major || v.Major == w.Major && v.Minor < w.Minor
}

func (v Version) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// construct is a piece of PromQL that some Prometheus releases do not parse: the release that
// added it, and the --enable-feature flag it needs from then on until the release that made it
// stable (zero: it still needs it). Read from Prometheus' CHANGELOG and promql/parser at each
// release tag (functions.go's Experimental, lex.go's keywords).
type construct struct {
	since      Version
	flag       string
	flagBefore Version
}

// versioned are the constructs of Prometheus 3 that not every 3.x release parses without a
// flag, by the name Node.Construct gives them.
var versioned = map[string]construct{
	// Experimental in every release since 3.0.
	"function double_exponential_smoothing": {since: Version{3, 0}, flag: ExperimentalFunctions},
	"function info":                         {since: Version{3, 0}, flag: ExperimentalFunctions},
	"function mad_over_time":                {since: Version{3, 0}, flag: ExperimentalFunctions},
	"function sort_by_label":                {since: Version{3, 0}, flag: ExperimentalFunctions},
	"function sort_by_label_desc":           {since: Version{3, 0}, flag: ExperimentalFunctions},
	"aggregation limitk":                    {since: Version{3, 0}, flag: ExperimentalFunctions},
	"aggregation limit_ratio":               {since: Version{3, 0}, flag: ExperimentalFunctions},
	// Added during 3.x.
	"duration arithmetic":                {since: Version{3, 4}, flag: "promql-duration-expr", flagBefore: Version{3, 14}},
	"function ts_of_min_over_time":       {since: Version{3, 5}, flag: ExperimentalFunctions},
	"function ts_of_max_over_time":       {since: Version{3, 5}, flag: ExperimentalFunctions},
	"function ts_of_last_over_time":      {since: Version{3, 5}, flag: ExperimentalFunctions},
	"step() in a duration":               {since: Version{3, 6}, flag: "promql-duration-expr", flagBefore: Version{3, 14}},
	"function first_over_time":           {since: Version{3, 7}, flag: ExperimentalFunctions, flagBefore: Version{3, 14}},
	"function ts_of_first_over_time":     {since: Version{3, 7}, flag: ExperimentalFunctions},
	"the anchored modifier":              {since: Version{3, 7}, flag: "promql-extended-range-selectors", flagBefore: Version{3, 16}},
	"the smoothed modifier":              {since: Version{3, 7}, flag: "promql-extended-range-selectors", flagBefore: Version{3, 16}},
	"range() in a duration":              {since: Version{3, 10}, flag: "promql-duration-expr", flagBefore: Version{3, 14}},
	"the fill modifiers":                 {since: Version{3, 10}, flag: FillModifiers},
	"the histogram trim operators":       {since: Version{3, 11}},
	"function histogram_quantiles":       {since: Version{3, 11}, flag: ExperimentalFunctions},
	"function start":                     {since: Version{3, 12}, flag: ExperimentalFunctions},
	"function end":                       {since: Version{3, 12}, flag: ExperimentalFunctions},
	"function range":                     {since: Version{3, 12}, flag: ExperimentalFunctions},
	"function step":                      {since: Version{3, 12}, flag: ExperimentalFunctions},
	"function min_of":                    {since: Version{3, 13}, flag: ExperimentalFunctions},
	"function max_of":                    {since: Version{3, 13}, flag: ExperimentalFunctions},
	"min_of() or max_of() in a duration": {since: Version{3, 13}, flag: "promql-duration-expr", flagBefore: Version{3, 14}},
	"function start_timestamp":           {since: Version{3, 14}, flag: ExperimentalFunctions},
	"function integral":                  {since: Version{3, 16}, flag: ExperimentalFunctions},
	// Alert templates, which Prometheus checks when it loads a rule file.
	"template function now":            {since: Version{3, 6}},
	"template function toDuration":     {since: Version{3, 6}},
	"template function urlQueryEscape": {since: Version{3, 8}},
}

// Lack is a construct an expression uses that a target release does not parse as the server
// runs: it came later (Since), or it needs a flag the server does not run with (Flag).
type Lack struct {
	// Construct names it ("function first_over_time", "the anchored modifier").
	Construct string
	// Since is the release that added it, where the target is older; zero otherwise.
	Since Version
	// Flag is the --enable-feature flag it needs on the target, where that is what lacks.
	Flag string
	// Start and End are its byte offsets in the expression (0 for a template).
	Start, End int
}

// Message says what the target lacks and what to do, for a finding or a refusal.
func (l Lack) Message(target Version) string {
	if l.Flag == "" {
		return fmt.Sprintf("%s came in Prometheus %s, and the target (prometheus.version) is %s, which refuses the rule file: write it without %s, or target %s or later if your servers run it", l.Construct, l.Since, target, l.Construct, l.Since)
	}
	return fmt.Sprintf("%s needs --enable-feature=%s on Prometheus %s (prometheus.version), which prometheus.enableFeatures does not list: a server without it refuses the rule file (or the query); add the flag there if your servers run with it", l.Construct, l.Flag, target)
}

// Lacks lists, in order, the constructs of an expression that a target release lacks with the
// feature flags it runs with.
func Lacks(n *Node, target Version, flags []string) []Lack {
	var out []Lack
	Walk(n, func(c *Node, _ []*Node) {
		for _, name := range c.Constructs {
			if l, ok := lack(name, target, flags); ok {
				l.Start, l.End = c.Start, c.End
				out = append(out, l)
			}
		}
	})
	return out
}

// TemplateLacks lists the functions of an alert template (a label or annotation) that a target
// release lacks.
func TemplateLacks(text string, target Version) []Lack {
	var out []Lack
	for _, f := range templateFunctions(text) {
		if l, ok := lack("template function "+f, target, nil); ok {
			out = append(out, l)
		}
	}
	return out
}

// lack reports whether a target release with the flags given lacks a construct.
func lack(name string, target Version, flags []string) (Lack, bool) {
	c, ok := versioned[name]
	switch {
	case !ok:
		return Lack{}, false
	case target.Less(c.since):
		return Lack{Construct: name, Since: c.since}, true
	case c.flag != "" && (c.flagBefore == Version{} || target.Less(c.flagBefore)) && !slices.Contains(flags, c.flag):
		return Lack{Construct: name, Flag: c.flag}, true
	}
	return Lack{}, false
}

// durationConstructs names what a duration expression uses (arithmetic, step(), range(),
// min_of or max_of); none for a plain duration.
func durationConstructs(d *parser.DurationExpr) []string {
	if d == nil {
		return nil
	}
	var out []string
	var walk func(e parser.Expr)
	walk = func(e parser.Expr) {
		d, ok := e.(*parser.DurationExpr)
		if !ok {
			return
		}
		switch d.Op {
		case parser.STEP:
			out = append(out, "step() in a duration")
		case parser.RANGE:
			out = append(out, "range() in a duration")
		case parser.MIN_OF, parser.MAX_OF:
			out = append(out, "min_of() or max_of() in a duration")
		}
		walk(d.LHS)
		walk(d.RHS)
	}
	walk(d)
	return append(out, "duration arithmetic")
}

// templateFunctions lists the functions an alert template calls; none where it does not parse
// (Prometheus' own check reports that).
func templateFunctions(text string) []string {
	if !strings.Contains(text, "{{") {
		return nil
	}
	trees, err := parseTemplate(alertTemplateDefs + text)
	if err != nil {
		return nil
	}
	var out []string
	visit := func(n parse.Node) {
		if id, ok := n.(*parse.IdentifierNode); ok && !slices.Contains(out, id.Ident) {
			out = append(out, id.Ident)
		}
	}
	for _, tree := range trees {
		walkTemplate(tree.Root, visit)
	}
	slices.Sort(out)
	return out
}
