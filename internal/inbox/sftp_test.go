package inbox_test

import (
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/pkg/sftp"

	"filebridge/internal/folder/sftptest"
	"filebridge/internal/journal"
	"filebridge/internal/portal"
)

// TestSFTPInbox runs an inbox on an SFTP server (in process, strict
// renames): discover, settle, claim, submit, report and move all go
// through the SFTP folder, with the inbox's configured credentials and
// known_hosts.
func TestSFTPInbox(t *testing.T) {
	srv := sftptest.NewServer(t)
	e := newEnv(t, envOpts{sftp: srv, settle: true, inbox: `settle = "100ms"`})
	c := srv.Client(t)
	w, err := c.Create("/in/SUPPLIERS.csv")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(w, suppliersA); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r := result(t, e.runOnce(), "SUPPLIERS.csv")
	if r.State != journal.FileDone || r.FinalPath != processed+"/SUPPLIERS.csv" {
		t.Fatalf("state %s, final %s: %s", r.State, r.FinalPath, r.Message)
	}
	for _, p := range []string{"/in/" + r.FinalPath, "/in/" + r.ReportPath} {
		if _, err := c.Stat(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if _, err := c.Stat("/in/SUPPLIERS.csv"); err == nil {
		t.Error("the file is still in the inbox")
	}
	if n := e.sim.Count(portal.Connections, "SUP-B"); n != 1 {
		t.Errorf("SUP-B exists %d times", n)
	}
}

// readCounter counts the downloads of each remote path.
type readCounter struct {
	sftp.FileReader
	mu sync.Mutex
	n  map[string]int
}

func (c *readCounter) Fileread(r *sftp.Request) (io.ReaderAt, error) {
	c.mu.Lock()
	c.n[r.Filepath]++
	c.mu.Unlock()
	return c.FileReader.Fileread(r)
}

// TestSFTPDownloadsOnce: a small file of an SFTP inbox is downloaded once,
// by its claim (which hashes it and reads its type); processing and the
// report use that copy. Counted on the server, per path.
func TestSFTPDownloadsOnce(t *testing.T) {
	reads := &readCounter{n: map[string]int{}}
	srv := sftptest.NewServerConfig(t, sftptest.Config{Handlers: func(h sftp.Handlers) sftp.Handlers {
		reads.FileReader, h.FileGet = h.FileGet, reads
		return h
	}})
	e := newEnv(t, envOpts{sftp: srv, inbox: "file_concurrency = 4"})
	c := srv.Client(t)
	for _, name := range []string{"SUPPLIERS_1.csv", "SUPPLIERS_2.csv"} {
		w, err := c.Create("/in/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(w, strings.ReplaceAll(suppliersA, "SUP-", "S"+name[10:11]+"-")); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	rr := e.runOnce()
	if len(rr.Files) != 2 {
		t.Fatalf("%d files in the round, want 2", len(rr.Files))
	}
	for _, f := range rr.Files {
		if f.State != journal.FileDone {
			t.Errorf("%s: %s: %s", f.Name, f.State, f.Message)
		}
	}
	reads.mu.Lock()
	defer reads.mu.Unlock()
	for _, name := range []string{"SUPPLIERS_1.csv", "SUPPLIERS_2.csv"} {
		if n := reads.n["/in/processing/"+name]; n != 1 {
			t.Errorf("%s downloaded %d times from processing/, want once (all reads: %v)", name, n, reads.n)
		}
	}
}
