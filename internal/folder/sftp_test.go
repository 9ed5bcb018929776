package folder_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/pem"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"filebridge/internal/folder"
	"filebridge/internal/folder/foldertest"
	"filebridge/internal/folder/sftptest"
)

// openSFTP opens opts with the test logger and closes it at the end.
func openSFTP(t *testing.T, opts folder.Options) folder.Folder {
	t.Helper()
	opts.Logger = testLogger(t)
	f, err := folder.Open(t.Context(), opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", opts.Location, err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}

// firstUse opens opts and stats the folder's root: an SFTP folder
// connects, verifies the host key and logs in at its first operation. It
// returns the first error.
func firstUse(t *testing.T, opts folder.Options) error {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = testLogger(t)
	}
	f, err := folder.Open(t.Context(), opts)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.Stat(t.Context(), ".")
	return err
}

// memFolder returns a folder on "/data" of a fresh in-memory server.
func memFolder(t *testing.T, srv *sftptest.Server) folder.Folder {
	t.Helper()
	f := openSFTP(t, srv.Options("/data"))
	if err := f.MkdirAll(t.Context(), "."); err != nil {
		t.Fatalf("creating the root: %v", err)
	}
	return f
}

func TestSFTPMemConformance(t *testing.T) {
	foldertest.RunConformance(t, func(t *testing.T) folder.Folder {
		return memFolder(t, sftptest.NewServer(t))
	})
}

func TestSFTPReplaceFallback(t *testing.T) {
	checkReplaceFallback(t, memFolder(t, sftptest.NewServer(t)))
}

// checkReplaceFallback checks Replace on f without posix-rename@openssh.com:
// the target is replaced, nothing is left aside, and a failed replace
// leaves the target as it was.
func checkReplaceFallback(t *testing.T, f folder.Folder) {
	t.Helper()
	ctx := t.Context()
	folder.DisablePosixRename(f)
	foldertest.Write(t, ctx, f, "new", "fresh")
	foldertest.Write(t, ctx, f, "cur", "stale")
	if err := f.Replace(ctx, "new", "cur"); err != nil {
		t.Fatalf("Replace: %v", err)
	}
	if got := foldertest.Read(t, ctx, f, "cur"); got != "fresh" {
		t.Errorf("got %q, want fresh", got)
	}
	if got := foldertest.Names(t, ctx, f, "."); !slices.Equal(got, []string{"cur"}) {
		t.Errorf("got %q, want only cur (nothing left aside)", got)
	}
	if err := f.Replace(ctx, "missing", "cur"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Replace from missing: got %v", err)
	}
	if got := foldertest.Read(t, ctx, f, "cur"); got != "fresh" {
		t.Errorf("failed replace changed the target: got %q", got)
	}
}

func TestSFTPListSkipsLinksAndUnsafeNames(t *testing.T) {
	ctx := t.Context()
	srv := sftptest.NewServer(t)
	f := memFolder(t, srv)
	foldertest.Write(t, ctx, f, "a.csv", "abc")
	raw := srv.Client(t)
	for _, n := range []string{"/data/new\nline.csv", "/data/back\\slash.csv"} {
		fh, err := raw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		fh.Close()
	}
	if err := raw.Symlink("/data/a.csv", "/data/link.csv"); err != nil {
		t.Fatal(err)
	}
	if got := foldertest.Names(t, ctx, f, "."); !slices.Equal(got, []string{"a.csv"}) {
		t.Errorf("List: got %q, want only a.csv", got)
	}
	if _, err := f.Stat(ctx, "link.csv"); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("Stat of a link: got %v, want a permission error", err)
	}
	if _, err := f.Open(ctx, "link.csv"); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("Open of a link: got %v, want a permission error", err)
	}
}

