// Package hugeheap backs the first 256 MB of the heap of a gpuobs process with transparent
// huge pages, as its init runs. A run of gpuobs grows a fresh heap to some 40 MB in a few hundred
// milliseconds, and the kernel faults it in 4 KiB at a time: some 10,000 faults, a third of a
// generation's CPU where a fault costs 12 µs (a virtual machine). The kernel's default policy
// (madvise) gives huge pages only to memory that asks for them, and Go's heap does not ask.
//
// The gpuobs command imports it first: Go initializes the packages that are ready in the order
// of their import paths, and this one needs only the runtime and syscall, so it runs before
// the inits of the large dependencies (Alertmanager's notifiers, the cloud SDKs) touch the heap.
// Elsewhere than Linux it does nothing.
package hugeheap

// adviseBytes is how much of the heap is backed by huge pages: more than a warm generation (some
// 80 MB at its peak), a Jsonnet evaluation of the embedded catalog (some 200 MB) or a lint of
// 26,000 rules (250 MB) holds. The block is mapped, never touched: it costs no memory.
const adviseBytes = 256 << 20
