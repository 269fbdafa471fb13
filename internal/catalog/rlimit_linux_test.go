package catalog

import (
	"strings"
	"syscall"
	"testing"
)

// withAddressSpace limits this process' address space to a petabyte (limited) or lifts the
// limit (not limited, where the hard limit allows), until the test ends.
func withAddressSpace(t *testing.T, limited bool) {
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
}

// TestLimitedAddressSpaceKeepsCollecting: under `ulimit -v` the evaluator collects as gpuobs
// does (a heap grown before collecting needs more address space), and an evaluator the system
// refused memory is told how much the limit leaves and what to allow.
func TestLimitedAddressSpaceKeepsCollecting(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	withAddressSpace(t, true)
	if limit, ok := lateCollectionLimit(2048); ok {
		t.Errorf("under ulimit -v the evaluator collects past %d bytes, want gpuobs' GOGC", limit)
	}
	if msg := outOfMemory(2048); !strings.Contains(msg, "limited to 1073741824 MiB (ulimit -v)") || !strings.Contains(msg, "allow gpuobs 2 GB") {
		t.Errorf("out of memory under ulimit -v: %q, want the limit and what to allow", msg)
	}
}
