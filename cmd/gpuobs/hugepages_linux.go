//go:build linux

package main

import (
	"runtime"
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on the platforms Go runs Linux on.
const hugePage = 2 << 20

// hugeHeap asks the kernel to back the first heapBytes of the heap with transparent huge
// pages. A run of gpuobs grows a fresh heap to some 40 MB in a few hundred milliseconds, and the
// kernel faults it in 4 KiB at a time: some 10,000 faults, a third of a generation's CPU where
// a fault costs 12 µs (a virtual machine). The kernel's default policy (madvise) gives huge
// pages only to memory that asks; Go's heap does not. So a block of heapBytes is allocated
// (mapped, never touched), advised, and collected: the allocations that follow land in it, a
// few dozen 2 MiB faults. Where the kernel has no transparent huge pages, the error says so
// and nothing changed.
func hugeHeap(heapBytes int) error {
	block := make([]byte, heapBytes)
	skip := (hugePage - int(uintptr(unsafe.Pointer(unsafe.SliceData(block)))%hugePage)) % hugePage
	whole := (heapBytes - skip) / hugePage * hugePage
	err := syscall.Madvise(block[skip:skip+whole], syscall.MADV_HUGEPAGE)
	block = nil
	runtime.GC()
	return err
}
