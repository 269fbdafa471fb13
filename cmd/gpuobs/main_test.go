package main

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// addressSpaceLimit is an address-space limit (ulimit -v, in KiB) some HPC login nodes and CI
// runners set: 1.5 GB. (The command itself starts under 1.2 GB; the test binary, which runs the
// same inits, needs a little more.)
const addressSpaceLimit = 1_500_000

// TestStartsUnderAnAddressSpaceLimit: gpuobs starts where the address space is limited
// (ulimit -v): no init reserves memory it does not need. The test binary holds the command's
// imports, so it runs every init the command runs.
func TestStartsUnderAnAddressSpaceLimit(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to set the limit with")
	}
	cmd := exec.Command("sh", "-c", `ulimit -v "$1" && exec "$2" -test.run='^$'`, "sh", strconv.Itoa(addressSpaceLimit), os.Args[0])
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("under ulimit -v %d: %v\n%s", addressSpaceLimit, err, out)
	}
}
