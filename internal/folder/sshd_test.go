package folder_test

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"filebridge/internal/folder"
	"filebridge/internal/folder/foldertest"
	"filebridge/internal/folder/sftptest"
)

// The tests below run against a real OpenSSH sshd (internal-sftp), whose
// rename semantics are the ones production servers have.

func TestOpenSSHConformance(t *testing.T) {
	root := t.TempDir()
	sshd := sftptest.StartSSHD(t, root)
	var n atomic.Int64
	foldertest.RunConformance(t, func(t *testing.T) folder.Folder {
		dir := filepath.Join(root, fmt.Sprintf("case%d", n.Add(1)))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return openSFTP(t, sshd.Options(dir))
	})
}

func TestOpenSSHReplaceFallback(t *testing.T) {
	root := t.TempDir()
	sshd := sftptest.StartSSHD(t, root)
	checkReplaceFallback(t, openSFTP(t, sshd.Options(root)))
}

func TestOpenSSHLinksAndOddNames(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	sshd := sftptest.StartSSHD(t, root)
	ctx := t.Context()
	for name, content := range map[string]string{"a.csv": "abc", "new\nline.csv": "x", "back\\slash.csv": "x"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "escape.csv")); err != nil {
		t.Fatal(err)
	}
	f := openSFTP(t, sshd.Options(root))
	if got := foldertest.Names(t, ctx, f, "."); !slices.Equal(got, []string{"a.csv"}) {
		t.Errorf("List: got %q, want only a.csv", got)
	}
	if _, err := f.Open(ctx, "escape.csv"); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("Open of a link: got %v, want a permission error", err)
	}
}

func TestOpenSSHHostKeyAndLogin(t *testing.T) {
	root := t.TempDir()
	sshd := sftptest.StartSSHDConfig(t, root, sftptest.SSHDConfig{RSAHostKey: true})
	other := sftptest.NewServer(t) // a different host key
	tests := []struct {
		name    string
		mutate  func(*folder.Options)
		wantErr error
		wantMsg string
	}{
		{name: "known_hosts", mutate: func(*folder.Options) {}},
		{name: "pinned fingerprint", mutate: func(o *folder.Options) {
			o.KnownHostsFile, o.HostKeyFingerprint = "", sshd.Fingerprint
		}},
		// sshd presents its ed25519 key first.
		{name: "pinned rsa fingerprint", mutate: func(o *folder.Options) {
			o.KnownHostsFile, o.HostKeyFingerprint = "", sshd.RSAFingerprint
		}},
		{name: "wrong fingerprint", mutate: func(o *folder.Options) {
			o.KnownHostsFile, o.HostKeyFingerprint = "", other.Fingerprint
		}, wantErr: folder.ErrHostKeyMismatch, wantMsg: sshd.Fingerprint},
		{name: "known_hosts of another server", mutate: func(o *folder.Options) {
			o.KnownHostsFile = other.KnownHostsFile
		}, wantErr: folder.ErrHostKeyUnknown, wantMsg: sshd.Fingerprint},
		{name: "password refused (keys only)", mutate: func(o *folder.Options) {
			o.PrivateKey, o.Password = nil, "nope"
		}, wantMsg: "logging in"},
		{name: "unknown key refused", mutate: func(o *folder.Options) {
			o.PrivateKey = other.ClientKey
		}, wantMsg: "logging in"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := sshd.Options(root)
			tc.mutate(&opts)
			err := firstUse(t, opts)
			if tc.wantMsg == "" {
				if err != nil {
					t.Fatalf("first use: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("connected, want an error")
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("got %v, want %v", err, tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("message %q does not mention %q", err, tc.wantMsg)
			}
		})
	}
}

// BenchmarkSFTPRead1000 lists a folder of 1000 small files on OpenSSH and
// reads them all, sequentially and with 8 workers sharing the connection,
// for comparison with `rclone copy` (see scripts/bench.sh).
func BenchmarkSFTPRead1000(b *testing.B) {
	root := b.TempDir()
	content := []byte(strings.Repeat("SKU;NAME;QTY\nA-1;Widget;3\n", 40)) // ~1 KiB
	for i := range 1000 {
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("ORDERS_%04d.csv", i)), content, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	sshd := sftptest.StartSSHD(b, root)
	opts := sshd.Options(root)
	opts.Logger = slog.New(slog.DiscardHandler)
	f, err := folder.Open(b.Context(), opts)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	readAll := func(b *testing.B, workers int) {
		ctx := b.Context()
		es, err := f.List(ctx, ".")
		if err != nil || len(es) != 1000 {
			b.Fatalf("List: %d entries, %v", len(es), err)
		}
		names := make(chan string)
		var wg sync.WaitGroup
		var failed atomic.Value
		for range workers {
			wg.Go(func() {
				for n := range names {
					r, err := f.Open(ctx, n)
					if err == nil {
						_, err = io.Copy(io.Discard, r)
						r.Close()
					}
					if err != nil {
						failed.Store(err)
					}
				}
			})
		}
		for _, e := range es {
			names <- e.Name
		}
		close(names)
		wg.Wait()
		if err, _ := failed.Load().(error); err != nil {
			b.Fatal(err)
		}
	}
	for _, workers := range []int{1, 8} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.SetBytes(int64(1000 * len(content)))
			for b.Loop() {
				readAll(b, workers)
			}
			b.ReportMetric(float64(1000*b.N)/b.Elapsed().Seconds(), "files/s")
		})
	}
}

// TestOpenSSHRenameSafety: OpenSSH refuses a rename onto an existing name,
// and the probe that finds it leaves nothing behind.
func TestOpenSSHRenameSafety(t *testing.T) {
	root := t.TempDir()
	sshd := sftptest.StartSSHD(t, root)
	f := openSFTP(t, sshd.Options(root))
	got, err := folder.RenameSafety(t.Context(), f)
	if err != nil || !strings.Contains(got, "refuses a rename onto an existing name") {
		t.Errorf("got %q, %v; want the server to refuse", got, err)
	}
	if names := foldertest.Names(t, t.Context(), f, "."); len(names) != 0 {
		t.Errorf("the probe left %q", names)
	}
}
