package inbox

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// Watcher is one file-system watcher (one inotify instance on Linux) for
// every local inbox of a process: each inbox adds its folder, and the
// events are handed to the inbox that owns the folder they are about. A
// process with a thousand inboxes thus stays far below the per-user limit
// of inotify instances (128 by default), where a watcher per inbox left
// most of them polling. The fsnotify watcher starts with the first folder
// watched and closes with the last one unwatched, so a Watcher needs no
// closing. The zero value is not usable: see NewWatcher.
type Watcher struct {
	log *slog.Logger

	// ops serializes the calls into fsnotify (add, remove, close) and the
	// start and end of fs; mu, taken by the dispatch of every event,
	// guards dirs only.
	ops sync.Mutex
	fs  *fsnotify.Watcher // nil while no folder is watched

	mu   sync.Mutex
	dirs map[string]map[*hints]struct{} // folder -> the inboxes watching it
}

// NewWatcher returns a Watcher that logs through log (nil: slog.Default).
func NewWatcher(log *slog.Logger) *Watcher {
	if log == nil {
		log = slog.Default()
	}
	return &Watcher{log: log, dirs: map[string]map[*hints]struct{}{}}
}

// watch hands the events about the entries of dir to h (add(name)); an
// event lost (queue overflow) or the folder itself removed or renamed asks
// h to look at everything (add("", true)). unwatch ends it.
func (w *Watcher) watch(dir string, h *hints) (unwatch func(), err error) {
	dir = filepath.Clean(dir)
	w.ops.Lock()
	defer w.ops.Unlock()
	if w.fs == nil {
		fs, err := fsnotify.NewWatcher()
		if err != nil {
			return nil, fmt.Errorf("starting a file-system watcher: %w", err)
		}
		w.fs = fs
		go w.dispatch(fs)
	}
	w.mu.Lock()
	subs, watched := w.dirs[dir]
	w.mu.Unlock()
	if !watched {
		if err := w.fs.Add(dir); err != nil {
			w.closeIdle()
			return nil, fmt.Errorf("watching %s: %w", dir, err)
		}
		subs = map[*hints]struct{}{}
	}
	w.mu.Lock()
	subs[h] = struct{}{}
	w.dirs[dir] = subs
	w.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { w.unwatch(dir, h) }) }, nil
}

// unwatch stops handing the events of dir to h; the folder's watch ends
// with its last inbox, the fsnotify watcher with the last folder.
func (w *Watcher) unwatch(dir string, h *hints) {
	w.ops.Lock()
	defer w.ops.Unlock()
	w.mu.Lock()
	subs := w.dirs[dir]
	delete(subs, h)
	last := len(subs) == 0
	if last {
		delete(w.dirs, dir)
	}
	w.mu.Unlock()
	if last && w.fs != nil {
		// A folder removed meanwhile is no longer watched: nothing to remove.
		if err := w.fs.Remove(dir); err != nil {
			w.log.Debug("unwatching an inbox folder", "inbox_path", dir, "error", err)
		}
	}
	w.closeIdle()
}

// closeIdle closes the fsnotify watcher when no folder is watched (w.ops
// held).
func (w *Watcher) closeIdle() {
	w.mu.Lock()
	idle := len(w.dirs) == 0
	w.mu.Unlock()
	if !idle || w.fs == nil {
		return
	}
	if err := w.fs.Close(); err != nil {
		w.log.Debug("closing the file-system watcher", "error", err)
	}
	w.fs = nil
}

// dispatch hands the events of fs to the inboxes until fs is closed.
func (w *Watcher) dispatch(fs *fsnotify.Watcher) {
	for {
		select {
		case ev, ok := <-fs.Events:
			if !ok {
				return
			}
			if ev.Has(fsnotify.Chmod) && !ev.Has(fsnotify.Write) {
				continue
			}
			w.mu.Lock()
			for h := range w.dirs[filepath.Dir(ev.Name)] {
				h.add(filepath.Base(ev.Name), false)
			}
			if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				// The watched folder itself went away.
				for h := range w.dirs[ev.Name] {
					h.add("", true)
				}
			}
			w.mu.Unlock()
		case err, ok := <-fs.Errors:
			if !ok {
				return
			}
			// An overflow loses events: every inbox looks at everything.
			w.log.Debug("file-system watcher error", "error", err)
			w.mu.Lock()
			for _, subs := range w.dirs {
				for h := range subs {
					h.add("", true)
				}
			}
			w.mu.Unlock()
		}
	}
}
