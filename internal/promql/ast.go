package promql

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

// Kind is the kind of an expression node.
type Kind int

// Node kinds.
const (
	Selector  Kind = iota // a vector selector; Range > 0 for a range selector
	Call                  // a function call
	Aggregate             // an aggregation (sum by (...) (...))
	Binary                // a binary operation
	Unary                 // a unary minus or plus
	Subquery              // expr[range:step]
	Number                // a number literal
	String                // a string literal
)

// Node is gpuobs' view of a parsed PromQL expression: enough to reason about metrics, labels,
// functions and aggregations without depending on Prometheus' AST types.
type Node struct {
	Kind Kind
	// Name is the metric name (Selector), function (Call) or operator (Aggregate, Binary, Unary).
	Name     string
	Matchers []Matcher
	// Range is the range of a range selector or subquery.
	Range time.Duration
	// Grouping and Without are an aggregation's by/without labels.
	Grouping []string
	Without  bool
	// ReturnBool is a comparison's bool modifier.
	ReturnBool bool
	Value      float64 // Number
	// Args are the operands: function arguments, the aggregated expression (last, after an
	// optional parameter), LHS and RHS.
	Args []*Node
	// Start and End are byte offsets of the node in the expression.
	Start, End int
	// Constructs name what the node uses that not every Prometheus 3 release parses without a
	// flag (versions.go): an experimental or recent function or aggregation, a fill modifier,
	// a duration expression, anchored or smoothed; nil for most nodes.
	Constructs []string
	// vector is a binary operation's vector matching where it is not the default (Vector): a
	// lint run holds the nodes of tens of thousands of expressions, most of them without one.
	vector *VectorMatching
}

// VectorMatching is how a binary operation matches the series of its operands.
type VectorMatching struct {
	Matching bool // on or ignoring was given
	On       bool
	MatchOn  []string
	Include  []string // group_left/group_right labels
	Card     string   // many-to-one, one-to-many, many-to-many; "" for one-to-one
}

// Vector is the node's vector matching: the zero value (one-to-one, on every label) for a
// binary operation that gives none, and for any other node.
func (n *Node) Vector() VectorMatching {
	if n.vector == nil {
		return VectorMatching{}
	}
	return *n.vector
}

// Prometheus feature flags that PromQL constructs need.
const (
	ExperimentalFunctions = "promql-experimental-functions"
	FillModifiers         = "promql-binop-fill-modifiers"
)

// Matcher is one label matcher of a selector.
type Matcher struct {
	Name, Type, Value string
}

// IsComparison reports whether a binary operator compares its operands: ==, !=, >, <, >=, <=.
func IsComparison(op string) bool {
	switch op {
	case "==", "!=", ">", "<", ">=", "<=":
		return true
	}
	return false
}

// ParseError is an invalid expression, with the byte offset of the problem.
type ParseError struct {
	Offset int
	Msg    string
}

func (e *ParseError) Error() string { return e.Msg }

// Parse parses an expression into gpuobs' view.
func Parse(expr string) (*Node, error) {
	e, err := parseExpr(expr)
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) {
			return nil, pe
		}
		var errs parser.ParseErrors
		if errors.As(err, &errs) && len(errs) > 0 {
			return nil, &ParseError{Offset: int(errs[0].PositionRange.Start), Msg: errs[0].Err.Error()}
		}
		return nil, &ParseError{Msg: err.Error()}
	}
	return convert(e), nil
}

// convertBinary converts a binary operation with its vector matching.
func convertBinary(n *parser.BinaryExpr) *Node {
	r := n.PositionRange()
	out := &Node{Kind: Binary, Name: n.Op.String(), ReturnBool: n.ReturnBool, Start: int(r.Start), End: int(r.End),
		Args: []*Node{convert(n.LHS), convert(n.RHS)}}
	if vm := n.VectorMatching; vm != nil {
		v := VectorMatching{Matching: vm.On || len(vm.MatchingLabels) > 0, On: vm.On, MatchOn: vm.MatchingLabels, Include: vm.Include}
		if vm.Card != parser.CardOneToOne {
			v.Card = vm.Card.String()
		}
		if v.Matching || v.Card != "" || len(v.Include) > 0 {
			out.vector = &v
		}
		if vm.FillValues.LHS != nil || vm.FillValues.RHS != nil {
			out.Constructs = append(out.Constructs, "the fill modifiers")
		}
	}
	if n.Op == parser.TRIM_UPPER || n.Op == parser.TRIM_LOWER {
		out.Constructs = append(out.Constructs, "the histogram trim operators")
	}
	return out
}

