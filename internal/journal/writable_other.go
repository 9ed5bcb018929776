//go:build !unix

package journal

import "os"

// canWrite checks the permission bits where access(2) is not available;
// the write probe of CheckWritable catches the rest.
func canWrite(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if st.Mode().Perm()&0o200 == 0 {
		return os.ErrPermission
	}
	return nil
}
