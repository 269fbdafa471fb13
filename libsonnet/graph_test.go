package libsonnet

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-jsonnet/ast"
	"github.com/google/go-jsonnet/formatter"
)

// foundations are the catalog files every family may read: the settings and label names
// (config), what the exporter, the scheduler and the engines send (units, fields, exporter,
// scheduler, xids,
// engines/, histograms), and the entry that merges the rest. lib/ holds builders, read by
// import, not through $.
var foundations = []string{
	"config.libsonnet", "units.libsonnet", "fields.libsonnet", "exporter.libsonnet", "scheduler.libsonnet", "xids.libsonnet",
	"histograms.libsonnet", "gpuobs.libsonnet", "gpuobs-schema.libsonnet",
	"engines/engines.libsonnet", "engines/vllm.libsonnet", "engines/sglang.libsonnet",
	"engines/dynamo.libsonnet", "engines/trtllm.libsonnet", "engines/triton.libsonnet",
}

// allowedReads are the reads of one family's settings, records or alerts by another, each
// with why it belongs where it is rather than in a foundation. The dashboards read every
// family besides: they draw what the families define.
var allowedReads = map[string]string{
	"hardware/ -> alertmanager.libsonnet": "GPUSeriesMissing's runbook says when the label self-check's inhibition silences it",
	"maintenance.libsonnet -> hardware/":  "maintenance re-tiers every page, the fabric's and the recovery actions' included",
	"serving/ -> slos/":                   "goodput counts the tokens of requests the latency SLOs call good; a canary names the error SLO alerts its errors make fire",
	"slurm/ -> alertmanager.libsonnet":    "GPUSlurmMetricsDown's runbook names what it silences in the drain's place, as GPUKubeStateMetricsDown's does",
	"slurm/ -> cost.libsonnet":            "the cases of users' and accounts' cost price their GPUs by the catalog's own table, as the records do",
	"slurm/ -> workloads/":                "a Slurm job is idle by the window a pod is (GPUAllocatedIdle's)",
	"workloads/ -> hardware/":             "the straggler's scenario has the slow GPU's NVLink errors fire their own ticket",
	"workloads/ -> nccl/":                 "a hung collective's runbook reads NCCL Inspector's file of the GPU",
}

