//go:build !linux

package catalog

import "testing"

// withAddressSpace: gpuobs reads no address-space limit off Linux, so there is only none.
func withAddressSpace(t *testing.T, limited bool) uint64 {
	t.Helper()
	if limited {
		t.Fatal("gpuobs reads no address-space limit on this system")
	}
	return 0
}
