//go:build !linux

package catalog

// addressSpaceLimit returns the limit on the process' address space and whether there is one:
// gpuobs reads it on Linux only, where HPC login nodes and CI runners set it.
func addressSpaceLimit() (uint64, bool) { return 0, false }
