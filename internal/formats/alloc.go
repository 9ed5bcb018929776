package formats

import "unsafe"

// allocUint64 is allocBytes for a table of uint64: off the Go heap where
// the platform maps memory (alloc_linux.go, alloc_unix.go), on it elsewhere.
func allocUint64(n int) []uint64 {
	b := allocBytes(n * 8)
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// freeUint64 releases a table from allocUint64.
func freeUint64(s []uint64) {
	if cap(s) > 0 {
		freeBytes(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), cap(s)*8))
	}
}