func TestSFTPHostKeyVerification(t *testing.T) {
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecSigner, err := ssh.NewSignerFromKey(ecKey)
	if err != nil {
		t.Fatal(err)
	}
	rsaSigner := mustRSASigner(t)
	srv := sftptest.NewServerConfig(t, sftptest.Config{ExtraHostKeys: []ssh.Signer{ecSigner, rsaSigner}})
	ecFP, rsaFP := ssh.FingerprintSHA256(ecSigner.PublicKey()), ssh.FingerprintSHA256(rsaSigner.PublicKey())
	other, err := ssh.NewSignerFromKey(mustECKey(t))
	if err != nil {
		t.Fatal(err)
	}
	khFile := func(lines ...string) string {
		p := filepath.Join(t.TempDir(), "known_hosts")
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	hostLine := func(k ssh.PublicKey) string {
		return knownhosts.Line([]string{knownhosts.Normalize(srv.Addr)}, k)
	}
	otherHostLine := knownhosts.Line([]string{"[127.0.0.1]:1"}, ecSigner.PublicKey())

	tests := []struct {
		name        string
		knownHosts  string
		fingerprint string
		wantErr     error
		wantInMsg   []string
	}{
		{name: "known_hosts ed25519", knownHosts: srv.KnownHostsFile},
		// The server prefers one key type: each known key alone must work,
		// which needs HostKeyAlgorithms from known_hosts.
		{name: "known_hosts ecdsa only", knownHosts: khFile(hostLine(ecSigner.PublicKey()))},
		{name: "known_hosts with both", knownHosts: khFile(hostLine(ecSigner.PublicKey()), srv.KnownHostsLine)},
		{name: "pinned fingerprint", fingerprint: srv.Fingerprint},
		{name: "one of several pins", fingerprint: ssh.FingerprintSHA256(other.PublicKey()) + ", " + srv.Fingerprint},
		// The server presents its ed25519 key first: a pin of another of
		// its keys must still be reached.
		{name: "pinned rsa fingerprint", fingerprint: rsaFP},
		{name: "pinned ecdsa fingerprint", fingerprint: ecFP},
		{name: "pinned rsa fingerprint and known_hosts of another", knownHosts: khFile(otherHostLine), fingerprint: rsaFP},
		{
			name: "wrong fingerprint", fingerprint: ssh.FingerprintSHA256(other.PublicKey()),
			wantErr:   folder.ErrHostKeyMismatch,
			wantInMsg: []string{srv.Addr, srv.Fingerprint, ssh.FingerprintSHA256(other.PublicKey()), ecFP, rsaFP},
		},
		{
			name: "host not in known_hosts", knownHosts: khFile(otherHostLine),
			wantErr:   folder.ErrHostKeyUnknown,
			wantInMsg: []string{srv.Addr, srv.Fingerprint, "known_hosts", "ssh-keyscan"},
		},
		{
			name: "empty known_hosts", knownHosts: khFile("# nothing"),
			wantErr:   folder.ErrHostKeyUnknown,
			wantInMsg: []string{srv.Fingerprint},
		},
		{
			name: "changed key", knownHosts: khFile(hostLine(other.PublicKey())),
			wantErr:   folder.ErrHostKeyMismatch,
			wantInMsg: []string{srv.Addr, ssh.FingerprintSHA256(other.PublicKey()), "attack"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := folder.Options{
				Location: srv.Options("/").Location, Password: srv.Password,
				KnownHostsFile: tc.knownHosts, HostKeyFingerprint: tc.fingerprint,
				Timeout: 5 * time.Second, Logger: testLogger(t),
			}
			err := firstUse(t, opts)
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("first use: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("connected, want %v", tc.wantErr)
			}
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("got %v, want %v", err, tc.wantErr)
			}
			for _, s := range tc.wantInMsg {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("message %q does not mention %q", err, s)
				}
			}
		})
	}
}

// TestSFTPPinnedKeyReconnects: once the server presented the pinned key
// (its third type), a reconnection offers that type first: one
// connection, not one per key type.
func TestSFTPPinnedKeyReconnects(t *testing.T) {
	rsaSigner := mustRSASigner(t)
	srv := sftptest.NewServerConfig(t, sftptest.Config{ExtraHostKeys: []ssh.Signer{mustECSigner(t), rsaSigner}})
	opts := srv.Options("/")
	opts.KnownHostsFile, opts.HostKeyFingerprint = "", ssh.FingerprintSHA256(rsaSigner.PublicKey())
	f := openSFTP(t, opts)
	if _, err := f.Stat(t.Context(), "."); err != nil {
		t.Fatal(err)
	}
	if got := srv.Accepted(); got != 3 {
		t.Errorf("first connection: %d handshakes, want 3 (ed25519 and ecdsa refused, then rsa)", got)
	}
	srv.KillConnections()
	before := srv.Accepted()
	if _, err := f.Stat(t.Context(), "."); err != nil {
		t.Fatal(err)
	}
	if got := srv.Accepted() - before; got != 1 {
		t.Errorf("reconnection: %d handshakes, want 1", got)
	}
}

