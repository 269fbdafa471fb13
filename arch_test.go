package gpuobs_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/gpuobs/gpuobs/"

// packageImports maps every package of the module (directory, slash-separated) to the module
// packages its non-test files import, and to the files that call plan.Build.
func packageImports(t *testing.T) (imports map[string]map[string]bool, buildsPlan map[string][]string) {
	t.Helper()
	imports, buildsPlan = map[string]map[string]bool{}, map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && p != "." || d.Name() == "testdata" || d.Name() == "tools") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := path.Dir(filepath.ToSlash(p))
		if imports[pkg] == nil {
			imports[pkg] = map[string]bool{}
		}
		planName := ""
		for _, im := range f.Imports {
			ip, _ := strconv.Unquote(im.Path.Value)
			if rel, ok := strings.CutPrefix(ip, module); ok {
				imports[pkg][rel] = true
				if rel == "internal/plan" {
					planName = "plan"
					if im.Name != nil {
						planName = im.Name.Name
					}
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Build" {
				if id, ok := sel.X.(*ast.Ident); ok && planName != "" && id.Name == planName {
					buildsPlan[pkg] = append(buildsPlan[pkg], p)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return imports, buildsPlan
}

// TestImportGraph holds the layering: cli → {plan, generators, lint, emit, semdiff,
// backtest}; generators → {plan, model, emit, promql adapters}; lint → {its analysis, plan,
// model, promql, source, report}; lint's analysis (internal/lint/analysis: labels, units,
// projection, placement, below the checks) → {plan, model, source, promql}; plan → {model,
// promql}; catalog → {model, promql, amconfig (receivers checked by Alertmanager's config
// package)}; semdiff → {source, amconfig, model, promql, escape, output, report}; source →
// {output, gitcmd, promql} (every reader of files a user or gpuobs wrote, with positions: rule
// files, dashboards, counter files, an output tree, a git base); backtest → {model, the promql
// replay adapter, escape, report}. lint and semdiff read through source and import neither
// each other nor any other command's package. escape, gitcmd, jsontext (JSON text indented and
// compacted by its structure), output (the layout of a generated tree and its header) and
// report (the reporter interface and the registry of formats lint, diff and backtest share)
// are leaves that any reader or writer may use: they import no package of the module; git
// itself runs only in source (a tree at a git ref, the files changed since one), so no command
// runs it on its own.
// No generator imports another (the registry aside), lint imports no generator, and no
// generator imports lint.
func TestImportGraph(t *testing.T) {
	imports, buildsPlan := packageImports(t)
	under := func(pkg, dir string) bool { return pkg == dir || strings.HasPrefix(pkg, dir+"/") }
	for pkg, deps := range imports {
		for dep := range deps {
			switch {
			case under(pkg, "generators") && pkg != "generators" && under(dep, "generators"):
				t.Errorf("generator %s imports generator %s", pkg, dep)
			case under(pkg, "generators") && under(dep, "internal/lint"):
				t.Errorf("generator %s imports the linter %s", pkg, dep)
			case under(pkg, "internal/lint") && under(dep, "generators"):
				t.Errorf("lint package %s imports generator %s", pkg, dep)
			case pkg == "internal/lint/analysis" && dep != "internal/plan" && dep != "internal/model" && dep != "internal/source" && !under(dep, "internal/promql"):
				t.Errorf("lint's analysis imports %s: it sits below the checks, on the plan, the model, the readers (source) and PromQL", dep)
			case pkg == "internal/plan" && (under(dep, "generators") || under(dep, "internal/lint") || under(dep, "internal/emit") || under(dep, "internal/catalog")):
				t.Errorf("plan package %s imports %s: the plan derives from the model only", pkg, dep)
			case pkg == "internal/backtest" && dep != "internal/model" && dep != "internal/escape" && dep != "internal/report" && !under(dep, "internal/promql"):
				t.Errorf("backtest imports %s: it reads data only through the promql replay adapter", dep)
			case under(pkg, "internal/promql") && !under(dep, "internal/promql"):
				t.Errorf("PromQL adapter %s imports %s", pkg, dep)
			case pkg == "internal/escape" || pkg == "internal/gitcmd" || pkg == "internal/jsontext" || pkg == "internal/output" || pkg == "internal/report":
				t.Errorf("%s imports %s: it is a leaf every reader and writer may use", pkg, dep)
			case pkg == "internal/source" && dep != "internal/output" && dep != "internal/gitcmd" && dep != "internal/promql":
				t.Errorf("the reader package imports %s: it reads by the layout (output), git (gitcmd) and the PromQL parser (promql) only", dep)
			case (pkg == "internal/lint" || pkg == "internal/semdiff") && (dep == "internal/lint" || dep == "internal/semdiff" || dep == "internal/backtest" || dep == "internal/cli"):
				t.Errorf("%s imports %s: commands share readers through internal/source, not each other's packages", pkg, dep)
			case dep == "internal/gitcmd" && pkg != "internal/source":
				t.Errorf("%s imports internal/gitcmd: git runs only in internal/source", pkg)
			}
		}
	}
	// Derivation runs once per command: only the CLI builds a plan (and the test helpers under
	// internal/testutil, for tests).
	for pkg, files := range buildsPlan {
		if pkg != "internal/cli" && !under(pkg, "internal/plan") && !under(pkg, "internal/testutil") {
			t.Errorf("%s calls plan.Build (%s): only the CLI derives, once per run", pkg, strings.Join(files, ", "))
		}
	}
	if len(imports["internal/plan"]) == 0 || len(buildsPlan["internal/cli"]) == 0 {
		t.Fatal("the walk found neither the plan package nor the CLI's plan.Build: the test reads nothing")
	}
}

// TestCommandsBorrowNothing: each command's file in internal/cli imports the package of its own
// command only (lint, diff's semdiff, backtest); what two commands read alike they read through
// internal/source.
func TestCommandsBorrowNothing(t *testing.T) {
	own := map[string]string{"lint.go": "internal/lint", "diff.go": "internal/semdiff", "backtest.go": "internal/backtest"}
	fset := token.NewFileSet()
	for file, mine := range own {
		f, err := parser.ParseFile(fset, filepath.Join("internal", "cli", file), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range f.Imports {
			ip, _ := strconv.Unquote(im.Path.Value)
			rel, _ := strings.CutPrefix(ip, module)
			for _, command := range own {
				if rel == command && command != mine {
					t.Errorf("internal/cli/%s imports %s, another command's package", file, command)
				}
			}
		}
	}
}
