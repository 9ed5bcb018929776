package inbox

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"filebridge/internal/folder"
)

// removeTemps removes the temporary files (folder.IsTemp) a kill or a
// grace timeout left in the inbox's folders: its root, processing/,
// error/, today's and yesterday's processed/YYYY/MM/DD/ (a file another
// instance finished since has no open row to name its folder), and the
// folders where the open files' reports are planned. It runs when the
// folder is first opened, before any round; failures are only logged. On
// a shared journal another instance may be writing a temporary file right
// now: only those untouched for staleTemp go, and it runs again every
// staleTemp (cleanLater) for those that were too fresh. A stop that comes
// meanwhile ends it without a word: the next start cleans up. root is its
// listing of the root less the files it removed (nil when it has none).
func (in *Inbox) removeTemps(ctx context.Context, f folder.Folder) (root []folder.Entry) {
	now := in.now()
	in.mu.Lock()
	in.cleanedAt = now
	in.mu.Unlock()
	dirs := []string{".", in.cfg.ProcessingDir, in.cfg.ErrorDir,
		path.Join(in.cfg.ProcessedDir, now.Format("2006/01/02")), path.Join(in.cfg.ProcessedDir, now.AddDate(0, 0, -1).Format("2006/01/02"))}
	open, err := in.j.OpenFiles(ctx, in.cfg.Name)
	switch {
	case ctx.Err() != nil:
		return
	case err != nil:
		in.log.Warn("could not list the open files to clean up after a stop", "error", err)
	}
	for _, o := range open {
		if o.FinalPath != "" {
			dirs = append(dirs, path.Dir(o.FinalPath))
		}
	}
	dirs = slices.Compact(slices.Sorted(slices.Values(dirs)))
	// The folders are listed at once: on SFTP their requests share round
	// trips instead of waiting for one another.
	listed := make([][]folder.Entry, len(dirs))
	errs := make([]error, len(dirs))
	var wg sync.WaitGroup
	for i, dir := range dirs {
		wg.Go(func() { listed[i], errs[i] = f.List(ctx, dir) })
	}
	wg.Wait()
	for i, dir := range dirs {
		entries, err := listed[i], errs[i]
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				in.log.Warn("could not list a folder to clean up after a stop", "dir", dir, "error", err)
			}
			continue
		}
		kept := entries[:0:0]
		for _, e := range entries {
			if e.IsDir || !folder.IsTemp(e.Name) || (in.shared() && in.now().Sub(e.ModTime) < staleTemp) {
				kept = append(kept, e)
				continue
			}
			name := path.Join(dir, e.Name)
			if err := f.Remove(ctx, name); err != nil && !errors.Is(err, fs.ErrNotExist) {
				in.log.Warn("could not remove a temporary file left by a stop; remove it by hand", "name", name, "error", err)
				kept = append(kept, e)
				continue
			}
			in.log.Info("removed a temporary file left by an earlier stop", "name", name, "size", e.Size)
		}
		if dir == "." {
			root = kept
		}
	}
	return root
}

// cleanLater runs removeTemps again on a shared journal once staleTemp
// passed since it last ran: the temporary files it had to leave then
// (too fresh to tell from another instance's) go now.
func (in *Inbox) cleanLater(ctx context.Context, f folder.Folder) {
	in.mu.Lock()
	due := in.shared() && in.now().Sub(in.cleanedAt) >= staleTemp
	in.mu.Unlock()
	if due {
		in.removeTemps(ctx, f)
	}
}

// staleTemp is how long a temporary file stays untouched before an
// instance sharing the journal with others takes it for a leftover (with
// room for the clocks of the SFTP server and the instance to differ).
const staleTemp = 5 * time.Minute

// largeFile is the size from which a file's memory is handed back to the
// operating system as soon as the file is done.
const largeFile = 32 << 20

// releaseMemory hands the memory a large file needed back to the
// operating system at once, rather than when the runtime's scavenger gets
// to it minutes later: a daemon's RSS falls back after a huge file.
func (in *Inbox) releaseMemory(size int64) {
	if size < largeFile {
		return
	}
	debug.FreeOSMemory()
}
