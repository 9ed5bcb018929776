//go:build unix

package folder_test

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"filebridge/internal/folder"
	"filebridge/internal/folder/foldertest"
	"filebridge/internal/folder/sftptest"
	"filebridge/internal/folderurl"
)

// oddEntries fills dir with a regular file beside a named pipe, a socket
// and a name holding "..", and returns the names List must leave out.
func oddEntries(t *testing.T, dir string) []string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "ok.csv"), []byte("code,name\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a..b.csv"), []byte("code,name\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.csv"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(dir, "sock.csv"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return []string{"a..b.csv", "pipe.csv", "sock.csv"}
}

// TestListSkipsOddEntries: a named pipe, a socket and a name holding ".."
// are left out of a listing (and told to OnSkip with their reason) on a
// local folder and on OpenSSH; opening the pipe returns at once with
// ErrNotRegular instead of waiting for a writer.
func TestListSkipsOddEntries(t *testing.T) {
	backends := []struct {
		name string
		open func(t *testing.T, dir string, onSkip func(dir, name, reason string)) folder.Folder
	}{
		{"local", func(t *testing.T, dir string, onSkip func(dir, name, reason string)) folder.Folder {
			f, err := folder.Open(t.Context(), folder.Options{Location: folderurl.Local(dir), Logger: testLogger(t), OnSkip: onSkip})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = f.Close() })
			return f
		}},
		{"openssh", func(t *testing.T, dir string, onSkip func(dir, name, reason string)) folder.Folder {
			opts := sftptest.StartSSHD(t, dir).Options(dir)
			opts.OnSkip = onSkip
			return openSFTP(t, opts)
		}},
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			dir := t.TempDir()
			odd := oddEntries(t, dir)
			var mu sync.Mutex
			reasons := map[string]string{}
			f := b.open(t, dir, func(_, name, reason string) {
				mu.Lock()
				reasons[name] = reason
				mu.Unlock()
			})
			if got := foldertest.Names(t, t.Context(), f, "."); !slices.Equal(got, []string{"ok.csv"}) {
				t.Errorf("List: got %q, want only ok.csv", got)
			}
			mu.Lock()
			for _, n := range odd {
				if reasons[n] == "" {
					t.Errorf("%s left out without a reason told to OnSkip (got %q)", n, reasons)
				}
			}
			if r := reasons["pipe.csv"]; r != "a named pipe (FIFO): only regular files are taken; remove it from the folder" && r != "a named pipe (FIFO): only regular files are taken; remove it on the server" {
				t.Errorf("reason for the pipe: %q", r)
			}
			mu.Unlock()
			done := make(chan error, 1)
			go func() {
				rc, err := f.Open(t.Context(), "pipe.csv")
				if err == nil {
					_ = rc.Close()
				}
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, folder.ErrNotRegular) || !errors.Is(err, fs.ErrInvalid) {
					t.Errorf("Open(pipe.csv): %v, want ErrNotRegular", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Open(pipe.csv) still blocked after 10s")
			}
		})
	}
}
