package inbox_test

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/pkg/sftp"

	"filebridge/internal/folder/sftptest"
	"filebridge/internal/journal"
	"filebridge/internal/portalsim"
)

// TestSFTPInbox runs an inbox on an SFTP server (in process, strict
// renames): discover, settle, claim, submit, report and move all go
// through the SFTP folder, with the inbox's configured credentials and
// known_hosts.
func TestSFTPInbox(t *testing.T) {
	srv := sftptest.NewServer(t)
	e := newEnv(t, envOpts{sftp: srv, settle: true, inbox: `settle = "100ms"`})
	c := srv.Client(t)
	sftptest.WriteFile(t, c, "/in/SUPPLIERS.csv", []byte(suppliersA))
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
	if n := e.sim.Count(portalsim.Connections, "SUP-B"); n != 1 {
		t.Errorf("SUP-B exists %d times", n)
	}
}

// requestCounter counts the SFTP requests a server answers, by method
// ("Get", "Put", "Rename", "Stat", ...), and the downloads by path.
type requestCounter struct {
	get sftp.FileReader
	put sftp.FileWriter
	cmd sftp.FileCmder
	ls  sftp.FileLister

	mu        sync.Mutex
	methods   map[string]int
	downloads map[string]int   // opens for reading, by path
	read      map[string]int64 // bytes read, by path
	reads     map[string]int   // read requests, by path
}

func countRequests(t *testing.T) (*sftptest.Server, *requestCounter) {
	c := &requestCounter{methods: map[string]int{}, downloads: map[string]int{}, read: map[string]int64{}, reads: map[string]int{}}
	srv := sftptest.NewServerConfig(t, sftptest.Config{Handlers: func(h sftp.Handlers) sftp.Handlers {
		c.get, c.put, c.cmd, c.ls = h.FileGet, h.FilePut, h.FileCmd, h.FileList
		return sftp.Handlers{FileGet: c, FilePut: c, FileCmd: c, FileList: c}
	}})
	return srv, c
}

func (c *requestCounter) add(r *sftp.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.methods[r.Method]++
	if r.Method == "Get" {
		c.downloads[r.Filepath]++
	}
}

func (c *requestCounter) Fileread(r *sftp.Request) (io.ReaderAt, error) {
	c.add(r)
	ra, err := c.get.Fileread(r)
	if err != nil {
		return nil, err
	}
	return countedReader{ra, c, r.Filepath}, nil
}

// countedReader counts the bytes read of a file.
type countedReader struct {
	io.ReaderAt
	c    *requestCounter
	path string
}

func (r countedReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := r.ReaderAt.ReadAt(p, off)
	r.c.mu.Lock()
	r.c.read[r.path] += int64(n)
	r.c.reads[r.path]++
	r.c.mu.Unlock()
	return n, err
}

func (c *requestCounter) Filewrite(r *sftp.Request) (io.WriterAt, error) {
	c.add(r)
	return c.put.Filewrite(r)
}

func (c *requestCounter) Filecmd(r *sftp.Request) error {
	c.add(r)
	return c.cmd.Filecmd(r)
}

func (c *requestCounter) Filelist(r *sftp.Request) (sftp.ListerAt, error) {
	c.add(r)
	return c.ls.Filelist(r)
}

// TestSFTPRequestsPerFile: a round of small files on an SFTP inbox
// downloads each file once, by its claim (which hashes it and reads its
// type; processing and the report use that copy), and makes at most 10
// requests a file in all (claim, read, report, move and the checks that
// no name is taken; it made 15 before), counted on the server.
func TestSFTPRequestsPerFile(t *testing.T) {
	srv, reqs := countRequests(t)
	e := newEnv(t, envOpts{sftp: srv, inbox: "file_concurrency = 4"})
	c := srv.Client(t)
	// A file of 60 suppliers, about 4 KB like an ERP's one-order file,
	// is read in one request.
	drop := func(name string) {
		var b strings.Builder
		b.WriteString("code,name,relationship\n")
		for i := range 60 {
			fmt.Fprintf(&b, "%s-%02d,Supplier %02d of the file %s,Manufacturer\n", strings.TrimSuffix(name, ".csv"), i, i, name)
		}
		sftptest.WriteFile(t, c, "/in/"+name, []byte(b.String()))
	}
	drop("SUPPLIERS_FIRST.csv") // the day's first file makes processed/YYYY/MM/DD/
	if rr := e.runOnce(); len(rr.Files) != 1 {
		t.Fatalf("first round: %d files, want 1", len(rr.Files))
	}
	const n = 20
	for i := range n {
		drop(fmt.Sprintf("SUPPLIERS_%02d.csv", i))
	}
	reqs.mu.Lock()
	clear(reqs.methods)
	clear(reqs.reads)
	reqs.mu.Unlock()
	rr := e.runOnce()
	if len(rr.Files) != n {
		t.Fatalf("%d files in the round, want %d", len(rr.Files), n)
	}
	for _, f := range rr.Files {
		if f.State != journal.FileDone {
			t.Errorf("%s: %s: %s", f.Name, f.State, f.Message)
		}
	}
	reqs.mu.Lock()
	defer reqs.mu.Unlock()
	for i := range n {
		p := fmt.Sprintf("/in/processing/SUPPLIERS_%02d.csv", i)
		if got := reqs.downloads[p]; got != 1 {
			t.Errorf("%s downloaded %d times, want once", p, got)
		}
		// The size Open found is read at once: no request for the end.
		if got := reqs.reads[p]; got != 1 {
			t.Errorf("%s read in %d requests, want 1", p, got)
		}
	}
	// Each method is one request (a Get or a Put opens and closes the
	// file), plus each read; the round's listings are not a file's.
	reads := 0
	for _, k := range reqs.reads {
		reads += k
	}
	all := reads
	for m, k := range reqs.methods {
		if m != "List" {
			all += k
		}
	}
	t.Logf("%d requests for %d files (%.1f a file): %v and %d reads", all, n, float64(all)/n, reqs.methods, reads)
	if all > 9*n {
		t.Errorf("%d requests for %d files (%.1f a file), want at most 9 a file: %v and %d reads", all, n, float64(all)/n, reqs.methods, reads)
	}
}
