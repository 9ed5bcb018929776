package foldertest

import (
	"context"
	"io"
	"io/fs"
	"sync/atomic"
	"syscall"

	"filebridge/internal/folder"
)

// Full is a folder whose disk is full while Full is set: every file
// written (CreateAtomic) and every folder made fails with ENOSPC, as on
// a full file system where renames and removals still go through. It
// injects the error at the folder layer, so a test needs neither root nor
// a small tmpfs.
type Full struct {
	folder.Folder
	Full *atomic.Bool
}

func nospace(op, name string) error { return &fs.PathError{Op: op, Path: name, Err: syscall.ENOSPC} }

// CreateAtomic fails with ENOSPC while the disk is full.
func (f Full) CreateAtomic(ctx context.Context, name string, write func(io.Writer) error) error {
	if f.Full.Load() {
		return nospace("write", name)
	}
	return f.Folder.CreateAtomic(ctx, name, write)
}

// MkdirAll fails with ENOSPC while the disk is full and dir is missing.
func (f Full) MkdirAll(ctx context.Context, dir string) error {
	if f.Full.Load() {
		if _, err := f.Folder.Stat(ctx, dir); err != nil {
			return nospace("mkdir", dir)
		}
	}
	return f.Folder.MkdirAll(ctx, dir)
}
