package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryCheckIsDocumented keeps docs/checks in step with the checks: one page per check
// (and for input/read), titled with the check's name and showing how to suppress it, no page
// for a check that does not exist, and every page in the index.
func TestEveryCheckIsDocumented(t *testing.T) {
	dir := filepath.Join("..", "..", "docs", "checks")
	index, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	names := []string{ReadCheck, SuppressionCheck}
	for _, c := range Checks() {
		names = append(names, c.Name())
	}
	want := map[string]bool{"README.md": true}
	for _, name := range names {
		page := DocPath(name)
		want[page] = true
		text, err := os.ReadFile(filepath.Join(dir, page))
		if err != nil {
			t.Errorf("check %s has no doc page: %v", name, err)
			continue
		}
		if !strings.HasPrefix(string(text), "# "+name+"\n") || !strings.Contains(string(text), "gpuobs-lint disable "+name) {
			t.Errorf("%s: page must start with '# %s' and show how to suppress it", page, name)
		}
		if !strings.Contains(string(index), "("+page+")") {
			t.Errorf("docs/checks/README.md does not link %s", page)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !want[e.Name()] {
			t.Errorf("docs/checks/%s documents no check", e.Name())
		}
	}
}
