//go:build unix

package journal

import "golang.org/x/sys/unix"

// canWrite asks the kernel whether the process may write path: it fails
// for missing permissions, an immutable file (even for root) and a
// read-only file system.
func canWrite(path string) error { return unix.Access(path, unix.W_OK) }
