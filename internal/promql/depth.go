package promql

import (
	"fmt"
	"sync"

	"github.com/prometheus/prometheus/promql/parser"
)

// MaxNesting is how deeply parentheses, brackets and braces may nest in an expression gpuobs
// parses. Prometheus' parser takes time quadratic in the nesting of parentheses (100,000 take
// minutes); real rules nest a few dozen levels at most.
const MaxNesting = 256

// parseExpr parses with Prometheus' parser once the expression is known to nest no deeper
// than MaxNesting, which a linear scan decides. A build reads each expression through several
// views (its canonical and pretty forms, the metrics it reads, its tree), and each view parsed
// it again; now the first parse serves them all (the trees are only read, never changed).
func parseExpr(expr string) (parser.Expr, error) {
	if r, ok := parsed.get(expr); ok {
		return r.expr, r.err
	}
	var r parseResult
	if depth, at := nesting(expr); depth > MaxNesting {
		r.err = &ParseError{Offset: at, Msg: fmt.Sprintf("the expression nests more than %d levels of parentheses, brackets or braces; gpuobs does not parse it (Prometheus' parser slows down quadratically with nesting)", MaxNesting)}
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

// nesting is the deepest nesting of (, [ and { outside string literals, and the offset where
// it first passes MaxNesting.
func nesting(expr string) (deepest, at int) {
	depth := 0
	var quote byte
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
			if depth > deepest {
				deepest = depth
				if depth == MaxNesting+1 {
					at = i
				}
			}
		case c == ')' || c == ']' || c == '}':
			depth--
		}
	}
	return deepest, at
}
