package folder

import (
	"io/fs"
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

// openat2 is unix.Openat2; tests replace it to take the walk as a kernel
// without openat2 does.
var openat2 = unix.Openat2

// openBeneath opens name, a clean name under dir, as the file called full,
// in one openat2 call that follows no symbolic link and cannot leave dir.
// The error is errWalk when that call cannot decide (a link on the way, which the os.Root walk
// follows while it stays inside; a kernel or sandbox without openat2), and
// otherwise an error that the walk would give too (ENOENT, EEXIST).
func openBeneath(dir *os.File, name, full string, flags int, perm uint32) (*os.File, error) {
	how := unix.OpenHow{
		Flags:   uint64(flags | unix.O_CLOEXEC),
		Mode:    uint64(perm),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS,
	}
	var fd int
	var opErr error
	c, err := dir.SyscallConn()
	if err != nil {
		return nil, err
	}
	err = c.Control(func(dfd uintptr) {
		for {
			fd, opErr = openat2(int(dfd), name, &how)
			if opErr != unix.EINTR {
				return
			}
		}
	})
	if err != nil {
		return nil, err
	}
	switch {
	case opErr == nil:
		return os.NewFile(uintptr(fd), full), nil
	case opErr == unix.ENOENT || opErr == unix.EEXIST:
		return nil, opErr
	default:
		return nil, errWalk
	}
}

// statBeneath is os.Root.Stat through openBeneath: name's description from
// an O_PATH handle, which reads nothing and needs no permission on name.
func statBeneath(dir *os.File, name string) (fs.FileInfo, error) {
	fh, err := openBeneath(dir, name, name, unix.O_PATH, 0)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return fh.Stat()
}
