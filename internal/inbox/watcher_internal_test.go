package inbox

import (
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"filebridge/internal/testkit"
)

// TestWatcherDispatch: one Watcher hands each event to the inboxes of the
// folder it is about, and only to them; the folder itself removed asks
// its inboxes to look at everything; the inotify instance starts with the
// first folder and ends with the last.
func TestWatcherDispatch(t *testing.T) {
	before, err := testkit.InotifyInstances("self")
	if err != nil {
		t.Skipf("SKIPPING: no /proc: %v", err)
	}
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, d := range []string{a, b} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	newHints := func() *hints { return &hints{signal: make(chan struct{}, 1), names: map[string]struct{}{}} }
	ha, ha2, hb := newHints(), newHints(), newHints()
	w := NewWatcher(slog.New(slog.DiscardHandler))
	var unwatch []func()
	for _, s := range []struct {
		dir string
		h   *hints
	}{{a, ha}, {a + "/", ha2}, {b, hb}} {
		u, err := w.watch(s.dir, s.h)
		if err != nil {
			t.Fatal(err)
		}
		unwatch = append(unwatch, u)
	}
	if n, _ := testkit.InotifyInstances("self"); n != before+1 {
		t.Errorf("%d inotify instances while watching two folders, want %d", n, before+1)
	}
	// next waits for h's signal and returns what it gathered.
	next := func(h *hints) ([]string, bool) {
		t.Helper()
		select {
		case <-h.signal:
		case <-time.After(10 * time.Second):
			t.Fatal("no event within 10s")
		}
		return h.take()
	}
	if err := os.WriteFile(filepath.Join(a, "X.csv"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b, "Y.csv"), []byte("y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		h    *hints
		want string
	}{{ha, "X.csv"}, {ha2, "X.csv"}, {hb, "Y.csv"}} {
		// Create and write may come as two signals: gather until the name.
		var got []string
		for !slices.Contains(got, tc.want) {
			names, all := next(tc.h)
			if all {
				t.Fatalf("a look at everything asked for, want %s", tc.want)
			}
			got = append(got, names...)
		}
		if slices.ContainsFunc(got, func(n string) bool { return n != tc.want }) {
			t.Errorf("hints %v, want only %s", got, tc.want)
		}
	}
	if err := os.RemoveAll(b); err != nil {
		t.Fatal(err)
	}
	for {
		if _, all := next(hb); all {
			break
		}
	}
	for _, u := range unwatch {
		u()
	}
	if n, _ := testkit.InotifyInstances("self"); n != before {
		t.Errorf("%d inotify instances once every folder is unwatched, want %d", n, before)
	}
	// A folder that does not exist yet cannot be watched (Run polls and
	// tries again after each round), and holds no inotify instance.
	if _, err := w.watch(filepath.Join(root, "later"), newHints()); err == nil {
		t.Error("a missing folder was watched")
	}
	if n, _ := testkit.InotifyInstances("self"); n != before {
		t.Errorf("%d inotify instances after a failed watch, want %d", n, before)
	}
}
