//go:build !unix

package formats

func allocBytes(n int) []byte    { return make([]byte, n) }
func freeBytes([]byte)           {}
func allocUint64(n int) []uint64 { return make([]uint64, n) }
func freeUint64([]uint64)        {}