func convert(e parser.Expr) *Node {
	switch n := e.(type) {
	case *parser.ParenExpr:
		return convert(n.Expr)
	case *parser.StepInvariantExpr:
		return convert(n.Expr)
	case *parser.VectorSelector:
		out := &Node{Kind: Selector, Name: n.Name, Start: int(n.PosRange.Start), End: int(n.PosRange.End)}
		for _, m := range n.LabelMatchers {
			if m.Name == "__name__" && out.Name == "" && m.Type.String() == "=" {
				out.Name = m.Value
			}
			if m.Name != "__name__" {
				out.Matchers = append(out.Matchers, Matcher{Name: m.Name, Type: m.Type.String(), Value: m.Value})
			}
		}
		if n.Anchored {
			out.Constructs = append(out.Constructs, "the anchored modifier")
		}
		if n.Smoothed {
			out.Constructs = append(out.Constructs, "the smoothed modifier")
		}
		out.Constructs = append(out.Constructs, durationConstructs(n.OriginalOffsetExpr)...)
		return out
	case *parser.MatrixSelector:
		out := convert(n.VectorSelector)
		out.Range, out.End = n.Range, int(n.EndPos)
		out.Constructs = append(out.Constructs, durationConstructs(n.RangeExpr)...)
		return out
	case *parser.Call:
		out := &Node{Kind: Call, Name: n.Func.Name, Start: int(n.PosRange.Start), End: int(n.PosRange.End)}
		if _, ok := versioned["function "+n.Func.Name]; ok || n.Func.Experimental {
			out.Constructs = []string{"function " + n.Func.Name}
		}
		for _, a := range n.Args {
			out.Args = append(out.Args, convert(a))
		}
		return out
	case *parser.AggregateExpr:
		out := &Node{Kind: Aggregate, Name: n.Op.String(), Grouping: n.Grouping, Without: n.Without, Start: int(n.PosRange.Start), End: int(n.PosRange.End)}
		if n.Op.IsExperimentalAggregator() {
			out.Constructs = []string{"aggregation " + n.Op.String()}
		}
		if n.Param != nil {
			out.Args = append(out.Args, convert(n.Param))
		}
		out.Args = append(out.Args, convert(n.Expr))
		return out
	case *parser.BinaryExpr:
		return convertBinary(n)
	case *parser.UnaryExpr:
		r := n.PositionRange()
		return &Node{Kind: Unary, Name: n.Op.String(), Start: int(r.Start), End: int(r.End), Args: []*Node{convert(n.Expr)}}
	case *parser.SubqueryExpr:
		r := n.PositionRange()
		var constructs []string
		for _, d := range []*parser.DurationExpr{n.RangeExpr, n.StepExpr, n.OriginalOffsetExpr} {
			constructs = append(constructs, durationConstructs(d)...)
		}
		return &Node{Kind: Subquery, Range: n.Range, Start: int(r.Start), End: int(r.End), Args: []*Node{convert(n.Expr)}, Constructs: constructs}
	case *parser.NumberLiteral:
		r := n.PositionRange()
		return &Node{Kind: Number, Value: n.Val, Start: int(r.Start), End: int(r.End)}
	case *parser.StringLiteral:
		r := n.PositionRange()
		return &Node{Kind: String, Name: n.Val, Start: int(r.Start), End: int(r.End)}
	default:
		r := e.PositionRange()
		return &Node{Kind: String, Name: fmt.Sprintf("%T", e), Start: int(r.Start), End: int(r.End)}
	}
}

// Walk calls fn for n and every node below it, with the chain of ancestors (outermost first).
func Walk(n *Node, fn func(n *Node, ancestors []*Node)) {
	if n == nil {
		// An expression that did not parse (or a rule without one) has no nodes.
		return
	}
	var walk func(n *Node, stack []*Node)
	walk = func(n *Node, stack []*Node) {
		fn(n, stack)
		stack = append(stack, n)
		for _, a := range n.Args {
			walk(a, stack)
		}
	}
	// One backing array serves every chain (siblings share their ancestors' prefix), so a walk
	// allocates only past this depth.
	walk(n, make([]*Node, 0, 32))
}

// Matches reports whether the matcher selects a label value, by Prometheus' own matching (a
// regular expression is anchored); false where the matcher does not compile.
func (m Matcher) Matches(value string) bool {
	key := m.Type + "\x00" + m.Value
	lm, ok := compiledMatchers.Load(key)
	if !ok {
		t, known := matchTypes[m.Type]
		if !known {
			return false
		}
		compiled, err := labels.NewMatcher(t, m.Name, m.Value)
		if err != nil {
			return false
		}
		lm, _ = compiledMatchers.LoadOrStore(key, compiled)
	}
	return lm.(*labels.Matcher).Matches(value)
}

// compiledMatchers holds Prometheus' matchers by operator and value, built once per process:
// the plan asks each histogram bound of every read whether a selector matches it, and
// building a matcher compiles its regular expression.
var compiledMatchers sync.Map // type + "\x00" + value → *labels.Matcher

// matchTypes are Prometheus' matcher types by their operator.
var matchTypes = map[string]labels.MatchType{"=": labels.MatchEqual, "!=": labels.MatchNotEqual, "=~": labels.MatchRegexp, "!~": labels.MatchNotRegexp}
