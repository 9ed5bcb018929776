//go:build unix && !linux

package formats

import (
	"syscall"
)

// allocBytes maps n zeroed bytes outside the Go heap (falling back to the
// heap when mapping fails). Only pointer-free data may live there.
func allocBytes(n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]byte, n)
	}
	return b
}

// freeBytes unmaps memory from allocBytes (heap fallbacks are left to the GC).
func freeBytes(b []byte) {
	if cap(b) > 0 {
		_ = syscall.Munmap(b[:cap(b)])
	}
}
