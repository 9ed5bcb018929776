package folder

import (
	"os"

	"golang.org/x/sys/unix"
)

// renameat2NoReplace renames oldname in olddir to newname in newdir with
// RENAME_NOREPLACE, so an existing target is never overwritten (EEXIST).
func renameat2NoReplace(olddir *os.File, oldname string, newdir *os.File, newname string) error {
	oc, err := olddir.SyscallConn()
	if err != nil {
		return err
	}
	nc, err := newdir.SyscallConn()
	if err != nil {
		return err
	}
	var opErr error
	err = oc.Control(func(ofd uintptr) {
		err := nc.Control(func(nfd uintptr) {
			opErr = unix.Renameat2(int(ofd), oldname, int(nfd), newname, unix.RENAME_NOREPLACE)
		})
		if err != nil {
			opErr = err
		}
	})
	if err != nil {
		return err
	}
	return opErr
}