// TestFamiliesReadFoundations builds which catalog file reads which (every $.a.b a file
// reads, through its locals, belongs to the file that defines a.b) and fails on a family that
// reads another family's settings, records or alerts outside allowedReads.
func TestFamiliesReadFoundations(t *testing.T) {
	graph, err := readGraph(FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range graphProblems(graph) {
		t.Error(p)
	}
}

// TestCrossReadsAreFound: a family reading another family's threshold, directly or through a
// local, is found; reading config, its own folder's settings or a table's computed entry is not.
func TestCrossReadsAreFound(t *testing.T) {
	for name, c := range map[string]struct {
		files fstest.MapFS
		want  int
	}{
		"another family's threshold": {fstest.MapFS{
			"a.libsonnet": {Data: []byte(`{ thresholds+: { x: 1 } }`)},
			"b.libsonnet": {Data: []byte(`{ alerts+: { B: { expr: $.thresholds.x } } }`)},
		}, 1},
		"through a local": {fstest.MapFS{
			"a.libsonnet": {Data: []byte(`{ windows+: { x: '5m' } }`)},
			"b.libsonnet": {Data: []byte(`{ local w = $.windows, alerts+: { B: { 'for': w.x } } }`)},
		}, 1},
		"config": {fstest.MapFS{
			"config.libsonnet": {Data: []byte(`{ labels: { host: 'Hostname' } }`)},
			"b.libsonnet":      {Data: []byte(`{ alerts+: { B: { expr: $.labels.host } } }`)},
		}, 0},
		"its own folder": {fstest.MapFS{
			"hardware/a.libsonnet": {Data: []byte(`{ windows+: { x: '5m' } }`)},
			"hardware/b.libsonnet": {Data: []byte(`{ alerts+: { B: { 'for': $.windows.x } } }`)},
		}, 0},
		"a computed entry": {fstest.MapFS{
			"a.libsonnet": {Data: []byte(`{ alerts+: { A: { 'for': '5m' } } }`)},
			"b.libsonnet": {Data: []byte(`local n = 'A'; { alerts+: { B: { 'for': $.alerts[n]['for'] } } }`)},
		}, 0},
	} {
		graph, err := readGraph(c.files)
		if err != nil {
			t.Fatal(err)
		}
		if got := graphProblems(graph); len(got) != c.want {
			t.Errorf("%s: %d problems (%v), want %d", name, len(got), got, c.want)
		}
	}
}

// graphProblems lists the reads of one family by another that neither a foundation nor the
// allow-list explains.
func graphProblems(graph map[string][]string) []string {
	var problems []string
	for _, edge := range slices.Sorted(maps.Keys(graph)) {
		from, to, _ := strings.Cut(edge, " -> ")
		if slices.Contains(foundations, to) || strings.HasPrefix(to, "engines/") || from == "dashboards/" {
			continue
		}
		if _, ok := allowedReads[edge]; !ok {
			problems = append(problems, fmt.Sprintf("%s reads %s of another family (%s): move what both read to config.libsonnet, or add the read to allowedReads with its reason", from, strings.Join(graph[edge], ", "), to))
		}
	}
	return problems
}

// TestContributingDrawsTheGraph: docs/contributing.md draws the read graph as it is, each
// family's reads of another (the foundations, which every family reads, left out).
func TestContributingDrawsTheGraph(t *testing.T) {
	graph, err := readGraph(FS)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, edge := range slices.Sorted(maps.Keys(graph)) {
		from, to, _ := strings.Cut(edge, " -> ")
		if slices.Contains(foundations, to) || strings.HasPrefix(to, "engines/") {
			continue
		}
		lines = append(lines, fmt.Sprintf("  %s --> %s", nodeName(from), nodeName(to)))
	}
	want := "```mermaid\ngraph LR\n" + strings.Join(lines, "\n") + "\n```"
	doc, err := os.ReadFile("../docs/contributing.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), want) {
		t.Errorf("docs/contributing.md does not draw the read graph as it is; draw it as\n%s", want)
	}
}

// nodeName is a family's name in the drawn graph.
func nodeName(room string) string {
	return strings.TrimSuffix(strings.TrimSuffix(room, "/"), ".libsonnet")
}

// readGraph maps "reader -> owner" to the fields the reader reads that the owner defines.
func readGraph(fsys fs.FS) (map[string][]string, error) {
	trees := map[string]ast.Node{}
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(path, "lib/") {
			return err
		}
		src, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		root, _, err := formatter.SnippetToRawAST(path, string(src))
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		trees[path] = root
		return nil
	})
	if err != nil {
		return nil, err
	}
	// "a" or "a.b" -> the files that define it. A top-level field several files define is a
	// table (thresholds, alerts, records, ...): its entries have owners, the table none.
	definers := map[string][]string{}
	for _, path := range slices.Sorted(maps.Keys(trees)) {
		for _, field := range definedFields(trees[path]) {
			if !slices.Contains(definers[field], path) {
				definers[field] = append(definers[field], path)
			}
		}
	}
	graph := map[string][]string{}
	for _, path := range slices.Sorted(maps.Keys(trees)) {
		for _, read := range readFields(trees[path]) {
			owners, ok := definers[read]
			if top, _, nested := strings.Cut(read, "."); !ok && nested {
				owners = definers[top]
			}
			if len(owners) != 1 || room(owners[0]) == room(path) {
				continue
			}
			edge := room(path) + " -> " + room(owners[0])
			if !slices.Contains(graph[edge], read) {
				graph[edge] = append(graph[edge], read)
			}
		}
	}
	return graph, nil
}

