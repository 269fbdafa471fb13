package promql

import (
	"fmt"
	"strings"
	"sync"

	"github.com/prometheus/prometheus/promql/parser"
)

// MaxNesting is how deeply parentheses, brackets and braces may nest in an expression gpuobs
// parses. Prometheus' parser takes time quadratic in the nesting of parentheses (100,000 take
// minutes); real rules nest a few dozen levels at most.
const MaxNesting = 256

// MaxOperators is how many operators (arithmetic, comparison, set and atan2, outside label
// matchers and strings) an expression gpuobs parses may hold, and MaxLength how many bytes:
// Prometheus' parser takes time quadratic in a flat chain's length too (20,000 operands a
// second, 100,000 half a minute); real rules hold a few dozen operators.
const (
	MaxOperators = 2000
	MaxLength    = 256 << 10
)

// parseExpr parses with Prometheus' parser once the expression is known to nest no deeper
// than MaxNesting, which a linear scan decides. A build reads each expression through several
// views (its canonical and pretty forms, the metrics it reads, its tree), and each view parsed
// it again; now the first parse serves them all (the trees are only read, never changed).
func parseExpr(expr string) (parser.Expr, error) {
	if r, ok := parsed.get(expr); ok {
		return r.expr, r.err
	}
	var r parseResult
	if len(expr) > MaxLength {
		r.err = &ParseError{Offset: MaxLength, Msg: fmt.Sprintf("the expression is longer than %d bytes; gpuobs does not parse it (Prometheus' parser slows down quadratically with length)", MaxLength)}
	} else if shape := scan(expr); shape.deepest > MaxNesting {
		r.err = &ParseError{Offset: shape.deepAt, Msg: fmt.Sprintf("the expression nests more than %d levels of parentheses, brackets or braces; gpuobs does not parse it (Prometheus' parser slows down quadratically with nesting)", MaxNesting)}
	} else if shape.operators > MaxOperators {
		r.err = &ParseError{Offset: shape.manyAt, Msg: fmt.Sprintf("the expression holds more than %d operators; gpuobs does not parse it (Prometheus' parser slows down quadratically with a chain's length)", MaxOperators)}
	} else {
		r.expr, r.err = newParser().ParseExpr(expr)
	}
	parsed.put(expr, r)
	return r.expr, r.err
}

// parseResult is one parse: the tree or the error.
type parseResult struct {
	expr parser.Expr
	err  error
}

// parseCache holds the parses of a run, up to maxParses of them (a lint run over a huge rule
// set, or a fuzz run, parses past it without keeping more).
type parseCache struct {
	mu      sync.Mutex
	results map[string]parseResult
}

const maxParses = 20000

var parsed = &parseCache{results: map[string]parseResult{}}

func (c *parseCache) get(expr string) (parseResult, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.results[expr]
	return r, ok
}

func (c *parseCache) put(expr string, r parseResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.results) < maxParses {
		c.results[expr] = r
	}
}

// shape is what a linear scan sees of an expression: its deepest nesting of (, [ and {, and
// its operators, each with the offset where it first passes its bound.
type shape struct {
	deepest, deepAt   int
	operators, manyAt int
}

// scan measures an expression's shape outside string literals and comments; operators are
// counted outside label matchers.
func scan(expr string) shape {
	sc := scanner{expr: expr}
	for i := 0; i < len(expr); i++ {
		switch c := expr[i]; {
		case sc.quote != 0:
			i = sc.inString(i)
		case c == '"' || c == '\'' || c == '`':
			sc.quote = c
		case c == '#':
			i = sc.lineEnd(i)
		case c == '(' || c == '[' || c == '{':
			sc.open(i)
		case c == ')' || c == ']' || c == '}':
			sc.close(c)
		case sc.braces > 0:
		default:
			i = sc.operatorAt(i)
		}
	}
	return sc.shape
}

// scanner is scan's state: the shape so far, the open brackets and the string being read.
type scanner struct {
	shape
	expr          string
	depth, braces int
	quote         byte
}

// inString reads one byte of a string literal and returns the last offset it consumed.
func (sc *scanner) inString(i int) int {
	switch c := sc.expr[i]; {
	case c == '\\' && sc.quote != '`':
		return i + 1
	case c == sc.quote:
		sc.quote = 0
	}
	return i
}

// lineEnd returns the offset of the newline that ends the comment at i.
func (sc *scanner) lineEnd(i int) int {
	for i < len(sc.expr) && sc.expr[i] != '\n' {
		i++
	}
	return i
}

func (sc *scanner) open(i int) {
	sc.depth++
	if sc.expr[i] == '{' {
		sc.braces++
	}
	if sc.depth > sc.deepest {
		sc.deepest = sc.depth
		if sc.depth == MaxNesting+1 {
			sc.deepAt = i
		}
	}
}

func (sc *scanner) close(c byte) {
	sc.depth--
	if c == '}' {
		sc.braces--
	}
}

// operatorAt counts the operator or keyword operator at i, if one starts there, and returns
// the last offset it consumed.
func (sc *scanner) operatorAt(i int) int {
	expr := sc.expr
	switch {
	case strings.IndexByte("+-*/%^<>=!", expr[i]) >= 0:
		sc.operator(i)
		if i+1 < len(expr) && expr[i+1] == '=' {
			return i + 1
		}
	case isWordStart(expr, i):
		end := i
		for end < len(expr) && isWordByte(expr[end]) {
			end++
		}
		switch expr[i:end] {
		case "and", "or", "unless", "atan2":
			sc.operator(i)
		}
		return end - 1
	}
	return i
}

func (sc *scanner) operator(at int) {
	if sc.operators++; sc.operators == MaxOperators+1 {
		sc.manyAt = at
	}
}

// isWordStart reports whether an identifier starts at i.
func isWordStart(expr string, i int) bool {
	return (i == 0 || !isWordByte(expr[i-1])) && isWordByte(expr[i])
}

func isWordByte(c byte) bool {
	return c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
