// Package testcatalog loads catalogs for tests.
package testcatalog

import (
	"testing"

	"github.com/gpuobs/gpuobs/internal/catalog"
	"github.com/gpuobs/gpuobs/internal/model"
)

// Model loads a catalog file, or the embedded catalog when config is "", and fails the test on
// any error.
func Model(t testing.TB, config string) *model.Model {
	t.Helper()
	m, err := catalog.Load(catalog.Options{ConfigPath: config})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
