package folder

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
)

// localFolder is a Folder on a local directory. Every access goes through
// an os.Root, so symbolic links are followed only while they stay inside
// the root; a link pointing outside is refused.
type localFolder struct {
	dir    string // absolute path of the root
	log    *slog.Logger
	onSkip func(dir, name, reason string)

	mu   sync.Mutex
	root *localRoot // opened lazily: the root may be created by MkdirAll(".")
}

// localRoot is the folder root twice: an os.Root, whose walk resolves a
// name one component at a time (an open and a close each) and follows the
// links that stay inside, and the root directory open, from which
// openBeneath reaches a name without links in one call. An operation takes
// openBeneath first and the walk when that cannot decide, so what a name
// resolves to is the walk's answer; both hold no directory but the root
// between operations, so a directory removed or renamed away meanwhile is
// looked up again by name at the next operation. The root itself is held,
// as os.Root holds it: a root renamed away is followed.
type localRoot struct {
	*os.Root
	dir *os.File
}

// openFile is os.Root.OpenFile without a walk when no link is on the way.
func (r *localRoot) openFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	fh, err := openBeneath(r.dir, name, filepath.Join(r.Name(), name), flag, uint32(perm))
	if errors.Is(err, errWalk) {
		return r.OpenFile(name, flag, perm)
	}
	if err != nil {
		return nil, &os.PathError{Op: "openat", Path: name, Err: err}
	}
	return fh, nil
}

// stat is os.Root.Stat without a walk when no link is on the way.
func (r *localRoot) stat(name string) (fs.FileInfo, error) {
	info, err := statBeneath(r.dir, name)
	if errors.Is(err, errWalk) {
		return r.Stat(name)
	}
	if err != nil {
		return nil, &os.PathError{Op: "statat", Path: name, Err: err}
	}
	return info, nil
}

// openDir opens dir for renameat2 and fsync; "." is the root's own handle.
// The caller releases it with closeDir.
func (r *localRoot) openDir(dir string) (*os.File, error) {
	if dir == "." {
		return r.dir, nil
	}
	return r.openFile(dir, os.O_RDONLY, 0)
}

func (r *localRoot) closeDir(d *os.File) {
	if d != r.dir {
		_ = d.Close()
	}
}

// errWalk says that openBeneath could not decide: the walk does.
var errWalk = errors.New("a link on the way or no openat2: walking")

var _ Folder = (*localFolder)(nil)

// localWriteBuffer is the buffer between CreateAtomic's writer and a
// local file: a size that does not cost a file of one order more than
// its own content.
const localWriteBuffer = 8 << 10

func openLocal(p string, opts Options) (*localFolder, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, fmt.Errorf("opening local folder %s: %w", p, err)
	}
	f := &localFolder{dir: abs, log: opts.Logger.With("folder", "file://"+filepath.ToSlash(abs)), onSkip: opts.OnSkip}
	if _, err := f.getRoot(); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return f, nil
}

// getRoot returns the open root, opening it on first use.
func (f *localFolder) getRoot() (*localRoot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.root != nil {
		return f.root, nil
	}
	r, err := os.OpenRoot(f.dir)
	if err != nil {
		return nil, fmt.Errorf("opening local folder %s: %w", f.dir, err)
	}
	d, err := r.Open(".")
	if err != nil {
		_ = r.Close()
		return nil, fmt.Errorf("opening local folder %s: %w", f.dir, err)
	}
	f.root = &localRoot{Root: r, dir: d}
	return f.root, nil
}

// prepare checks ctx, cleans name and returns the root.
func (f *localFolder) prepare(ctx context.Context, name string) (*localRoot, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	clean, err := cleanName(name)
	if err != nil {
		return nil, "", err
	}
	r, err := f.getRoot()
	if err != nil {
		return nil, "", err
	}
	return r, clean, nil
}

func (f *localFolder) String() string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(f.dir)}).String()
}

