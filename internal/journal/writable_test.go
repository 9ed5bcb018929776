package journal_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"filebridge/internal/journal"
)

// immutable makes path unwritable (on) or writable again: with chattr
// +i, which stops even root, as the tests run; with chmod where chattr is
// not available and the tests do not run as root. Otherwise the test is
// skipped, visibly.
func immutable(t *testing.T, path string, on bool) {
	t.Helper()
	flag := "-i"
	if on {
		flag = "+i"
		t.Cleanup(func() { _ = exec.Command("chattr", "-i", path).Run() })
	}
	out, err := exec.Command("chattr", flag, path).CombinedOutput()
	if err == nil {
		return
	}
	if os.Geteuid() == 0 {
		t.Skipf("SKIPPED: cannot make %s read-only for root here (chattr %s: %v %s); the e2e drill covers it by running filebridge as another user", path, flag, err, out)
	}
	st, serr := os.Stat(path)
	if serr != nil {
		t.Fatal(serr)
	}
	mode := os.FileMode(0o644)
	if st.IsDir() {
		mode = 0o755
	}
	if on {
		mode &^= 0o222
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// TestJournalNotWritable: a journal whose file or folder cannot be
// written is refused by Open and CheckPath with ErrNotWritable, and an
// open journal that becomes unwritable fails CheckWritable until it is
// writable again.
func TestJournalNotWritable(t *testing.T) {
	ctx := context.Background()
	for _, which := range []string{"file", "folder"} {
		t.Run(which, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "var")
			path := filepath.Join(dir, "journal.db")
			db, err := journal.Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.CheckWritable(ctx); err != nil {
				t.Fatalf("fresh journal: %v", err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			target := path
			if which == "folder" {
				target = dir
			}
			immutable(t, target, true)
			if err := journal.CheckPath(path); !errors.Is(err, journal.ErrNotWritable) {
				t.Errorf("CheckPath: %v, want ErrNotWritable", err)
			}
			if db, err := journal.Open(ctx, path); !errors.Is(err, journal.ErrNotWritable) {
				if err == nil {
					_ = db.Close()
				}
				t.Fatalf("Open of a read-only journal: %v, want ErrNotWritable", err)
			}
			immutable(t, target, false)
			db, err = journal.Open(ctx, path)
			if err != nil {
				t.Fatalf("Open after it became writable again: %v", err)
			}
			defer db.Close()

			immutable(t, target, true)
			err = db.CheckWritable(ctx)
			if !errors.Is(err, journal.ErrNotWritable) {
				t.Fatalf("CheckWritable while read-only: %v, want ErrNotWritable", err)
			}
			t.Logf("message: %v", err)
			immutable(t, target, false)
			if err := db.CheckWritable(ctx); err != nil {
				t.Errorf("CheckWritable once writable again: %v", err)
			}
		})
	}
}
