package folder

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pkg/sftp"

	"filebridge/internal/folderurl"
)

// sftpFolder is a Folder in a directory of an SFTP server. It uses the
// SSH connection of its account, shared with the other folders open on it
// (sftpLink).
type sftpFolder struct {
	link    *sftpLink
	root    string // absolute, or relative to the login directory
	display string // URL without secrets
	opts    Options
	log     *slog.Logger

	// noPosixRename makes Replace use its fallback (tests).
	noPosixRename bool
	closed        atomic.Bool
}

var _ Folder = (*sftpFolder)(nil)

func openSFTP(loc folderurl.URL, opts Options) (*sftpFolder, error) {
	user, addr, root, display := loc.User, loc.Addr(), loc.Path, loc.String()
	if user == "" || loc.Host == "" || root == "" {
		return nil, fmt.Errorf("opening folder %s: an sftp folder needs a user, a host and a path: sftp://user@host:port/path", display)
	}
	link, err := acquireLink(user, addr, opts)
	if err != nil {
		return nil, fmt.Errorf("opening folder %s: %w", display, err)
	}
	return &sftpFolder{link: link, root: root, display: display, opts: opts, log: opts.Logger.With("folder", display)}, nil
}

func (f *sftpFolder) String() string { return f.display }

// remote cleans name and returns its path on the server.
func (f *sftpFolder) remote(name string) (clean, full string, err error) {
	clean, err = cleanName(name)
	if err != nil {
		return "", "", err
	}
	return clean, path.Join(f.root, clean), nil
}

