package folder_test

import (
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/pkg/sftp"

	"filebridge/internal/folder"
	"filebridge/internal/folder/foldertest"
	"filebridge/internal/folder/sftptest"
)

// The tests below run against servers that behave otherwise than
// OpenSSH: renames that overwrite, one connection per user.

// overwritingServers are in-memory servers whose plain rename replaces an
// existing target, as MySecureShell's: without extensions, and with
// hardlink@openssh.com.
var overwritingServers = []struct {
	name string
	cfg  sftptest.Config
}{
	{"no extensions", sftptest.Config{OverwritingRename: true, HideExtensions: []string{sftptest.ExtHardlink, sftptest.ExtPosixRename}}},
	{"hardlink", sftptest.Config{OverwritingRename: true, HideExtensions: []string{sftptest.ExtPosixRename}}},
	// A file system without hard links under a server that advertises them.
	{"hardlink failing", sftptest.Config{OverwritingRename: true, HideExtensions: []string{sftptest.ExtPosixRename},
		Handlers: func(h sftp.Handlers) sftp.Handlers {
			h.FileCmd = failingLinks{h.FileCmd}
			return h
		}}},
}

// failingLinks fails every hard link with a generic failure.
type failingLinks struct{ sftp.FileCmder }

func (f failingLinks) Filecmd(r *sftp.Request) error {
	if r.Method == "Link" {
		return errors.New("this file system has no hard links")
	}
	return f.FileCmder.Filecmd(r)
}

// TestSFTPOverwritingConformance: on a server whose plain rename
// overwrites, Rename and CreateAtomic still never overwrite, and Replace
// still replaces.
func TestSFTPOverwritingConformance(t *testing.T) {
	for _, tc := range overwritingServers {
		t.Run(tc.name, func(t *testing.T) {
			foldertest.RunConformance(t, func(t *testing.T) folder.Folder {
				return memFolder(t, sftptest.NewServerConfig(t, tc.cfg))
			})
			t.Run("ReplaceFallback", func(t *testing.T) {
				checkReplaceFallback(t, memFolder(t, sftptest.NewServerConfig(t, tc.cfg)))
			})
		})
	}
}

// TestSFTPOverwritingServer: the test server does what it stands for (a
// plain rename replaces the target; the hidden extensions are neither
// advertised nor served), so that the conformance run on it means
// something.
func TestSFTPOverwritingServer(t *testing.T) {
	srv := sftptest.NewOverwritingServer(t)
	c := srv.Client(t)
	sftptest.WriteFile(t, c, "/a", []byte("a"))
	sftptest.WriteFile(t, c, "/b", []byte("b"))
	if err := c.Rename("/a", "/b"); err != nil {
		t.Fatalf("plain rename onto an existing file: %v, want it to overwrite", err)
	}
	if got := string(sftptest.ReadFile(t, c, "/b")); got != "a" {
		t.Errorf("target holds %q after the rename, want a", got)
	}
	for _, ext := range []string{sftptest.ExtHardlink, sftptest.ExtPosixRename} {
		if _, ok := c.HasExtension(ext); ok {
			t.Errorf("%s advertised", ext)
		}
	}
	if err := c.Link("/b", "/c"); err == nil {
		t.Errorf("hardlink served")
	}
}

// TestSFTPRenameSafety: the probe tells each kind of server apart, says
// how the folder keeps from overwriting there, and leaves nothing behind.
func TestSFTPRenameSafety(t *testing.T) {
	tests := []struct {
		name string
		srv  *sftptest.Server
		want string
	}{
		{"refuses", sftptest.NewServer(t), "refuses a rename onto an existing name"},
		{"overwrites, no extensions", sftptest.NewServerConfig(t, overwritingServers[0].cfg), "overwrites an existing name on a plain rename and has no hardlink@openssh.com: filebridge checks that the name is free"},
		{"overwrites, hardlink", sftptest.NewServerConfig(t, overwritingServers[1].cfg), "overwrites an existing name on a plain rename: filebridge links the new name"},
		// No right to create the probe's files: the folder takes no chance.
		{"cannot tell", sftptest.NewServerConfig(t, sftptest.Config{Handlers: func(h sftp.Handlers) sftp.Handlers {
			h.FilePut = noProbe{h.FilePut}
			return h
		}}), "could not be tested for what a rename onto an existing name does (creating /data/.rename-probe."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := memFolder(t, tc.srv)
			got, err := folder.RenameSafety(t.Context(), f)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want it to say %q", got, tc.want)
			}
			if names := foldertest.Names(t, t.Context(), f, "."); len(names) != 0 {
				t.Errorf("the probe left %q", names)
			}
		})
	}
}

