// Package testutil holds helpers shared by gpuobs' tests.
package testutil

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Update makes golden comparisons rewrite the golden files that differ (go test -update).
var update = flag.Bool("update", false, "rewrite golden files that differ")

// Golden compares got with the golden file at path, or rewrites it under -update. A
// difference is reported as a line diff, not as the whole files.
func Golden(t *testing.T, path string, got []byte) {
	t.Helper()
	want, err := os.ReadFile(path)
	if *update && string(want) != string(got) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err != nil {
		t.Fatalf("reading golden file (run go test -update to create it): %v", err)
	}
	if string(want) != string(got) {
		t.Errorf("output differs from %s (go test -update rewrites it); -want +got:\n%s", path, diff(string(want), string(got)))
	}
}

// diff is a line diff of two texts, -want +got.
func diff(want, got string) string {
	return cmp.Diff(strings.Split(want, "\n"), strings.Split(got, "\n"))
}

// ReadTree reads every file under dir, by its slash-separated path relative to dir.
func ReadTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// WriteTree writes files (content by slash-separated path) under dir, making their
// directories.
func WriteTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
