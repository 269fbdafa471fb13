// Package plantest loads catalogs and derives their plans for tests.
package plantest

import (
	"testing"

	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/testutil/testcatalog"
)

// Plan loads a catalog file, or the embedded catalog when config is "", derives its plan, and
// fails the test on any error.
func Plan(t testing.TB, config string) *plan.Plan {
	t.Helper()
	p, err := plan.Build(testcatalog.Model(t, config))
	if err != nil {
		t.Fatal(err)
	}
	return p
}