func mustRSASigner(t *testing.T) ssh.Signer {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ssh.NewSignerFromKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustECSigner(t *testing.T) ssh.Signer {
	t.Helper()
	s, err := ssh.NewSignerFromKey(mustECKey(t))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustECKey(t *testing.T) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestSFTPLogins(t *testing.T) {
	pwSrv := sftptest.NewServer(t)
	kbdSrv := sftptest.NewServerConfig(t, sftptest.Config{KeyboardInteractiveOnly: true})
	keySrv := sftptest.NewServerConfig(t, sftptest.Config{NoPassword: true})
	tests := []struct {
		name    string
		srv     *sftptest.Server
		pw      string
		key     bool
		wantErr bool
	}{
		{name: "password", srv: pwSrv, pw: pwSrv.Password},
		{name: "keyboard-interactive", srv: kbdSrv, pw: kbdSrv.Password},
		{name: "private key", srv: keySrv, key: true},
		{name: "key and password, key wins", srv: keySrv, key: true, pw: "wrong"},
		{name: "wrong password", srv: pwSrv, pw: "wrong-password-xyz", wantErr: true},
		{name: "password on key-only server", srv: keySrv, pw: keySrv.Password, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.srv.Options("/")
			opts.Password = tc.pw
			if tc.key {
				opts.PrivateKey = tc.srv.ClientKey
			}
			opts.Logger = testLogger(t)
			err := firstUse(t, opts)
			if !tc.wantErr {
				if err != nil {
					t.Fatalf("first use: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("logged in, want an error")
			}
			if !strings.Contains(err.Error(), "logging in") {
				t.Errorf("message %q does not say the login failed", err)
			}
			if tc.pw != "" && strings.Contains(err.Error(), tc.pw) {
				t.Errorf("message leaks the password: %v", err)
			}
		})
	}
	t.Run("encrypted key without passphrase", func(t *testing.T) {
		block, err := ssh.MarshalPrivateKeyWithPassphrase(mustECKey(t), "", []byte("pass"))
		if err != nil {
			t.Fatal(err)
		}
		opts := keySrv.Options("/")
		opts.PrivateKey = pem.EncodeToMemory(block)
		if _, err := folder.Open(t.Context(), opts); err == nil || !strings.Contains(err.Error(), "passphrase") {
			t.Errorf("got %v, want an error asking for the passphrase", err)
		}
	})
}

func TestSFTPReconnectsAfterDrop(t *testing.T) {
	ctx := t.Context()
	srv := sftptest.NewServer(t)
	f := memFolder(t, srv)
	foldertest.Write(t, ctx, f, "a.csv", strings.Repeat("x", 1<<20))

	// Killed between operations: the next one redials.
	if n := srv.KillConnections(); n != 1 {
		t.Fatalf("killed %d connections, want 1", n)
	}
	if _, err := f.Stat(ctx, "a.csv"); err != nil {
		t.Fatalf("Stat after the drop: %v", err)
	}

	// Killed in the middle of a read: the read fails, the next call works.
	r, err := f.Open(ctx, "a.csv")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(r, make([]byte, 1000)); err != nil {
		t.Fatal(err)
	}
	srv.KillConnections()
	if _, err := io.ReadAll(r); err == nil {
		t.Errorf("reading through a dropped connection: no error")
	}
	r.Close()
	foldertest.Write(t, ctx, f, "b.csv", "after")
	if got := foldertest.Read(t, ctx, f, "b.csv"); got != "after" {
		t.Errorf("got %q", got)
	}

	// Concurrent callers after a drop share one reconnection.
	srv.KillConnections()
	before := srv.Accepted()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := f.List(ctx, "."); err != nil {
				t.Errorf("List after drop: %v", err)
			}
		})
	}
	wg.Wait()
	if got := srv.Accepted() - before; got != 1 {
		t.Errorf("%d new connections, want 1 shared by all callers", got)
	}
}

