//go:build linux

package hugeheap

import (
	"runtime"
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on amd64, and on arm64 with 4 KiB pages.
// Where huge pages are larger (arm64 with 64 KiB pages: 512 MiB), the advice covers none and
// changes nothing.
const hugePage = 2 << 20

func init() { _ = advise(adviseBytes) } // an optimisation only: without huge pages, 4 KiB pages serve

// advise allocates heapBytes (mapped, never touched), asks the kernel to back them with
// transparent huge pages, and collects them again, so that the allocations that follow land in
// the advised memory. Where the kernel has no transparent huge pages, the error says so and
// nothing changed.
func advise(heapBytes int) error {
	block := make([]byte, heapBytes)
	skip := (hugePage - int(uintptr(unsafe.Pointer(unsafe.SliceData(block)))%hugePage)) % hugePage
	whole := (heapBytes - skip) / hugePage * hugePage
	err := syscall.Madvise(block[skip:skip+whole], syscall.MADV_HUGEPAGE)
	runtime.GC() // block is dead here: the collection frees it
	return err
}