// noProbe refuses to create the files of the rename probe.
type noProbe struct{ sftp.FileWriter }

func (n noProbe) Filewrite(r *sftp.Request) (io.WriterAt, error) {
	if strings.Contains(r.Filepath, ".rename-probe.") {
		return nil, os.ErrPermission
	}
	return n.FileWriter.Filewrite(r)
}

// TestSFTPSharedConnection: folders on one account share one SSH
// connection, so that a server allowing one connection per user serves
// them all; the connection closes with the last of them.
func TestSFTPSharedConnection(t *testing.T) {
	t.Run("one connection per user", func(t *testing.T) {
		srv := sftptest.NewServerConfig(t, sftptest.Config{OneConnectionPerUser: true})
		ctx := t.Context()
		a, b := memFolderAt(t, srv, "/a"), memFolderAt(t, srv, "/b")
		foldertest.Write(t, ctx, a, "in.csv", "inbox")
		foldertest.Write(t, ctx, b, "out.csv", "outbox")
		if got := foldertest.Read(t, ctx, a, "in.csv") + foldertest.Read(t, ctx, b, "out.csv"); got != "inboxoutbox" {
			t.Errorf("read %q", got)
		}
		if got := srv.Accepted(); got != 1 {
			t.Errorf("%d connections, want 1 shared by both folders", got)
		}
		// Closing one folder leaves the connection to the other.
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Stat(ctx, "."); !errors.Is(err, net.ErrClosed) {
			t.Errorf("Stat on a closed folder: got %v, want net.ErrClosed", err)
		}
		if got := foldertest.Read(t, ctx, b, "out.csv"); got != "outbox" {
			t.Errorf("read %q", got)
		}
		if got := srv.Accepted(); got != 1 {
			t.Errorf("%d connections after closing one folder, want 1", got)
		}
	})
	t.Run("closed with the last folder", func(t *testing.T) {
		srv := sftptest.NewServer(t)
		a := memFolderAt(t, srv, "/a")
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		b := memFolderAt(t, srv, "/b")
		if got := srv.Accepted(); got != 2 {
			t.Errorf("%d connections, want a new one after the last folder closed", got)
		}
		// A reconnection serves every folder of the account.
		c := memFolderAt(t, srv, "/c")
		srv.KillConnections()
		for _, f := range []folder.Folder{b, c} {
			if _, err := f.Stat(t.Context(), "."); err != nil {
				t.Fatal(err)
			}
		}
		if got := srv.Accepted(); got != 3 {
			t.Errorf("%d connections, want 3 (one reconnection shared)", got)
		}
	})
	t.Run("other credentials, other connection", func(t *testing.T) {
		srv := sftptest.NewServer(t)
		memFolderAt(t, srv, "/a")
		opts := srv.Options("/a")
		opts.Password, opts.PrivateKey = "", srv.ClientKey
		if _, err := openSFTP(t, opts).Stat(t.Context(), "."); err != nil {
			t.Fatal(err)
		}
		if got := srv.Accepted(); got != 2 {
			t.Errorf("%d connections, want one for each login", got)
		}
	})
}

// memFolderAt returns the folder dir of srv, created.
func memFolderAt(t *testing.T, srv *sftptest.Server, dir string) folder.Folder {
	t.Helper()
	f := openSFTP(t, srv.Options(dir))
	if err := f.MkdirAll(t.Context(), "."); err != nil {
		t.Fatalf("creating %s: %v", dir, err)
	}
	return f
}