func (f *localFolder) List(ctx context.Context, dir string) ([]Entry, error) {
	r, clean, err := f.prepare(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("listing %s on %s: %w", dir, f, err)
	}
	d, err := r.Open(clean)
	if err != nil {
		return nil, fmt.Errorf("listing %s on %s: %w", clean, f, err)
	}
	defer d.Close()
	des, err := d.ReadDir(-1)
	if err != nil {
		return nil, fmt.Errorf("listing %s on %s: %w", clean, f, err)
	}
	out := make([]Entry, 0, len(des))
	for _, de := range des {
		name := de.Name()
		if reason := validEntryName(name); reason != "" {
			skipped(f.log, f.onSkip, clean, name, "unsafe name ("+reason+"); rename it")
			continue
		}
		full := path.Join(clean, name)
		var info fs.FileInfo
		if de.Type()&fs.ModeSymlink != 0 {
			// Follow the link only inside the root.
			info, err = r.Stat(full)
			if err != nil {
				skipped(f.log, f.onSkip, clean, name, "symbolic link that is broken or leads outside the folder ("+err.Error()+")")
				continue
			}
		} else {
			info, err = de.Info()
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed since ReadDir
			}
			if err != nil {
				return nil, fmt.Errorf("listing %s on %s: %w", clean, f, err)
			}
		}
		if what := irregular(info.Mode()); what != "" {
			skipped(f.log, f.onSkip, clean, name, what+": only regular files are taken; remove it from the folder")
			continue
		}
		out = append(out, entryFromInfo(name, info))
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func entryFromInfo(name string, info fs.FileInfo) Entry {
	e := Entry{Name: name, ModTime: info.ModTime(), IsDir: info.IsDir()}
	if !e.IsDir {
		e.Size = info.Size()
	}
	return e
}

func (f *localFolder) Stat(ctx context.Context, name string) (Entry, error) {
	r, clean, err := f.prepare(ctx, name)
	if err != nil {
		return Entry{}, fmt.Errorf("statting %s on %s: %w", name, f, err)
	}
	info, err := r.stat(clean)
	if err != nil {
		return Entry{}, fmt.Errorf("statting %s on %s: %w", clean, f, linkError(r.Root, clean, err))
	}
	return entryFromInfo(path.Base(clean), info), nil
}

// linkError adds ErrLink and fs.ErrPermission to err, an error of
// following name, when name is a link that leads out of the root.
func linkError(r *os.Root, name string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if fi, lerr := r.Lstat(name); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%w (%w: it leads out of the folder: %w)", err, ErrLink, fs.ErrPermission)
	}
	return err
}

func (f *localFolder) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	r, clean, err := f.prepare(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("opening %s on %s: %w", name, f, err)
	}
	// Non-blocking: opening a named pipe must not wait for a writer. The
	// flag changes nothing for the regular file that is then read.
	fh, err := r.openFile(clean, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("opening %s on %s: %w", clean, f, err)
	}
	st, err := fh.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = notRegular(clean, st.Mode())
	}
	if err != nil {
		_ = fh.Close()
		return nil, fmt.Errorf("opening %s on %s: %w", clean, f, err)
	}
	return fh, nil
}

func (f *localFolder) CreateAtomic(ctx context.Context, name string, write func(io.Writer) error) (err error) {
	r, clean, err := f.prepare(ctx, name)
	if err != nil {
		return fmt.Errorf("creating %s on %s: %w", name, f, err)
	}
	dir, base := splitName(clean)
	if clean == "." {
		return fmt.Errorf("creating the folder root on %s: %w", f, badName(name, "not a file name"))
	}
	tmp := path.Join(dir, tempName(base))
	fh, err := r.openFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return fmt.Errorf("creating %s on %s: %w", tmp, f, err)
	}
	closed := false
	defer func() {
		if err == nil {
			return
		}
		if !closed {
			_ = fh.Close()
		}
		if rerr := r.Remove(tmp); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			f.log.Warn("could not remove temporary file; remove it by hand", "name", tmp, "error", rerr)
		}
	}()
	bw := bufio.NewWriterSize(fh, localWriteBuffer)
	if err := write(bw); err != nil {
		return fmt.Errorf("writing %s on %s: %w", clean, f, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing %s on %s: %w", clean, f, err)
	}
	if err := fh.Sync(); err != nil {
		return fmt.Errorf("syncing %s on %s: %w", tmp, f, err)
	}
	closed = true
	if err := fh.Close(); err != nil {
		return fmt.Errorf("closing %s on %s: %w", tmp, f, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("creating %s on %s: %w", clean, f, err)
	}
	d, err := r.openDir(dir)
	if err != nil {
		return fmt.Errorf("renaming %s to %s on %s: %w", tmp, clean, f, err)
	}
	defer r.closeDir(d)
	if err := renameAt(r, d, d, tmp, clean); err != nil {
		return fmt.Errorf("renaming %s to %s on %s: %w", tmp, clean, f, err)
	}
	// The rename is made durable; failures are only logged: the file is
	// already in place and some file systems refuse to sync a directory.
	if err := d.Sync(); err != nil {
		f.log.Debug("syncing directory failed", "dir", dir, "error", err)
	}
	return nil
}

func (f *localFolder) Rename(ctx context.Context, from, to string) error {
	r, cfrom, cto, err := f.preparePair(ctx, from, to)
	if err != nil {
		return fmt.Errorf("renaming %s to %s on %s: %w", from, to, f, err)
	}
	if err := renameNoReplace(r, cfrom, cto); err != nil {
		return fmt.Errorf("renaming %s to %s on %s: %w", cfrom, cto, f, err)
	}
	return nil
}

func (f *localFolder) Replace(ctx context.Context, from, to string) error {
	r, cfrom, cto, err := f.preparePair(ctx, from, to)
	if err != nil {
		return fmt.Errorf("replacing %s with %s on %s: %w", to, from, f, err)
	}
	if err := r.Rename(cfrom, cto); err != nil {
		return fmt.Errorf("replacing %s with %s on %s: %w", cto, cfrom, f, err)
	}
	return nil
}

func (f *localFolder) preparePair(ctx context.Context, from, to string) (*localRoot, string, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", "", err
	}
	cfrom, cto, err := cleanPair(from, to)
	if err != nil {
		return nil, "", "", err
	}
	r, err := f.getRoot()
	return r, cfrom, cto, err
}

