//go:build !linux

package folder

import (
	"errors"
	"io/fs"
	"os"
)

// renameat2NoReplace is only available on Linux; elsewhere the caller falls
// back to link+unlink.
func renameat2NoReplace(olddir *os.File, oldname string, newdir *os.File, newname string) error {
	return errors.ErrUnsupported
}

// openBeneath has no one-call confined open here: every operation takes
// the os.Root walk.
func openBeneath(dir *os.File, name, full string, flags int, perm uint32) (*os.File, error) {
	return nil, errWalk
}

func statBeneath(dir *os.File, name string) (fs.FileInfo, error) {
	return nil, errWalk
}
