package catalog

import "syscall"

// addressSpaceLimit returns the limit on the process' address space in bytes (ulimit -v, as
// some HPC login nodes and CI runners set), and whether there is one.
func addressSpaceLimit() (uint64, bool) {
	var limit syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &limit); err != nil || limit.Cur == ^uint64(0) { // RLIM_INFINITY
		return 0, false
	}
	return limit.Cur, true
}
