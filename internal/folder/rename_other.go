//go:build !linux

package folder

import (
	"errors"
	"os"
)

// renameat2NoReplace is only available on Linux; elsewhere the caller falls
// back to link+unlink.
func renameat2NoReplace(olddir *os.File, oldname string, newdir *os.File, newname string) error {
	return errors.ErrUnsupported
}
