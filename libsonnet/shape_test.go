package libsonnet

import (
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-jsonnet/ast"
	"github.com/google/go-jsonnet/formatter"
	"github.com/google/go-jsonnet/toolutils"
)

// TestQueriesAreTemplates reads every catalog file's Jsonnet syntax tree and finds the queries
// built by joins: a + with a string literal on either side, in an expr field's value or in a
// local it reads (followed through the file, so a helper that returns half a query is found
// where it is defined). Pieces from lib/expr.libsonnet (e.by, e.on) are another file's
// helpers: they return a piece, not a query. It names every join left, per file.
func TestQueriesAreTemplates(t *testing.T) {
	found := map[string][]string{}
	err := fs.WalkDir(FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := FS.ReadFile(path)
		if err != nil {
			return err
		}
		joins, err := queryJoins(path, string(src))
		if err != nil {
			return err
		}
		if len(joins) > 0 {
			found[path] = joins
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range slices.Sorted(maps.Keys(found)) {
		t.Errorf("%s: %d joined expressions: write each query as a ||| template filled by e.fill\n  %s", path, len(found[path]), strings.Join(found[path], "\n  "))
	}
}

// TestJoinsAreFound: the check finds a join in an expr field, in a local it reads and in a
// function a field calls, and passes a template filled by pieces.
func TestJoinsAreFound(t *testing.T) {
	for src, want := range map[string]int{
		`{ a: { expr: 'sum(' + x + ')' } }`:                                                                       1,
		`local half(m) = 'rate(' + m; { a: { expr: half('x') } }`:                                                 1,
		`{ local q = 'up' + '{job="x"}', records+: { r: { expr: q } } }`:                                          1,
		`local e = import 'e'; { a: { expr: e.fill(|||` + "\n  sum $(by) (x)\n" + `|||, { by: e.by(['a']) }) } }`: 0,
		`{ a: { summary: 'GPU ' + x } }`:                                                                          0,
	} {
		joins, err := queryJoins("t.libsonnet", src)
		if err != nil {
			t.Fatal(err)
		}
		if len(joins) != want {
			t.Errorf("%s: %d joins (%v), want %d", src, len(joins), joins, want)
		}
	}
}

// queryJoins lists, by position, the joins that build a query in one file's source.
func queryJoins(path, src string) ([]string, error) {
	root, _, err := formatter.SnippetToRawAST(path, src)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	locals := map[ast.Identifier][]ast.Node{}
	var exprs []ast.Node
	walk(root, func(n ast.Node) {
		switch n := n.(type) {
		case *ast.Local:
			for _, b := range n.Binds {
				locals[b.Variable] = append(locals[b.Variable], b.Body)
			}
		case *ast.Object:
			for _, f := range n.Fields {
				switch {
				case f.Kind == ast.ObjectLocal:
					locals[*f.Id] = append(locals[*f.Id], f.Expr2)
				case fieldName(f) == "expr":
					exprs = append(exprs, f.Expr2)
				}
			}
		}
	})
	seen, chained := map[ast.Node]bool{}, map[ast.Node]bool{}
	var joins []string
	var visit func(n ast.Node)
	visit = func(n ast.Node) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		switch n := n.(type) {
		case *ast.Binary:
			if n.Op == ast.BopPlus && !chained[n] && (isString(n.Left) || isString(n.Right)) {
				joins = append(joins, n.Loc().String())
				markChain(n, chained)
			}
		case *ast.Var:
			for _, body := range locals[n.Id] {
				visit(body)
			}
		}
		for _, c := range toolutils.Children(n) {
			visit(c)
		}
	}
	for _, e := range exprs {
		visit(e)
	}
	slices.Sort(joins)
	return slices.Compact(joins), nil
}

// markChain marks the + nodes of a chain (a + b + c) below its outermost one: one join.
func markChain(n *ast.Binary, chained map[ast.Node]bool) {
	for _, side := range []ast.Node{n.Left, n.Right} {
		if b, ok := side.(*ast.Binary); ok && b.Op == ast.BopPlus {
			chained[b] = true
			markChain(b, chained)
		}
	}
}

// walk calls f on n and every node below it.
func walk(n ast.Node, f func(ast.Node)) {
	if n == nil {
		return
	}
	f(n)
	for _, c := range toolutils.Children(n) {
		walk(c, f)
	}
}

// fieldName is an object field's name when it is written as one (expr, 'expr').
func fieldName(f ast.ObjectField) string {
	switch f.Kind {
	case ast.ObjectFieldID:
		return string(*f.Id)
	case ast.ObjectFieldStr:
		if s, ok := f.Expr1.(*ast.LiteralString); ok {
			return s.Value
		}
	}
	return ""
}

// isString reports whether n is a string literal, in parentheses or not.
func isString(n ast.Node) bool {
	for {
		p, ok := n.(*ast.Parens)
		if !ok {
			break
		}
		n = p.Inner
	}
	_, ok := n.(*ast.LiteralString)
	return ok
}
