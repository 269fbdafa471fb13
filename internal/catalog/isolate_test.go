package catalog

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// TestRefusedMemoryIsTheRuntimes: the Go runtime's fatal errors for memory the system refused,
// as evaluators under `ulimit -v` ended with them, are told apart from its other fatal errors
// and from a catalog's own error that speaks of memory.
func TestRefusedMemoryIsTheRuntimes(t *testing.T) {
	for stderr, want := range map[string]bool{
		"runtime: out of memory: cannot allocate 4194304-byte block (83066880 in use)\nfatal error: out of memory\n\ngoroutine 1 gp=0x3b1d032621e0 m=4 [running]:\n": true,
		"fatal error: runtime: cannot allocate memory\n\nruntime stack:\n":                                                                                           true,
		"fatal error: failed to reserve page summary memory\n":                                                                                                       true,
		"runtime: goroutine stack exceeds 268435456-byte limit\nfatal error: stack overflow\n":                                                                       false,
		"fatal error: concurrent map writes\n":                                                                                                                       false,
		"RUNTIME ERROR: out of memory building the array\n\tgpuobs.jsonnet:3:5-30\n":                                                                                 false,
	} {
		if got := refusedMemory(stderr); got != want {
			t.Errorf("refusedMemory(%q) = %t, want %t", stderr, got, want)
		}
	}
}

// TestLateCollectionLimit: with no GOGC or GOMEMLIMIT of the environment, an evaluator
// collects only once it holds 512 MiB or half its budget, whichever is less; either variable
// decides instead.
func TestLateCollectionLimit(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	withAddressSpace(t, false)
	for maxMiB, want := range map[int]int64{2048: 512 << 20, 256: 128 << 20} {
		if got, ok := lateCollectionLimit(maxMiB); !ok || got != want {
			t.Errorf("budget %d MiB: collects past %d bytes (%t), want %d", maxMiB, got, ok, want)
		}
	}
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, "200")
			if limit, ok := lateCollectionLimit(2048); ok {
				t.Errorf("%s set: the evaluator collects past %d bytes, want the environment's setting", env, limit)
			}
		})
	}
}

// TestLateCollectionHandsBack: the evaluator collects late once; then the garbage collector's
// target and memory limit are what they were, so a catalog whose live heap is much of the late
// limit does not collect at every step past it.
func TestLateCollectionHandsBack(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	withAddressSpace(t, false)
	percent, limit := debug.SetGCPercent(250), debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	})
	collectLate(2048)
	if got, gotLimit := gcSettings(); got != -1 || gotLimit != 512<<20 {
		t.Fatalf("collecting late: GOGC %d, memory limit %d; want off and 512 MiB", got, gotLimit)
	}
	runtime.GC()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(memoryCheckInterval) {
		got, gotLimit := gcSettings()
		if got == 250 && gotLimit == math.MaxInt64 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("10 s after a collection: GOGC %d, memory limit %d; want 250 and none, as before", got, gotLimit)
		}
	}
}

// gcSettings reads the garbage collector's target percent (-1: off) and memory limit.
func gcSettings() (int, int64) {
	sample := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(sample)
	return int(int64(sample[0].Value.Uint64())), int64(sample[1].Value.Uint64())
}