func (f *sftpFolder) List(ctx context.Context, dir string) ([]Entry, error) {
	var out []Entry
	err := f.runOn(ctx, "listing", dir, true, func(ctx context.Context, c *sftpConn, clean, full string) error {
		infos, err := c.sftp.ReadDirContext(ctx, full)
		if err != nil {
			return err
		}
		out = make([]Entry, 0, len(infos))
		for _, fi := range infos {
			name := fi.Name()
			if name == "." || name == ".." {
				continue
			}
			if reason := validEntryName(name); reason != "" {
				skipped(f.log, f.opts.OnSkip, clean, name, "unsafe name ("+reason+"); rename it on the server")
				continue
			}
			if fi.Mode()&fs.ModeSymlink != 0 {
				skipped(f.log, f.opts.OnSkip, clean, name, "symbolic link: links are not followed on SFTP folders")
				continue
			}
			if what := irregular(fi.Mode()); what != "" {
				skipped(f.log, f.opts.OnSkip, clean, name, what+": only regular files are taken; remove it on the server")
				continue
			}
			out = append(out, entryFromInfo(name, fi))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// errSymlink is returned for a symbolic link, which SFTP folders never follow.
var errSymlink = fmt.Errorf("%w on SFTP folders: %w", ErrLink, fs.ErrPermission)

// lstat describes full; a symbolic link is an error, except for the root.
func (f *sftpFolder) lstat(c *sftpConn, clean, full string) (os.FileInfo, error) {
	if clean == "." {
		return c.sftp.Stat(full)
	}
	fi, err := c.sftp.Lstat(full)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, errSymlink
	}
	return fi, err
}

func (f *sftpFolder) Stat(ctx context.Context, name string) (e Entry, err error) {
	err = f.runOn(ctx, "statting", name, true, func(_ context.Context, c *sftpConn, clean, full string) error {
		fi, err := f.lstat(c, clean, full)
		if err == nil {
			e = entryFromInfo(path.Base(clean), fi)
		}
		return err
	})
	return e, err
}

func (f *sftpFolder) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	return f.open(ctx, name, nil)
}

// open opens name for reading: described as listed shows it when not nil,
// else as a look-up before the open finds it. The reader stays bound to
// ctx: every read gets the per-operation timeout, and ending ctx aborts it.
func (f *sftpFolder) open(ctx context.Context, name string, listed *Entry) (io.ReadCloser, error) {
	var r *sftpFile
	err := f.runOn(ctx, "opening", name, true, func(_ context.Context, c *sftpConn, clean, full string) (err error) {
		var fi os.FileInfo
		if listed != nil {
			fi = listedInfo{name: path.Base(clean), e: *listed}
		} else if fi, err = f.lstat(c, clean, full); err != nil {
			return err
		} else if !fi.Mode().IsRegular() {
			return notRegular(clean, fi.Mode())
		}
		fh, err := c.sftp.Open(full)
		if err != nil {
			return err
		}
		r = &sftpFile{ctx: ctx, timeout: f.opts.Timeout, c: c, fh: fh, info: fi}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// sftpFile reads or writes a remote file, each call under the operation
// timeout.
type sftpFile struct {
	ctx     context.Context
	timeout time.Duration
	c       *sftpConn
	fh      *sftp.File
	info    os.FileInfo // of a file opened for reading: what Open found
}

// Stat describes a file opened for reading as Open found it, without a
// request.
func (f *sftpFile) Stat() (fs.FileInfo, error) {
	if f.info == nil {
		return nil, fmt.Errorf("stat of a file opened for writing: %w", fs.ErrInvalid)
	}
	return f.info, nil
}

func (f *sftpFile) Read(p []byte) (int, error) { return f.step(f.fh.Read, p) }

func (f *sftpFile) Write(p []byte) (int, error) { return f.step(f.fh.Write, p) }

// step runs one read or write of p under the timeout.
func (f *sftpFile) step(op func([]byte) (int, error), p []byte) (n int, err error) {
	ctx, cancel := context.WithTimeout(f.ctx, f.timeout)
	defer cancel()
	err = f.c.guard(ctx, func() error {
		n, err = op(p)
		return err
	})
	return n, err
}

func (f *sftpFile) Close() error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(f.ctx), f.timeout)
	defer cancel()
	return f.c.guard(ctx, f.fh.Close)
}

// call runs one step of a multi-step operation on c under the timeout.
func (f *sftpFolder) call(ctx context.Context, c *sftpConn, fn func() error) error {
	ctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	defer cancel()
	err := c.guard(ctx, fn)
	if err != nil && isConnError(err) {
		c.kill()
	}
	return err
}

// writeBufferSize is the buffer between CreateAtomic's writer and a
// remote file: each write is a request.
const writeBufferSize = 64 << 10

func (f *sftpFolder) CreateAtomic(ctx context.Context, name string, write func(io.Writer) error) (err error) {
	clean, full, err := f.remote(name)
	if err != nil {
		return fmt.Errorf("creating %s on %s: %w", name, f, err)
	}
	if clean == "." {
		return fmt.Errorf("creating the folder root on %s: %w", f, badName(name, "not a file name"))
	}
	dir, base := splitName(clean)
	// The temporary file is opened through run, on a fresh connection
	// when the one at hand turns out dead, under a new name each attempt
	// (an attempt whose answer was lost may leave its temporary file
	// behind, as a kill in the middle of a write would).
	var (
		c             *sftpConn
		fh            *sftp.File
		tmpClean, tmp string
	)
	err = f.run(ctx, true, func(_ context.Context, conn *sftpConn) (err error) {
		c, tmpClean = conn, path.Join(dir, tempName(base))
		tmp = path.Join(f.root, tmpClean)
		fh, err = c.sftp.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
		return err
	})
	if err != nil {
		return fmt.Errorf("creating %s on %s: %w", cmp.Or(tmpClean, clean), f, sftpError(err))
	}
	open := true
	defer func() {
		if err == nil {
			return
		}
		if open {
			_ = f.call(context.WithoutCancel(ctx), c, fh.Close)
		}
		rctx := context.WithoutCancel(ctx)
		if rerr := f.run(rctx, false, func(_ context.Context, c *sftpConn) error { return c.sftp.Remove(tmp) }); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			f.log.Warn("could not remove temporary file; remove it by hand", "name", tmpClean, "error", rerr)
		}
	}()

	bw := bufio.NewWriterSize(&sftpFile{ctx: ctx, timeout: f.opts.Timeout, c: c, fh: fh}, writeBufferSize)
	if err := write(bw); err != nil {
		return fmt.Errorf("writing %s on %s: %w", clean, f, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing %s on %s: %w", clean, f, sftpError(err))
	}
	if c.fsync {
		if err := f.call(ctx, c, fh.Sync); err != nil {
			return fmt.Errorf("syncing %s on %s: %w", tmpClean, f, sftpError(err))
		}
	}
	open = false
	if err := f.call(ctx, c, fh.Close); err != nil {
		return fmt.Errorf("closing %s on %s: %w", tmpClean, f, sftpError(err))
	}
	if err := f.call(ctx, c, func() error { return f.renameNoReplace(c, tmp, full) }); err != nil {
		return fmt.Errorf("renaming %s to %s on %s: %w", tmpClean, clean, f, sftpError(err))
	}
	return nil
}

func (f *sftpFolder) preparePair(from, to string) (cfrom, ffrom, cto, fto string, err error) {
	cfrom, cto, err = cleanPair(from, to)
	return cfrom, path.Join(f.root, cfrom), cto, path.Join(f.root, cto), err
}

func (f *sftpFolder) Rename(ctx context.Context, from, to string) error {
	cfrom, ffrom, cto, fto, err := f.preparePair(from, to)
	if err != nil {
		return fmt.Errorf("renaming %s to %s on %s: %w", from, to, f, err)
	}
	err = f.run(ctx, false, func(_ context.Context, c *sftpConn) error {
		return f.renameNoReplace(c, ffrom, fto)
	})
	if err != nil {
		return fmt.Errorf("renaming %s to %s on %s: %w", cfrom, cto, f, sftpError(err))
	}
	return nil
}

func (f *sftpFolder) Remove(ctx context.Context, name string) error {
	return f.runOn(ctx, "removing", name, false, func(_ context.Context, c *sftpConn, _, full string) error {
		return c.sftp.Remove(full)
	})
}

func (f *sftpFolder) MkdirAll(ctx context.Context, dir string) error {
	return f.runOn(ctx, "creating directory", dir, true, func(_ context.Context, c *sftpConn, _, full string) error {
		return c.sftp.MkdirAll(full)
	})
}

// runOn runs op on name, cleaned and as a path on the server, as run
// does; its errors say what it was doing ("removing") to which name.
func (f *sftpFolder) runOn(ctx context.Context, doing, name string, idempotent bool, op func(ctx context.Context, c *sftpConn, clean, full string) error) error {
	clean, full, err := f.remote(name)
	if err != nil {
		return fmt.Errorf("%s %s on %s: %w", doing, name, f, err)
	}
	err = f.run(ctx, idempotent, func(ctx context.Context, c *sftpConn) error {
		return op(ctx, c, clean, full)
	})
	if err != nil {
		return fmt.Errorf("%s %s on %s: %w", doing, clean, f, sftpError(err))
	}
	return nil
}

// Close releases the folder's share of its connection, which closes with
// the last folder using it; the folder cannot be used afterwards.
func (f *sftpFolder) Close() error {
	if !f.closed.Swap(true) {
		f.link.release()
	}
	return nil
}

// SFTP status codes beyond SFTPv3 that some servers send.
const (
	fxNoSuchPath        = 10
	fxFileAlreadyExists = 11
)

// sftpError maps SFTP status codes to fs errors where pkg/sftp does not.
func sftpError(err error) error {
	var se *sftp.StatusError
	if !errors.As(err, &se) {
		return err
	}
	switch se.Code {
	case fxNoSuchPath:
		return fmt.Errorf("%w: %w", err, fs.ErrNotExist)
	case fxFileAlreadyExists:
		return fmt.Errorf("%w: %w", err, fs.ErrExist)
	}
	return err
}

// OpenListed opens name for reading as Open does, taking e, what a
// listing just showed of it, for the file's size and modification time
// instead of asking again: on SFTP the look-up before the open is one
// round trip less. It is for a file a listing found regular (List returns
// no links nor other odd entries) and only renamed since, which keeps
// what the listing showed; a directory, an entry without a modification
// time (a server that lists names without their attributes) and any local
// folder are opened as Open does.
func OpenListed(ctx context.Context, f Folder, name string, e Entry) (io.ReadCloser, error) {
	sf, ok := f.(*sftpFolder)
	if !ok || e.IsDir || e.ModTime.Unix() <= 0 {
		return f.Open(ctx, name)
	}
	return sf.open(ctx, name, &e)
}

// listedInfo describes a regular file as a listing showed it.
type listedInfo struct {
	name string
	e    Entry
}

func (i listedInfo) Name() string       { return i.name }
func (i listedInfo) Size() int64        { return i.e.Size }
func (i listedInfo) Mode() fs.FileMode  { return 0o644 }
func (i listedInfo) ModTime() time.Time { return i.e.ModTime }
func (i listedInfo) IsDir() bool        { return false }
func (i listedInfo) Sys() any           { return nil }
