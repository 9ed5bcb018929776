//go:build linux

package formats

import (
	"sync"
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on amd64 and arm64.
const hugePage = 2 << 20

// mappings are the mappings of allocBytes by the address it handed out: a
// huge-page-aligned block is a part of a larger mapping.
var mappings sync.Map // *byte -> []byte

// allocBytes maps n zeroed bytes outside the Go heap (falling back to the
// heap when mapping fails). Only pointer-free data may live there.
//
// Blocks of a huge page or more are aligned on one and advised to use huge
// pages: the key table is read at random, and with 4 KiB pages nearly every
// lookup would also miss the TLB (about a third of the time of a lookup).
// Pages are only backed when touched, so the alignment slack costs address
// space, not memory.
func allocBytes(n int) []byte {
	if n < hugePage {
		b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
		if err != nil {
			return make([]byte, n)
		}
		mappings.Store(unsafe.SliceData(b), b)
		return b
	}
	size := (n + hugePage - 1) &^ (hugePage - 1)
	m, err := syscall.Mmap(-1, 0, size+hugePage, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]byte, n)
	}
	head := int(-uintptr(unsafe.Pointer(unsafe.SliceData(m)))) & (hugePage - 1)
	b := m[head : head+size : head+size]
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
	mappings.Store(unsafe.SliceData(b), m)
	return b[:n]
}

// freeBytes unmaps memory from allocBytes (heap fallbacks are left to the GC).
func freeBytes(b []byte) {
	if cap(b) == 0 {
		return
	}
	if m, ok := mappings.LoadAndDelete(unsafe.SliceData(b)); ok {
		_ = syscall.Munmap(m.([]byte))
	}
}
