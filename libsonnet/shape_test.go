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
// built by joins: a + with a string literal on either side, in an expr field's value, a
// panel's or a dashboard variable's query, a runbook's first-look query, or in a local any of
// them reads (followed through the file, so a helper that returns half a query is found
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
	locals := fileLocals(root)
	var exprs []ast.Node
	walk(root, func(n ast.Node) {
		switch n := n.(type) {
		case *ast.Object:
			for _, f := range n.Fields {
				if f.Kind != ast.ObjectLocal && fieldName(f) == "expr" {
					exprs = append(exprs, f.Expr2)
				}
			}
		case *ast.Apply:
			if i := queryArgument(n, locals); i >= 0 && i < len(n.Arguments.Positional) {
				exprs = append(exprs, n.Arguments.Positional[i].Expr)
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
			if n.Op == ast.BopPlus && !chained[n] && joinsText(n) {
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

// queryArgument is the position of the query among a call's arguments where the call builds a
// panel's query (q(expr, legend)), a dashboard variable (v(name, label, query)) or a runbook's
// first-look query (rb.query(title, expr), or q bound to it); -1 for any other call.
func queryArgument(call *ast.Apply, locals map[ast.Identifier][]ast.Node) int {
	switch name := calledName(call.Target); name {
	case "query":
		return 1
	case "v":
		return 2
	case "q":
		if v, ok := call.Target.(*ast.Var); ok {
			for _, body := range locals[v.Id] {
				if calledName(body) == "query" {
					return 1
				}
			}
		}
		return 0
	}
	return -1
}

// calledName is the name a call's target is written with: f, or the field of a.f.
func calledName(target ast.Node) string {
	switch t := target.(type) {
	case *ast.Var:
		return string(t.Id)
	case *ast.Index:
		if t.Id != nil {
			return string(*t.Id)
		}
	}
	return ""
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
	for _, c := range children(n) {
		walk(c, f)
	}
}

// children are the nodes right below n, with the target of a.b, which go-jsonnet's
// toolutils.Children leaves out before desugaring.
func children(n ast.Node) []ast.Node {
	if i, ok := n.(*ast.Index); ok && i.Id != nil {
		return []ast.Node{i.Target}
	}
	return toolutils.Children(n)
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

// joinsText reports whether a chain of + (a + b + c) joins text: one of its operands is a
// string literal or a filled template (e.fill(...)).
func joinsText(n *ast.Binary) bool {
	for _, side := range []ast.Node{n.Left, n.Right} {
		if b, ok := unparen(side).(*ast.Binary); ok && b.Op == ast.BopPlus && joinsText(b) {
			return true
		}
		if isString(side) {
			return true
		}
		if call, ok := unparen(side).(*ast.Apply); ok && calledName(call.Target) == "fill" {
			return true
		}
	}
	return false
}

// unparen is n without the parentheses around it.
func unparen(n ast.Node) ast.Node {
	for {
		p, ok := n.(*ast.Parens)
		if !ok {
			return n
		}
		n = p.Inner
	}
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

// TestAlertsLiveInOneEntry reads every catalog file's syntax tree: an alert's runbook, the
// thresholds its L5 panels show (panelThresholds) and its scenarios (tests) are written in the
// entry that defines the alert, in its family file. It fails on an entry of a catalog file's
// alerts that extends an alert (Name+:) with any of them, on an alert defined in two files,
// on a table of DCGM fields to catalog thresholds outside an alert's panelThresholds (as
// dashboards.libsonnet's fieldThresholds was), and on runbooks.libsonnet, which held the
// runbooks of the older families away from their alerts.
func TestAlertsLiveInOneEntry(t *testing.T) {
	if _, err := fs.Stat(FS, "runbooks.libsonnet"); err == nil {
		t.Error("runbooks.libsonnet exists: write each runbook in the entry of its alert, in the alert's family file")
	}
	files := map[string]string{}
	err := fs.WalkDir(FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := FS.ReadFile(path)
		files[path] = string(src)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	problems, err := misplaced(files)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestMisplacedAreFound: the check finds a runbook, scenarios or a panel threshold added to an
// alert by another entry (directly, through a local, under a conditional name, in a helper's
// argument), an alert defined twice, and a field-to-threshold table, and passes an alert that
// holds all three in its own entry and an extension that changes only its expression.
func TestMisplacedAreFound(t *testing.T) {
	const own = `local rb = import 'lib/runbook.libsonnet';
{ alerts+: { GPUA: hw { expr: 'x', panelThresholds:: { DCGM_FI_DEV_GPU_TEMP: $.thresholds.t }, tests: [], runbook: rb.query('t', 'up') } } }`
	for _, c := range []struct {
		name  string
		files map[string]string
		want  int
	}{
		{"own entry", map[string]string{"hardware.libsonnet": own}, 0},
		{"expression extended elsewhere", map[string]string{"hardware.libsonnet": own, "maintenance.libsonnet": `{ alerts+: { GPUA+: { expr: 'y' } } }`}, 0},
		{"runbook elsewhere", map[string]string{"hardware.libsonnet": own, "runbooks.libsonnet": `{ alerts+: { GPUA+: { runbook: { meaning: 'm' } } } }`}, 1},
		{"runbook through a local", map[string]string{"hardware.libsonnet": own, "r.libsonnet": `{ local r = { runbook: {} }, alerts+: { GPUA+: r } }`}, 1},
		{"scenarios under a conditional name", map[string]string{"hardware.libsonnet": own, "t.libsonnet": `{ alerts+: { [if c then 'GPUA']+: { tests+: [] } } }`}, 1},
		{"panel threshold in a helper's argument", map[string]string{"hardware.libsonnet": own, "p.libsonnet": `{ alerts+: (if x then {} else only({ GPUA+: { panelThresholds+:: {} } })) }`}, 1},
		{"defined twice", map[string]string{"hardware.libsonnet": own, "w.libsonnet": `{ alerts+: { GPUA: { expr: 'x' } } }`}, 1},
		{"threshold table", map[string]string{"dashboards.libsonnet": `{ local th = $.thresholds, local fieldThresholds = { DCGM_FI_DEV_GPU_TEMP: th.gpuTemperatureCelsius } }`}, 1},
	} {
		problems, err := misplaced(c.files)
		if err != nil {
			t.Fatal(err)
		}
		if len(problems) != c.want {
			t.Errorf("%s: %d problems (%v), want %d", c.name, len(problems), problems, c.want)
		}
	}
}

// ownFields are what an alert's own entry holds and no other entry adds.
var ownFields = []string{"runbook", "panelThresholds", "tests"}

// misplaced lists, by position, what the catalog files (path to source) write away from the
// entry of the alert it belongs to.
func misplaced(files map[string]string) ([]string, error) {
	var problems []string
	defined := map[string][]string{} // alert -> the files defining it
	for _, path := range slices.Sorted(maps.Keys(files)) {
		root, _, err := formatter.SnippetToRawAST(path, files[path])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		locals := fileLocals(root)
		declared := map[ast.Node]bool{} // the alerts' own panelThresholds
		for _, entry := range alertEntries(root) {
			walk(entry.Expr2, func(n ast.Node) {
				if o, ok := n.(*ast.Object); ok {
					for _, f := range o.Fields {
						if fieldName(f) == "panelThresholds" {
							declared[f.Expr2] = true
						}
					}
				}
			})
			name := entryName(entry)
			if !entry.SuperSugar {
				if name != "" && !slices.Contains(defined[name], path) {
					defined[name] = append(defined[name], path)
				}
				continue
			}
			if name == "" {
				name = "an alert"
			}
			for _, f := range setsFields(entry.Expr2, locals, ownFields) {
				problems = append(problems, fmt.Sprintf("%s: %s is extended with its %s: write it in the entry that defines %s, in its family file", entry.LocRange.String(), name, f, name))
			}
		}
		walk(root, func(n ast.Node) {
			if o, ok := n.(*ast.Object); ok && !declared[o] && thresholdTable(o, locals) {
				problems = append(problems, fmt.Sprintf("%s: a table of fields to catalog thresholds: declare each in the panelThresholds of the alert that owns it", o.Loc().String()))
			}
		})
	}
	for _, name := range slices.Sorted(maps.Keys(defined)) {
		if files := defined[name]; len(files) > 1 {
			problems = append(problems, fmt.Sprintf("%s is defined in %s: define it in one family file", name, strings.Join(files, " and ")))
		}
	}
	return problems, nil
}

// alertEntries are the fields of a file's alerts (the alerts field of its root object), found
// through the conditionals, additions, locals and calls its value is written with.
func alertEntries(root ast.Node) []ast.ObjectField {
	var entries []ast.ObjectField
	var values func(n ast.Node, alerts bool)
	values = func(n ast.Node, alerts bool) {
		switch n := n.(type) {
		case *ast.Local:
			values(n.Body, alerts)
		case *ast.Parens:
			values(n.Inner, alerts)
		case *ast.Binary:
			values(n.Left, alerts)
			values(n.Right, alerts)
		case *ast.ApplyBrace:
			values(n.Left, alerts)
			values(n.Right, alerts)
		case *ast.Conditional:
			if alerts {
				values(n.BranchTrue, alerts)
				values(n.BranchFalse, alerts)
			}
		case *ast.Apply:
			if alerts {
				for _, a := range n.Arguments.Positional {
					values(a.Expr, alerts)
				}
				for _, a := range n.Arguments.Named {
					values(a.Arg, alerts)
				}
			}
		case *ast.Object:
			for _, f := range n.Fields {
				switch {
				case alerts && f.Kind != ast.ObjectLocal && f.Kind != ast.ObjectAssert:
					entries = append(entries, f)
				case !alerts && fieldName(f) == "alerts":
					values(f.Expr2, true)
				}
			}
		case *ast.ObjectComp:
			if alerts {
				entries = append(entries, n.Fields...)
			}
		}
	}
	values(root, false)
	return entries
}

// entryName is the name of an alerts entry written as one, or chosen by a conditional
// ([if cond then 'Name']); "" when it is computed otherwise.
func entryName(f ast.ObjectField) string {
	if name := fieldName(f); name != "" {
		return name
	}
	if c, ok := f.Expr1.(*ast.Conditional); ok && f.Kind == ast.ObjectFieldExpr {
		if s, ok := c.BranchTrue.(*ast.LiteralString); ok {
			return s.Value
		}
	}
	return ""
}

// setsFields lists which of names an expression sets as object fields, followed through the
// file's locals.
func setsFields(n ast.Node, locals map[ast.Identifier][]ast.Node, names []string) []string {
	var found []string
	reach(n, locals, func(n ast.Node) {
		if o, ok := n.(*ast.Object); ok {
			for _, f := range o.Fields {
				if name := fieldName(f); slices.Contains(names, name) && !slices.Contains(found, name) {
					found = append(found, name)
				}
			}
		}
	})
	return found
}

// thresholdTable reports whether an object maps DCGM fields to what reads the catalog's
// thresholds.
func thresholdTable(o *ast.Object, locals map[ast.Identifier][]ast.Node) bool {
	for _, f := range o.Fields {
		if f.Kind == ast.ObjectLocal || !strings.HasPrefix(fieldName(f), "DCGM_FI_") {
			continue
		}
		reads := false
		reach(f.Expr2, locals, func(n ast.Node) {
			if i, ok := n.(*ast.Index); ok && i.Id != nil && *i.Id == "thresholds" {
				reads = true
			}
		})
		if reads {
			return true
		}
	}
	return false
}

// reach calls f on n and every node below it, following each variable to the bodies of the
// file's locals of its name.
func reach(n ast.Node, locals map[ast.Identifier][]ast.Node, f func(ast.Node)) {
	seen := map[ast.Node]bool{}
	var visit func(n ast.Node)
	visit = func(n ast.Node) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		f(n)
		if v, ok := n.(*ast.Var); ok {
			for _, body := range locals[v.Id] {
				visit(body)
			}
		}
		for _, c := range children(n) {
			visit(c)
		}
	}
	visit(n)
}

// fileLocals maps each local name of a file to the bodies bound to it, in expressions and in
// objects.
func fileLocals(root ast.Node) map[ast.Identifier][]ast.Node {
	locals := map[ast.Identifier][]ast.Node{}
	walk(root, func(n ast.Node) {
		switch n := n.(type) {
		case *ast.Local:
			for _, b := range n.Binds {
				locals[b.Variable] = append(locals[b.Variable], b.Body)
			}
		case *ast.Object:
			for _, f := range n.Fields {
				if f.Kind == ast.ObjectLocal {
					locals[*f.Id] = append(locals[*f.Id], f.Expr2)
				}
			}
		}
	})
	return locals
}

// TestPanelThresholdsComeFromAlerts reads the dashboards' syntax trees: a panel's threshold line
// is an alert's (thresholdOf, or an L5 field's panelThresholds) or an SLO's (sloAt), never a
// value read straight from the threshold table, which would stay on the panel when the alert
// goes.
func TestPanelThresholdsComeFromAlerts(t *testing.T) {
	err := fs.WalkDir(FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || (!strings.HasPrefix(path, "dashboards/") && path != "lib/panels.libsonnet") {
			return err
		}
		src, err := FS.ReadFile(path)
		if err != nil {
			return err
		}
		found, err := tableThresholds(path, string(src))
		for _, p := range found {
			t.Errorf("%s: a panel threshold read from the threshold table: read it from its alert, thresholdOf('Alert', key)", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestTableThresholdsAreFound: the check finds a threshold table read in a panel's thresholds
// argument or field, directly or through a local, and passes an alert's.
func TestTableThresholdsAreFound(t *testing.T) {
	for src, want := range map[string]int{
		`local th = $.thresholds; [panel('a', thresholds=alertAt(th.x))]`:         1,
		`[panel('a', thresholds=alertAt($.thresholds.x))]`:                        1,
		`[panel('a') { thresholds: [[null, 'green'], [$.thresholds.x, 'red']] }]`: 1,
		`[panel('a', thresholds=thresholdOf('GPUX', 'DCGM_FI_DEV_GPU_TEMP'))]`:    0,
		`[panel('a', description='over ' + $.thresholds.x)]`:                      0,
	} {
		found, err := tableThresholds("t.libsonnet", src)
		if err != nil {
			t.Fatal(err)
		}
		if len(found) != want {
			t.Errorf("%s: %d found (%v), want %d", src, len(found), found, want)
		}
	}
}

// tableThresholds lists, by position, the panel thresholds (a thresholds argument or field)
// that read the catalog's threshold table.
func tableThresholds(path, src string) ([]string, error) {
	root, _, err := formatter.SnippetToRawAST(path, src)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	locals := fileLocals(root)
	var values []ast.Node
	walk(root, func(n ast.Node) {
		switch n := n.(type) {
		case *ast.Apply:
			for _, a := range n.Arguments.Named {
				if a.Name == "thresholds" {
					values = append(values, a.Arg)
				}
			}
		case *ast.Object:
			for _, f := range n.Fields {
				if f.Kind != ast.ObjectLocal && fieldName(f) == "thresholds" {
					values = append(values, f.Expr2)
				}
			}
		}
	})
	var found []string
	for _, v := range values {
		reads := false
		reach(v, locals, func(n ast.Node) {
			if i, ok := n.(*ast.Index); ok && i.Id != nil && *i.Id == "thresholds" {
				reads = true
			}
		})
		if reads {
			found = append(found, v.Loc().String())
		}
	}
	return found, nil
}
