package e2e

import (
	"bytes"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pkg/sftp"

	"filebridge/internal/folder/sftptest"
)

// remote is a folder tree the test writes to and reads from, the way the
// legacy system would: through SFTP or on the server's disk.
type remote interface {
	put(t testing.TB, name string, data []byte) // into the inbox, atomically
	list(t testing.TB, dir string) []string     // recursive, relative to the inbox
	read(t testing.TB, name string) []byte
}

// sftpRemote is the in-process server's memory, through its client.
type sftpRemote struct {
	c    *sftp.Client
	root string
}

func (r sftpRemote) put(t testing.TB, name string, data []byte) {
	t.Helper()
	tmp := path.Join(r.root, "."+name+".part")
	f, err := r.c.Create(tmp)
	if err != nil {
		t.Fatalf("creating %s: %v", tmp, err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.c.Rename(tmp, path.Join(r.root, name)); err != nil {
		t.Fatalf("renaming %s: %v", tmp, err)
	}
}

func (r sftpRemote) list(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	w := r.c.Walk(path.Join(r.root, dir))
	for w.Step() {
		if w.Err() != nil {
			continue
		}
		if !w.Stat().IsDir() {
			out = append(out, strings.TrimPrefix(w.Path(), path.Join(r.root, dir)+"/"))
		}
	}
	sort.Strings(out)
	return out
}

func (r sftpRemote) read(t testing.TB, name string) []byte {
	t.Helper()
	f, err := r.c.Open(path.Join(r.root, name))
	if err != nil {
		t.Fatalf("opening %s: %v", name, err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// diskRemote is a local folder (served by sshd).
type diskRemote struct{ root string }

func (r diskRemote) put(t testing.TB, name string, data []byte) {
	writeAtomic(t, filepath.Join(r.root, name), data)
}
func (r diskRemote) list(t testing.TB, dir string) []string {
	return files(t, filepath.Join(r.root, dir))
}
func (r diskRemote) read(t testing.TB, name string) []byte {
	return []byte(readFile(t, filepath.Join(r.root, name)))
}

// TestSFTPInbox runs `filebridge run` on an SFTP inbox, for each edition,
// on the in-process SFTP server (password login), on its variant whose
// plain rename overwrites (as MySecureShell's) and on OpenSSH sshd (key
// login; skipped with a message only when sshd is absent and CI is unset),
// all with host keys checked against known_hosts.
func TestSFTPInbox(t *testing.T) {
	for _, server := range []string{"inprocess", "overwriting", "openssh"} {
		for _, ed := range []string{"A", "B"} {
			t.Run(server+"/"+ed, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				var (
					url, extra string
					rem        remote
					env        []string
				)
				switch server {
				case "inprocess", "overwriting":
					var srv *sftptest.Server
					if server == "overwriting" {
						srv = sftptest.NewOverwritingServer(t) // as MySecureShell
					} else {
						srv = sftptest.NewServer(t)
					}
					c := srv.Client(t)
					if err := c.MkdirAll("/edi/in"); err != nil {
						t.Fatal(err)
					}
					url, rem = srv.URL("/edi/in"), sftpRemote{c: c, root: "/edi/in"}
					extra = "password_env = \"E2E_SFTP_PASSWORD\"\nknown_hosts = \"" + srv.KnownHostsFile + "\""
					env = []string{"E2E_SFTP_PASSWORD=" + srv.Password}
				case "openssh":
					root := filepath.Join(dir, "srv")
					mkdir(t, root, "in")
					sshd := sftptest.StartSSHD(t, root)
					key := filepath.Join(dir, "id_ed25519")
					mustWrite(t, key, string(sshd.ClientKey))
					url, rem = sshd.URL(root+"/in"), diskRemote{root: filepath.Join(root, "in")}
					extra = "private_key_file = \"" + key + "\"\nknown_hosts = \"" + sshd.KnownHostsFile + "\""
				}
				s := startSim(t, ed)
				cfg := runConfig(t, dir, s, "", inboxSpec{name: "erp", url: url, extra: extra})
				p := startEnv(t, "run "+server+" "+ed, env, "run", "--config", cfg)

				good := dependencyOrder(sampleNames(t, ed, "good"))
				for _, n := range good {
					rem.put(t, n, []byte(readFile(t, filepath.Join(repoRoot, "samples", ed, "good", n))))
				}
				bad := sampleNames(t, ed, "bad")[0]
				rem.put(t, bad, []byte(readFile(t, filepath.Join(repoRoot, "samples", ed, "bad", bad))))
				waitFor(t, 60*time.Second, "the files in processed/ and error/", func() bool {
					got := rem.list(t, "processed")
					for _, n := range good {
						if !has(got, n) {
							return false
						}
					}
					return has(rem.list(t, "error"), bad)
				})
				for _, n := range good {
					var rp string
					for _, f := range rem.list(t, "processed") {
						if path.Base(f) == stem(n)+".report.csv" {
							rp = "processed/" + f
						}
					}
					if rp == "" {
						t.Fatalf("no report of %s in processed/", n)
					}
					if data := rem.read(t, rp); !bytes.Contains(data, []byte("created")) {
						t.Errorf("report of %s shows nothing created:\n%s", n, data)
					}
				}
				if !has(rem.list(t, "error"), stem(bad)+".report.csv") {
					t.Errorf("no report of %s in error/: %q", bad, rem.list(t, "error"))
				}
				p.stopOK(t, "run")
			})
		}
	}
}

// dependencyOrder sorts sample names as a legacy system should drop them:
// suppliers, SKUs, packagings, receptions, orders.
func dependencyOrder(names []string) []string {
	rank := func(n string) int {
		for i, p := range []string{"SUPPLIERS", "CONNECTIONS", "SKU", "VARIANTS", "PACKAGINGS", "RECEPTIONS", "PURCHASE_ORDERS", "ORDERS", "SALES_ORDERS"} {
			if strings.HasPrefix(n, p+"_") {
				return i
			}
		}
		return 99
	}
	out := append([]string(nil), names...)
	sort.SliceStable(out, func(i, j int) bool { return rank(out[i]) < rank(out[j]) })
	return out
}

// TestSFTPOneConnectionPerUser: on a server that allows each user one
// connection, an inbox and an outbox on the same account work together
// under `filebridge run`, and `check` passes: they share one connection.
func TestSFTPOneConnectionPerUser(t *testing.T) {
	t.Parallel()
	srv := sftptest.NewServerConfig(t, sftptest.Config{OneConnectionPerUser: true})
	c := srv.Client(t)
	for _, d := range []string{"/edi/in", "/edi/out"} {
		if err := c.MkdirAll(d); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	s := startSim(t, "A")
	pw := filepath.Join(dir, "sftp-password")
	mustWrite(t, pw, srv.Password)
	extra := "password_file = \"" + pw + "\"\nknown_hosts = \"" + srv.KnownHostsFile + "\""
	cfg := runConfig(t, dir, s, "", inboxSpec{name: "erp", url: srv.URL("/edi/in"), extra: extra})
	mustWrite(t, cfg, readFile(t, cfg)+fmt.Sprintf(
		"\n[[outboxes]]\nname = \"out\"\nportal = \"main\"\nurl = %q\n%s\n\n  [[outboxes.exports]]\n  type = \"stock\"\n  schedule = \"@every 1s\"\n  filename = \"{type}_{seq}.csv\"\n  write_empty = true\n",
		srv.URL("/edi/out"), extra))

	out, code := runCmd(t, 60*time.Second, "check", "--config", cfg)
	if code != 0 || !strings.Contains(out, "ok   inbox erp: sftp://") || !strings.Contains(out, "ok   outbox out: sftp://") {
		t.Fatalf("check: exit %d, want 0 and both folders ok:\n%s", code, out)
	}

	p := startEnv(t, "run", nil, "run", "--config", cfg)
	rem := sftpRemote{c: c, root: "/edi/in"}
	name := "SUPPLIERS_20260302.csv"
	rem.put(t, name, []byte(readFile(t, filepath.Join(repoRoot, "samples", "A", "good", name))))
	waitFor(t, 60*time.Second, "the file in processed/ and an export in the outbox", func() bool {
		exports, err := c.ReadDir("/edi/out")
		return has(rem.list(t, "processed"), name) && err == nil && len(exports) > 0
	})
	p.stopOK(t, "run")
}
