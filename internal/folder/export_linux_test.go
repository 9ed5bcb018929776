package folder

import (
	"testing"

	"golang.org/x/sys/unix"
)

// WithoutOpenat2 makes local folders take the os.Root walk for every
// name, as on a kernel without openat2, until the test ends.
func WithoutOpenat2(t testing.TB) {
	saved := openat2
	openat2 = func(int, string, *unix.OpenHow) (int, error) { return -1, unix.ENOSYS }
	t.Cleanup(func() { openat2 = saved })
}