// TestSFTPBacksOffWhenServerIsGone: after a failed dial, calls fail fast
// until the redial wait (1s, then 2s) has passed on the folder's clock.
func TestSFTPBacksOffWhenServerIsGone(t *testing.T) {
	ctx := t.Context()
	srv := sftptest.NewServer(t)
	f := memFolder(t, srv)
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	folder.SetClock(f, func() time.Time { return now })
	srv.Close()
	steps := []struct {
		advance time.Duration
		want    string // "": a dial, which fails
	}{
		{0, ""},
		{0, "(next attempt in 1s)"},
		{999 * time.Millisecond, "(next attempt in 1ms)"},
		{time.Millisecond, ""},
		{500 * time.Millisecond, "(next attempt in 1.5s)"},
		{1500 * time.Millisecond, ""},
	}
	for i, st := range steps {
		now = now.Add(st.advance)
		_, err := f.Stat(ctx, ".")
		switch {
		case err == nil:
			t.Fatalf("step %d: Stat on a stopped server: no error", i)
		case st.want == "" && strings.Contains(err.Error(), "next attempt in"):
			t.Errorf("step %d: got %v, want a new dial once the wait has passed", i, err)
		case st.want != "" && !strings.Contains(err.Error(), st.want):
			t.Errorf("step %d: got %v, want a fast failure %s", i, err, st.want)
		}
	}
}

// blockingLister blocks Stat and List requests for paths containing
// "block" until release is closed.
type blockingLister struct {
	sftp.FileLister
	release chan struct{}
}

func (b blockingLister) Filelist(r *sftp.Request) (sftp.ListerAt, error) {
	if strings.Contains(r.Filepath, "block") {
		select {
		case <-b.release:
		case <-r.Context().Done():
		}
	}
	return b.FileLister.Filelist(r)
}

func TestSFTPOperationDeadline(t *testing.T) {
	release := make(chan struct{})
	srv := sftptest.NewServerConfig(t, sftptest.Config{
		Handlers: func(h sftp.Handlers) sftp.Handlers {
			h.FileList = blockingLister{FileLister: h.FileList, release: release}
			return h
		},
	})
	t.Cleanup(func() { close(release) })
	opts := srv.Options("/")
	opts.Timeout = time.Second // generous enough for the dial on a busy machine
	f := openSFTP(t, opts)
	ctx := t.Context()

	_, err := f.Stat(ctx, "block")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Stat on a hanging server: got %v, want a deadline error", err)
	}
	if !strings.Contains(err.Error(), "in time") {
		t.Errorf("message %q does not explain the timeout", err)
	}
	// The folder reconnects and works for requests that do not hang.
	if _, err := f.Stat(ctx, "."); err != nil {
		t.Errorf("Stat after the timeout: %v", err)
	}
}

// TestSFTPKeepAlive: an idle connection sends keepalive requests (the
// server counts them) and stays up: the next request uses it.
func TestSFTPKeepAlive(t *testing.T) {
	srv := sftptest.NewServer(t)
	opts := srv.Options("/")
	opts.KeepAlive = 20 * time.Millisecond
	f := openSFTP(t, opts)
	if _, err := f.Stat(t.Context(), "."); err != nil { // connects
		t.Fatal(err)
	}
	before := srv.Accepted()
	for i := range 3 {
		select {
		case <-srv.KeepAlives():
		case <-time.After(10 * time.Second):
			t.Fatalf("%d keepalive requests reached the server, want 3", i)
		}
	}
	if _, err := f.Stat(t.Context(), "."); err != nil {
		t.Fatal(err)
	}
	if srv.Accepted() != before {
		t.Errorf("keepalives dropped the connection")
	}
}

// racingRenamer plays another client that claims a file named name first:
// before each rename of it, it renames it to the same target itself, and after
// the (then failing) rename it moves the target on to target+".next", as
// an instance does with a file it finished.
type racingRenamer struct {
	sftp.FileCmder
	name string
}

func (r racingRenamer) Filecmd(req *sftp.Request) error {
	if req.Method != "Rename" || path.Base(req.Filepath) != r.name {
		return r.FileCmder.Filecmd(req)
	}
	other := sftp.NewRequest("Rename", req.Filepath)
	other.Target = req.Target
	if err := r.FileCmder.Filecmd(other); err != nil {
		return err
	}
	err := r.FileCmder.Filecmd(req)
	next := sftp.NewRequest("Rename", req.Target)
	next.Target = req.Target + ".next"
	_ = r.FileCmder.Filecmd(next)
	return err
}