// room is the family a catalog file belongs to: its folder (hardware/, workloads/, ...), or
// the file itself at the top.
func room(path string) string {
	if dir, _, ok := strings.Cut(path, "/"); ok {
		return dir + "/"
	}
	return path
}

// definedFields are the catalog fields a file's root object defines: each top-level field
// ("thresholds") and each field of its value written as a name ("thresholds.idleActivity").
func definedFields(root ast.Node) []string {
	var fields []string
	for _, top := range rootObjects(root) {
		for _, f := range top.Fields {
			name := fieldName(f)
			if f.Kind == ast.ObjectLocal || f.Kind == ast.ObjectAssert || name == "" {
				continue
			}
			fields = append(fields, name)
			for _, inner := range valueObjects(f.Expr2) {
				for _, g := range inner.Fields {
					if second := entryName(g); second != "" && g.Kind != ast.ObjectLocal {
						fields = append(fields, name+"."+second)
					}
				}
			}
		}
	}
	return fields
}

// rootObjects are the objects a file's value is made of (a + b, local x = ...; {...}).
func rootObjects(n ast.Node) []*ast.Object {
	return valueObjects(n)
}

// valueObjects are the objects an expression is written as, through locals, parentheses,
// additions and conditionals.
func valueObjects(n ast.Node) []*ast.Object {
	switch n := n.(type) {
	case *ast.Object:
		return []*ast.Object{n}
	case *ast.Local:
		return valueObjects(n.Body)
	case *ast.Parens:
		return valueObjects(n.Inner)
	case *ast.Binary:
		return append(valueObjects(n.Left), valueObjects(n.Right)...)
	case *ast.Conditional:
		return append(valueObjects(n.BranchTrue), valueObjects(n.BranchFalse)...)
	case *ast.ApplyBrace:
		return append(valueObjects(n.Left), valueObjects(n.Right)...)
	}
	return nil
}

// readFields are the catalog fields a file reads through $ ($.a.b, or a local bound to $.a
// and read as l.b), each as "a.b", or "a" where the second name is computed.
func readFields(root ast.Node) []string {
	locals := fileLocals(root)
	var reads []string
	walk(root, func(n ast.Node) {
		i, ok := n.(*ast.Index)
		if !ok {
			return
		}
		path := dollarPath(i, locals, 0)
		if len(path) == 0 {
			return
		}
		// The longest path from $ is read once, by its first two names; a computed second
		// name reads the whole field.
		if len(path) > 2 {
			path = path[:2]
		}
		if len(path) == 2 && path[1] == "*" {
			path = path[:1]
		}
		reads = append(reads, strings.Join(path, "."))
	})
	slices.Sort(reads)
	return slices.Compact(reads)
}

// dollarPath is the names an index reads from $, followed through the file's locals (a local
// bound once to $.a makes l.b read a.b); nil when it does not start at $.
func dollarPath(n ast.Node, locals map[ast.Identifier][]ast.Node, depth int) []string {
	if depth > 8 {
		return nil
	}
	switch n := n.(type) {
	case *ast.Dollar:
		return []string{}
	case *ast.Var:
		if bodies := locals[n.Id]; len(bodies) == 1 {
			return dollarPath(bodies[0], locals, depth+1)
		}
	case *ast.Parens:
		return dollarPath(n.Inner, locals, depth+1)
	case *ast.Index:
		base := dollarPath(n.Target, locals, depth+1)
		if base == nil {
			return nil
		}
		if n.Id != nil {
			return append(base, string(*n.Id))
		}
		if s, ok := n.Index.(*ast.LiteralString); ok {
			return append(base, s.Value)
		}
		if len(base) == 0 {
			return nil
		}
		// A computed name: what follows is not a catalog field's name.
		return append(base, "*")
	}
	return nil
}
