package folder

import (
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestRenameNoReplaceFallback covers file systems without
// RENAME_NOREPLACE: link+unlink for files, check-then-rename for dirs.
func TestRenameNoReplaceFallback(t *testing.T) {
	for _, unsupported := range []error{syscall.ENOSYS, syscall.EINVAL} {
		t.Run(unsupported.Error(), func(t *testing.T) {
			saved := renameat2
			renameat2 = func(*os.File, string, *os.File, string) error { return unsupported }
			t.Cleanup(func() { renameat2 = saved })

			dir := t.TempDir()
			for _, n := range []string{"a", "b"} {
				if err := os.WriteFile(filepath.Join(dir, n), []byte(n), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Mkdir(filepath.Join(dir, "d"), 0o700); err != nil {
				t.Fatal(err)
			}
			lf, err := openLocal(dir, Options{Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			defer lf.Close()
			r, err := lf.getRoot()
			if err != nil {
				t.Fatal(err)
			}
			if err := renameNoReplace(r, "a", "b"); !errors.Is(err, fs.ErrExist) {
				t.Errorf("onto existing file: got %v, want ErrExist", err)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "b")); string(b) != "b" {
				t.Errorf("target changed: %q", b)
			}
			if err := renameNoReplace(r, "a", "d/a"); err != nil {
				t.Errorf("to a free name: %v", err)
			}
			if _, err := os.Stat(filepath.Join(dir, "a")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("source still there after rename: %v", err)
			}
			if err := os.Mkdir(filepath.Join(dir, "e"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := renameNoReplace(r, "e", "b"); !errors.Is(err, fs.ErrExist) {
				t.Errorf("dir onto existing: got %v, want ErrExist", err)
			}
			if err := renameNoReplace(r, "e", "f"); err != nil {
				t.Errorf("dir to a free name: %v", err)
			}
		})
	}
}
