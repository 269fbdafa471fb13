package libsonnet

import (
	"bytes"
	"io/fs"
	"strings"
	"testing"

	jsonnet "github.com/google/go-jsonnet"
	"github.com/google/go-jsonnet/linter"
)

// unusedLocals are the locals no code of the snippets reads, as go-jsonnet's own linter finds
// them (it does not report a function's parameters or a loop's variable; its other findings
// are left to the evaluation, which types for real: the linter takes std.all for a function
// returning an array).
func unusedLocals(t *testing.T, snippets []linter.Snippet) []string {
	t.Helper()
	vm := jsonnet.MakeVM()
	vm.Importer(&jsonnet.MemoryImporter{}) // unused locals are found file by file: imports are not read
	vm.ErrorFormatter.SetColorFormatter(nil)
	var out bytes.Buffer
	linter.LintSnippet(vm, &out, snippets)
	var found []string
	for line := range strings.Lines(out.String()) {
		if strings.Contains(line, "Unused variable") {
			found = append(found, strings.TrimSpace(line))
		}
	}
	return found
}

// TestNoDeadLocals: no catalog file binds a local that nothing reads (a newcomer reads it to
// learn what it is for; the evaluation parses it every run).
func TestNoDeadLocals(t *testing.T) {
	var snippets []linter.Snippet
	err := fs.WalkDir(FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := FS.ReadFile(path)
		snippets = append(snippets, linter.Snippet{FileName: path, Code: string(src)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range unusedLocals(t, snippets) {
		t.Error(u)
	}
}

// TestDeadLocalsAreFound: a local nothing reads is found, one that is read is not.
func TestDeadLocalsAreFound(t *testing.T) {
	got := unusedLocals(t, []linter.Snippet{{FileName: "t.libsonnet", Code: "{ local used = 1, local dead = 2, a: used }"}})
	if len(got) != 1 || !strings.Contains(got[0], "dead") {
		t.Errorf("found %q, want the one dead local", got)
	}
}
