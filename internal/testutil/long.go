package testutil

import "testing"

// Long skips a test under go test -short: the promtool runs of every test catalog and
// install, the panel replays and the mutation runs, which make test and CI run. The short
// run is a contributor's inner loop (docs/contributing.md).
func Long(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("long: promtool over every test catalog, install or mutation; go test without -short (make test) runs it")
	}
}
