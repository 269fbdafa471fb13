// Package plantest loads catalogs and derives their plans for tests.
package plantest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gpuobs/gpuobs/internal/catalog"
	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/testutil"
	"github.com/gpuobs/gpuobs/internal/testutil/testcatalog"
)

// Plan loads a catalog file, or the embedded catalog when config is "", derives its plan, and
// fails the test on any error.
func Plan(t testing.TB, config string) *plan.Plan {
	t.Helper()
	p, err := Load(config)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Load loads a catalog file, or the embedded catalog when config is "", and derives its plan:
// for a plan shared by several tests, each of which reports the error.
func Load(config string) (*plan.Plan, error) {
	m, err := catalog.Load(catalog.Options{ConfigPath: config, CacheDir: testcatalog.CacheDir()})
	if err != nil {
		return nil, err
	}
	return plan.Build(m)
}

// Small derives the plan of the small fixture catalog (testdata/small.jsonnet beside this
// file): two rolled-up fields, three alerts and one record, so a
// generator's golden output shows its behaviour on a handful of rules.
func Small(t testing.TB) *plan.Plan {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return Plan(t, filepath.Join(filepath.Dir(file), "testdata", "small.jsonnet"))
}

// Catalog writes a catalog file holding text into a directory of its own, beside a copy of the
// adopter's catalog (testdata/adopter.jsonnet: a catalog imports only files under its own
// directory), so that text may start from either: (import 'gpuobs.libsonnet') or
// (import 'adopter.jsonnet'). It returns the file's path. The directory is named by the
// digest of both files, in the temporary directory: the same text has the same path in every
// test and run, and its evaluation is kept (testcatalog.CacheDir) until the text, the
// adopter's catalog or the library changes. Tests read the directory and never write to it.
func Catalog(t testing.TB, text string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	adopter, err := os.ReadFile(filepath.Join(filepath.Dir(file), "testdata", "adopter.jsonnet"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(append(append(adopter, 0), text...))
	dir := filepath.Join(os.TempDir(), "gpuobs-test-catalog-files", hex.EncodeToString(sum[:12]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string][]byte{"adopter.jsonnet": adopter, "gpuobs.jsonnet": []byte(text)} {
		path := filepath.Join(dir, name)
		if have, err := os.ReadFile(path); err == nil && bytes.Equal(have, content) {
			continue
		}
		// Written whole or not at all: a test beside may read the same file.
		if err := emit.WriteFile(path, content); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "gpuobs.jsonnet")
}

// GoldenFiles compares each generated file with dir/<its path>.golden (see testutil.Golden).
func GoldenFiles(t *testing.T, dir string, files []emit.File) {
	t.Helper()
	if len(files) == 0 {
		t.Fatal("no files to compare")
	}
	for _, f := range files {
		testutil.Golden(t, filepath.Join(dir, filepath.FromSlash(f.Path)+".golden"), f.Content)
	}
}
