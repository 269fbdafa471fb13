package promql

import (
	"fmt"

	"github.com/prometheus/prometheus/promql/parser"
)

// MaxNesting is how deeply parentheses, brackets and braces may nest in an expression gpuobs
// parses. Prometheus' parser takes time quadratic in the nesting of parentheses (100,000 take
// minutes); real rules nest a few dozen levels at most.
const MaxNesting = 256

// parseExpr parses with Prometheus' parser once the expression is known to nest no deeper
// than MaxNesting, which a linear scan decides.
func parseExpr(expr string) (parser.Expr, error) {
	if depth, at := nesting(expr); depth > MaxNesting {
		return nil, &ParseError{Offset: at, Msg: fmt.Sprintf("the expression nests more than %d levels of parentheses, brackets or braces; gpuobs does not parse it (Prometheus' parser slows down quadratically with nesting)", MaxNesting)}
	}
	return newParser().ParseExpr(expr)
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