// TestSFTPRenameLostRace: a rename that fails because another client
// renamed the same file to the same target first is fs.ErrNotExist (the
// file is gone: someone else took it), even when that client has moved
// the target on by the time the failure is looked into; the inbox skips
// such a file instead of failing its round.
func TestSFTPRenameLostRace(t *testing.T) {
	srv := sftptest.NewServerConfig(t, sftptest.Config{
		Handlers: func(h sftp.Handlers) sftp.Handlers {
			h.FileCmd = racingRenamer{FileCmder: h.FileCmd, name: "a.csv"}
			return h
		},
	})
	ctx := t.Context()
	f := memFolder(t, srv)
	foldertest.Write(t, ctx, f, "a.csv", "abc")
	err := f.Rename(ctx, "a.csv", "b.csv")
	if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrExist) {
		t.Fatalf("Rename of a file another client took: got %v, want fs.ErrNotExist", err)
	}
	if !strings.Contains(err.Error(), "a.csv is gone since") {
		t.Errorf("message %q does not say the source is gone", err)
	}
	if got := foldertest.Names(t, ctx, f, "."); !slices.Equal(got, []string{"b.csv.next"}) {
		t.Errorf("folder holds %q, want only the other client's b.csv.next", got)
	}
}

// statCounter counts the look-ups (Stat and Lstat) a server answers.
type statCounter struct {
	sftp.FileLister
	n atomic.Int32
}

func (s *statCounter) Filelist(r *sftp.Request) (sftp.ListerAt, error) {
	if r.Method == "Stat" || r.Method == "Lstat" {
		s.n.Add(1)
	}
	return s.FileLister.Filelist(r)
}

func (s *statCounter) Lstat(r *sftp.Request) (sftp.ListerAt, error) {
	s.n.Add(1)
	return s.FileLister.(sftp.LstatFileLister).Lstat(r)
}

// TestOpenListed: a file a listing showed, renamed since, is opened
// without a look-up on the server, reads whole, and its reader describes
// it as the listing did; an entry without a modification time, a
// directory, and a file of a local folder are opened as Open does.
func TestOpenListed(t *testing.T) {
	stats := &statCounter{}
	srv := sftptest.NewServerConfig(t, sftptest.Config{Handlers: func(h sftp.Handlers) sftp.Handlers {
		stats.FileLister, h.FileList = h.FileList, stats
		return h
	}})
	c := srv.Client(t)
	if err := c.MkdirAll("/data"); err != nil {
		t.Fatal(err)
	}
	sftptest.WriteFile(t, c, "/data/A.csv", []byte("code,name\nA,Alpha\n"))
	local := t.TempDir()
	if err := os.WriteFile(filepath.Join(local, "A.csv"), []byte("code,name\nA,Alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		f     folder.Folder
		looks int32 // look-ups the open may make
	}{
		{"sftp", openSFTP(t, srv.Options("/data")), 0},
		{"local", openLocal(t, local), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			entries, err := tc.f.List(t.Context(), ".")
			if err != nil || len(entries) != 1 {
				t.Fatalf("List: %v, %v", entries, err)
			}
			if err := tc.f.MkdirAll(t.Context(), "processing"); err != nil {
				t.Fatal(err)
			}
			if err := tc.f.Rename(t.Context(), "A.csv", "processing/A.csv"); err != nil {
				t.Fatal(err)
			}
			before := stats.n.Load()
			rc, err := folder.OpenListed(t.Context(), tc.f, "processing/A.csv", entries[0])
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			if got := stats.n.Load() - before; got != tc.looks {
				t.Errorf("%d look-ups on the server, want %d", got, tc.looks)
			}
			data, err := io.ReadAll(rc)
			if err != nil || string(data) != "code,name\nA,Alpha\n" {
				t.Fatalf("read %q, %v", data, err)
			}
			st, err := rc.(interface{ Stat() (fs.FileInfo, error) }).Stat()
			if err != nil || st.Size() != entries[0].Size || !st.ModTime().Equal(entries[0].ModTime) || !st.Mode().IsRegular() {
				t.Errorf("Stat: %v, %v; want the listing's %+v", st, err, entries[0])
			}
			if tc.name == "sftp" {
				// A listing without attributes: the file is looked up.
				bare := folder.Entry{Name: entries[0].Name, Size: entries[0].Size}
				before := stats.n.Load()
				rc, err := folder.OpenListed(t.Context(), tc.f, "processing/A.csv", bare)
				if err != nil {
					t.Fatal(err)
				}
				_ = rc.Close()
				if got := stats.n.Load() - before; got != 1 {
					t.Errorf("%d look-ups for an entry without a modification time, want 1", got)
				}
			}
			dir, err := folder.OpenListed(t.Context(), tc.f, "processing", folder.Entry{Name: "processing", IsDir: true})
			if err == nil {
				_ = dir.Close()
				t.Error("a directory was opened for reading")
			}
		})
	}
}
