package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestHugeHeapInitsBeforeTheHeapGrows: the hugeheap package's init runs before the inits that
// allocate much (Alertmanager's notifiers, the cloud SDKs, Kubernetes' API types): what the
// inits before it allocate, on 4 KiB pages, stays under a quarter of a megabyte. The test binary
// holds the command's imports, so it initializes them in the command's order.
func TestHugeHeapInitsBeforeTheHeapGrows(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	before, after := 0, 0
	seen := false
	for _, line := range strings.Split(string(out), "\n") {
		// init <package> @<start> ms, <clock> ms clock, <bytes> bytes, <allocs> allocs
		f := strings.Fields(line)
		if len(f) < 9 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		if f[1] == "github.com/gpuobs/gpuobs/internal/hugeheap" {
			seen = true
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("reading %q: %v", line, err)
		}
		if seen {
			after += n
		} else {
			before += n
		}
	}
	if !seen {
		t.Fatalf("no init of internal/hugeheap in the trace:\n%s", out)
	}
	if before > 256<<10 || after < before {
		t.Errorf("the inits before hugeheap's allocate %d bytes, those after it %d; want hugeheap's first, before a quarter of a megabyte", before, after)
	}
	t.Logf("inits before hugeheap's allocate %d bytes, after it %d", before, after)
}