func (f *localFolder) Remove(ctx context.Context, name string) error {
	r, clean, err := f.prepare(ctx, name)
	if err != nil {
		return fmt.Errorf("removing %s on %s: %w", name, f, err)
	}
	if err := r.Remove(clean); err != nil {
		return fmt.Errorf("removing %s on %s: %w", clean, f, err)
	}
	return nil
}

func (f *localFolder) MkdirAll(ctx context.Context, dir string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("creating directory %s on %s: %w", dir, f, err)
	}
	clean, err := cleanName(dir)
	if err != nil {
		return fmt.Errorf("creating directory %s on %s: %w", dir, f, err)
	}
	if _, err := os.Stat(f.dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(f.dir, 0o777); err != nil {
			return fmt.Errorf("creating folder root %s: %w", f.dir, err)
		}
	}
	r, err := f.getRoot()
	if err != nil {
		return err
	}
	if err := r.MkdirAll(clean, 0o777); err != nil {
		return fmt.Errorf("creating directory %s on %s: %w", clean, f, err)
	}
	return nil
}

func (f *localFolder) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.root == nil {
		return nil
	}
	err := errors.Join(f.root.dir.Close(), f.root.Close())
	f.root = nil
	if err != nil {
		return fmt.Errorf("closing %s: %w", f, err)
	}
	return nil
}

// renameat2 is renameat2NoReplace; tests replace it to exercise the fallback.
var renameat2 = renameat2NoReplace

// renameNoReplace renames from to to inside r and fails with an error
// matching fs.ErrExist when to exists. It uses renameat2(RENAME_NOREPLACE)
// on directory handles opened through the root and falls back to
// link+unlink on file systems that do not support it.
func renameNoReplace(r *localRoot, from, to string) error {
	fromDir, _ := splitName(from)
	toDir, _ := splitName(to)
	fd, err := r.openDir(fromDir)
	if err != nil {
		return err
	}
	defer r.closeDir(fd)
	td := fd
	if toDir != fromDir {
		td, err = r.openDir(toDir)
		if err != nil {
			return err
		}
		defer r.closeDir(td)
	}
	return renameAt(r, fd, td, from, to)
}

// renameAt is renameNoReplace with the directories of from and to open.
func renameAt(r *localRoot, fd, td *os.File, from, to string) error {
	_, fromBase := splitName(from)
	_, toBase := splitName(to)
	err := renameat2(fd, fromBase, td, toBase)
	if err == nil {
		return nil
	}
	if !errors.Is(err, errors.ErrUnsupported) && !errors.Is(err, syscall.EINVAL) {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	// Fallback: a hard link fails when the target exists, then unlink the source.
	if err := r.Link(from, to); err != nil {
		if !errors.Is(err, syscall.EPERM) {
			return err
		}
		// Directories cannot be hard-linked: check then rename (racy, last resort).
		if _, serr := r.Lstat(to); serr == nil {
			return &os.LinkError{Op: "rename", Old: from, New: to, Err: fs.ErrExist}
		}
		return r.Rename(from, to)
	}
	return r.Remove(from)
}
