// Package testcatalog loads catalogs for tests.
package testcatalog

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gpuobs/gpuobs/internal/catalog"
	"github.com/gpuobs/gpuobs/internal/model"
)

// CacheDir is where tests keep catalog evaluations (internal/catalog's evalcache.go), shared
// by every test binary and run: a catalog is evaluated once until it, a file it reads or the
// embedded sources change. Failed evaluations are never kept, so a test of a catalog's
// problems always evaluates it.
func CacheDir() string { return filepath.Join(os.TempDir(), "gpuobs-test-catalogs") }

// Model loads a catalog file, or the embedded catalog when config is "", and fails the test on
// any error.
func Model(t testing.TB, config string) *model.Model {
	t.Helper()
	m, err := catalog.Load(catalog.Options{ConfigPath: config, CacheDir: CacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
