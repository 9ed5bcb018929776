//go:build !unix

package formats

func allocBytes(n int) []byte { return make([]byte, n) }
func freeBytes([]byte)        {}
