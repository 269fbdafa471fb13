package catalog

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
)

// withAddressSpace limits this process' address space to a petabyte, or its hard limit if less
// (limited), or lifts the limit (not limited, where the hard limit allows), until the test ends,
// and returns the limit it set.
func withAddressSpace(t *testing.T, limited bool) uint64 {
	t.Helper()
	var saved syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &saved); err != nil {
		t.Fatal(err)
	}
	set := saved
	set.Cur = saved.Max
	if limited {
		set.Cur = min(saved.Max, 1<<50)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &set); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, &saved); err != nil {
			t.Fatal(err)
		}
	})
	if _, got := addressSpaceLimit(); got != limited {
		t.Fatalf("address space limited: %t, want %t (its hard limit is %d)", got, limited, saved.Max)
	}
	return set.Cur
}

// TestLimitedAddressSpaceKeepsCollecting: under `ulimit -v` the evaluator collects as gpuobs
// does (a heap grown before collecting needs more address space), and an evaluator the system
// refused memory is told how much the limit leaves and what to allow.
func TestLimitedAddressSpaceKeepsCollecting(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	limit := withAddressSpace(t, true)
	if collectAt, ok := lateCollectionLimit(2048); ok {
		t.Errorf("under ulimit -v the evaluator collects past %d bytes, want gpuobs' GOGC", collectAt)
	}
	if msg := outOfMemory(2048); !strings.Contains(msg, fmt.Sprintf("limited to %d MiB (ulimit -v)", limit>>20)) || !strings.Contains(msg, "allow gpuobs 2 GB") {
		t.Errorf("out of memory under ulimit -v: %q, want the limit and what to allow", msg)
	}
}
