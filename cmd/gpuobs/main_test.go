package main

import (
	"os"
	"os/exec"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
)

// reportInitMemory makes the test binary, started with it set, print the memory the Go runtime
// has mapped once every init of the command has run (the test binary holds the command's
// imports), and exit before the testing package starts anything.
const reportInitMemory = "GPUOBS_TEST_REPORT_INIT_MEMORY"

// maxInitMemory bounds what the inits may map: a few MiB of package state. An init that takes
// a block for later (as internal/hugeheap took 256 MB, and with it the address space that
// `ulimit -v` on HPC login nodes allows) exceeds it.
const maxInitMemory = 64 << 20

func TestMain(m *testing.M) {
	if os.Getenv(reportInitMemory) == "1" {
		sample := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
		metrics.Read(sample)
		if _, err := os.Stdout.WriteString(strconv.FormatUint(sample[0].Value.Uint64(), 10)); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestInitsMapLittleMemory: no init maps memory it does not need, measured in a process of
// its own, where nothing but the inits has run.
func TestInitsMapLittleMemory(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), reportInitMemory+"=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	mapped, err := strconv.ParseUint(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		t.Fatalf("the child printed %q: %v", out, err)
	}
	t.Logf("the inits left %.1f MiB mapped", float64(mapped)/(1<<20))
	if mapped > maxInitMemory {
		t.Errorf("the inits left %d MiB mapped, more than %d MiB: an init holds memory it does not need", mapped>>20, maxInitMemory>>20)
	}
}
