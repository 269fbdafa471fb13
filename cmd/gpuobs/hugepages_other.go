//go:build !linux

package main

// hugeHeap does nothing where the kernel is not Linux: its transparent huge pages are Linux's.
func hugeHeap(int) error { return nil }
