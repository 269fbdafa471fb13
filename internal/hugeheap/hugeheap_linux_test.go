//go:build linux

package hugeheap

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// mapping is one mapping of /proc/self/smaps: its range and whether it asked for huge pages.
type mapping struct {
	start, end uintptr
	huge       bool
}

// mappings reads the process's mappings and their VmFlags (hg: madvise(MADV_HUGEPAGE)).
func mappings(t *testing.T) []mapping {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []mapping
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if flags, ok := strings.CutPrefix(line, "VmFlags:"); ok && len(out) > 0 {
			out[len(out)-1].huge = strings.Contains(flags+" ", " hg ")
			continue
		}
		bounds, _, _ := strings.Cut(line, " ")
		lo, hi, ok := strings.Cut(bounds, "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 == nil && err2 == nil {
			out = append(out, mapping{start: uintptr(start), end: uintptr(end)})
		}
	}
	return out
}

// TestAdviseBacksWhatFollows: after advise, the heap's next large allocation lies in
// memory that asked the kernel for huge pages (the block it advised and gave back), all but
// the part of a huge page before the block's first boundary.
func TestAdviseBacksWhatFollows(t *testing.T) {
	if err := advise(32 << 20); err != nil {
		t.Fatalf("advise: %v (a kernel without transparent huge pages?)", err)
	}
	next := make([]byte, 16<<20)
	start := uintptr(unsafe.Pointer(unsafe.SliceData(next)))
	end := start + uintptr(len(next))
	var advised uintptr
	for _, m := range mappings(t) {
		if lo, hi := max(m.start, start), min(m.end, end); m.huge && lo < hi {
			advised += hi - lo
		}
	}
	if advised < end-start-hugePage {
		t.Errorf("%d MiB of the %d MiB allocated after advise lie in memory advised for huge pages; want all but the first huge page's", advised>>20, len(next)>>20)
	}
}
