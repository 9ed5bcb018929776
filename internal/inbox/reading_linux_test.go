package inbox_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"filebridge/internal/portal"
)

// TestReadingLedgerOpenedOnce: the reading ledger is read at its first
// use and its file stays open: a round of 20 files opens it once, however
// their type is found (from the route, or from the header row read at the
// claim), instead of twice for each of its changes (read it, write it) at
// each of the file's readings.
func TestReadingLedgerOpenedOnce(t *testing.T) {
	const files = 20
	for _, typ := range []string{"suppliers", ""} {
		t.Run(fmt.Sprintf("route type %q", typ), func(t *testing.T) {
			e := newEnv(t, envOpts{routes: route("SUPPLIERS*", typ)})
			dir := e.cfg.Journal.Path + ".reading"
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			opens := watchOpens(t, dir)
			for i := range files {
				e.drop(fmt.Sprintf("SUPPLIERS_%02d.csv", i), suppliersFile(fmt.Sprintf("SUP-%02d-", i), 2))
			}
			if rr := e.runOnce(); len(rr.Files) != files {
				t.Fatalf("%d files processed, want %d", len(rr.Files), files)
			}
			e.onceEach(portal.Connections, "SUP-00-", 2)
			if n := opens(); n != 1 {
				t.Errorf("reading %d files opened the ledger %d times, want once", files, n)
			}
			if n := e.in.ReadingsLeft(); n != 0 {
				t.Errorf("the reading ledger holds %d entries, want none", n)
			}
			if held := heldOpen(t, dir); len(held) != 0 {
				t.Errorf("the inbox, idle after its round, holds %v open", held)
			}
		})
	}
}

// heldOpen lists the files of dir this process holds open.
func heldOpen(t *testing.T, dir string) []string {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	var held []string
	for _, fd := range fds {
		if p, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && filepath.Dir(p) == dir {
			held = append(held, p)
		}
	}
	return held
}

// watchOpens watches the files of dir for opens with inotify, and returns
// the func that counts them up to now: it makes a marker file in dir and
// reads the events until the marker's. An open is always followed by its
// close, so two opens are never merged into one event.
func watchOpens(t *testing.T, dir string) func() int {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Close(fd) })
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_OPEN|unix.IN_CLOSE_WRITE|unix.IN_CLOSE_NOWRITE|unix.IN_CREATE); err != nil {
		t.Fatal(err)
	}
	return func() int {
		const marker = "marker"
		if err := os.WriteFile(filepath.Join(dir, marker), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		opens := 0
		buf := make([]byte, 64<<10)
		for {
			n, err := unix.Read(fd, buf)
			if err != nil {
				t.Fatal(err)
			}
			for b := buf[:n]; len(b) >= unix.SizeofInotifyEvent; {
				mask := binary.NativeEndian.Uint32(b[4:8])
				nameLen := int(binary.NativeEndian.Uint32(b[12:16]))
				name := strings.TrimRight(string(b[unix.SizeofInotifyEvent:unix.SizeofInotifyEvent+nameLen]), "\x00")
				b = b[unix.SizeofInotifyEvent+nameLen:]
				switch {
				case name == marker && mask&unix.IN_CREATE != 0:
					return opens
				case name != marker && mask&unix.IN_OPEN != 0:
					opens++
				}
			}
		}
	}
}
