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
	var s shape
	depth, braces := 0, 0
	var quote byte
	operator := func(at int) {
		if s.operators++; s.operators == MaxOperators+1 {
			s.manyAt = at
		}
	}
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		switch {
		case quote != 0 && c == '\\' && quote != '`':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '#':
			for i < len(expr) && expr[i] != '\n' {
				i++
			}
		case c == '(' || c == '[' || c == '{':
			depth++
			if c == '{' {
				braces++
			}
			if depth > s.deepest {
				s.deepest = depth
				if depth == MaxNesting+1 {
					s.deepAt = i
				}
			}
		case c == ')' || c == ']' || c == '}':
			depth--
			if c == '}' {
				braces--
			}
		case braces > 0:
		case strings.IndexByte("+-*/%^<>=!", c) >= 0:
			operator(i)
			if i+1 < len(expr) && expr[i+1] == '=' {
				i++
			}
		case isWordStart(expr, i):
			end := i
			for end < len(expr) && (isWordByte(expr[end])) {
				end++
			}
			switch expr[i:end] {
			case "and", "or", "unless", "atan2":
				operator(i)
			}
			i = end - 1
		}
	}
	return s
}

// isWordStart reports whether an identifier starts at i.
func isWordStart(expr string, i int) bool {
	return (i == 0 || !isWordByte(expr[i-1])) && isWordByte(expr[i])
}

func isWordByte(c byte) bool {
	return c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
