package inbox_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pkg/sftp"

	"filebridge/internal/folder"
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
	lists     map[string]int   // listings, by path
	read      map[string]int64 // bytes read, by path
	reads     map[string]int   // read requests, by path
}

func countRequests(t *testing.T) (*sftptest.Server, *requestCounter) {
	c := &requestCounter{methods: map[string]int{}, downloads: map[string]int{}, lists: map[string]int{}, read: map[string]int64{}, reads: map[string]int{}}
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
	switch r.Method {
	case "Get":
		c.downloads[r.Filepath]++
	case "List":
		c.lists[r.Filepath]++
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
// type; processing and the report use that copy), and makes at most 9
// requests a file in all (claim, read, report, move, the checks that no
// name is taken and one look whether the file changed since its claim; it
// made 15 before, then 10 with a look before each claim's read, which the
// listing's attributes now stand for), counted on the server.
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

// TestSFTPOpeningListsRootOnce: the first look of an inbox takes the
// listing of its root that the opening of its folder made (to remove
// the temporary files a stop left) instead of listing the root again: on
// SFTP a thousand files are some fifteen round trips. It listed the root
// twice before.
func TestSFTPOpeningListsRootOnce(t *testing.T) {
	for _, tc := range []struct {
		name  string
		look  func(*env) error
		files int // done by the look
	}{
		{"RunOnce", func(e *env) error { _, err := e.in.RunOnce(t.Context()); return err }, 3},
		{"Look", func(e *env) error { return e.in.Look(t.Context()) }, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, reqs := countRequests(t)
			e := newEnv(t, envOpts{sftp: srv})
			c := srv.Client(t)
			for i := range 3 {
				sftptest.WriteFile(t, c, fmt.Sprintf("/in/SUPPLIERS_%d.csv", i), []byte(suppliersFile(fmt.Sprintf("SUP-L%d", i), 1)))
			}
			// A temporary file a stop left goes at the opening.
			sftptest.WriteFile(t, c, "/in/.SUPPLIERS_9.csv.0123456789ab.part", []byte("code\n"))
			if err := tc.look(e); err != nil {
				t.Fatal(err)
			}
			reqs.mu.Lock()
			lists := reqs.lists["/in"]
			reqs.mu.Unlock()
			if lists != 1 {
				t.Errorf("the root listed %d times, want once", lists)
			}
			if _, err := c.Stat("/in/.SUPPLIERS_9.csv.0123456789ab.part"); err == nil {
				t.Error("the temporary file left by a stop is still there")
			}
			done, err := c.ReadDir("/in/" + processed)
			if err != nil && tc.files > 0 {
				t.Fatal(err)
			}
			if got := len(slices.DeleteFunc(done, func(fi os.FileInfo) bool { return strings.HasSuffix(fi.Name(), ".report.csv") })); got != tc.files {
				t.Errorf("%d files processed, want %d", got, tc.files)
			}
		})
	}
}

// claimGate is a folder whose renames into processing/ (the claims)
// wait until want of them are waiting at once (or their context ends),
// and records the most seen waiting together.
type claimGate struct {
	folder.Folder
	want int

	mu      sync.Mutex
	waiting int
	most    int
	open    chan struct{}
	opened  bool // waiting falls back below want once open, and may reach it again
}

func (g *claimGate) Rename(ctx context.Context, from, to string) error {
	if path.Dir(to) != "processing" {
		return g.Folder.Rename(ctx, from, to)
	}
	g.mu.Lock()
	g.waiting++
	g.most = max(g.most, g.waiting)
	if g.waiting == g.want && !g.opened {
		close(g.open)
		g.opened = true
	}
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.waiting--
		g.mu.Unlock()
	}()
	select {
	case <-g.open:
	case <-ctx.Done():
		return ctx.Err()
	}
	return g.Folder.Rename(ctx, from, to)
}

// TestSFTPSmallClaimsInFlight: an inbox claims small files four times
// file_concurrency at a time, as it then processes them: on a remote
// server a claim is round trips (rename, open, read, close), and with
// file_concurrency = 2 eight claims are on their way at once, counted
// where the inbox renames them into processing/ on the server. A claim
// took a whole place before: two at a time (the round then ended at the
// test's deadline with the other claims waiting).
func TestSFTPSmallClaimsInFlight(t *testing.T) {
	const fc, n = 2, 16
	srv := sftptest.NewServer(t)
	e := newEnv(t, envOpts{sftp: srv, inbox: fmt.Sprintf("file_concurrency = %d", fc)})
	gate := &claimGate{want: 4 * fc, open: make(chan struct{})}
	e.in = e.newInbox(e.client, func(ctx context.Context) (folder.Folder, error) {
		f, err := folder.Open(ctx, e.folder())
		gate.Folder = f
		return gate, err
	})
	c := srv.Client(t)
	for i := range n {
		sftptest.WriteFile(t, c, fmt.Sprintf("/in/SUPPLIERS_%02d.csv", i), []byte(suppliersA))
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	res, err := e.in.RunOnce(ctx)
	gate.mu.Lock()
	most := gate.most
	gate.mu.Unlock()
	if most < 4*fc {
		t.Fatalf("at most %d claims on their way at once, want %d (4 x file_concurrency %d); round: %v", most, 4*fc, fc, err)
	}
	if err != nil {
		t.Fatalf("RunOnce: %v", err)
	}
	if len(res.Files) != n {
		t.Fatalf("%d files in the round, want %d", len(res.Files), n)
	}
	for _, f := range res.Files {
		if f.State != journal.FileDone {
			t.Errorf("%s: %s: %s", f.Name, f.State, f.Message)
		}
	}
}

// TestSFTPOverwritingServerSameName: on a server whose plain rename
// overwrites (MySecureShell), a second file of the same name claimed while
// the first is held in processing/ takes another name there, and the
// first, untouched, goes on once its master data arrives.
func TestSFTPOverwritingServerSameName(t *testing.T) {
	srv := sftptest.NewOverwritingServer(t)
	e := newEnv(t, envOpts{sftp: srv})
	c := srv.Client(t)
	first, err := os.ReadFile(filepath.Join("..", "..", "samples", ordersSample))
	if err != nil {
		t.Fatal(err)
	}
	sftptest.WriteFile(t, c, "/in/ORDERS_20260316.csv", first)
	if r := result(t, e.runOnce(), "ORDERS_20260316.csv"); !r.Held {
		t.Fatalf("first file: %s, held %v: %s; want held for master data", r.State, r.Held, r.Message)
	}
	// The same orders under other numbers.
	second := bytes.ReplaceAll(first, []byte("SO-2026-"), []byte("SO-2027-"))
	sftptest.WriteFile(t, c, "/in/ORDERS_20260316.csv", second)
	rr := e.runOnce()
	if len(rr.Files) != 2 {
		t.Fatalf("%d files in the second round, want 2 (both held): %+v", len(rr.Files), rr)
	}
	if got := sftptest.ReadFile(t, c, "/in/processing/ORDERS_20260316.csv"); !bytes.Equal(got, first) {
		t.Fatalf("the held file in processing/ was replaced by the second of its name")
	}
	if got := sftptest.ReadFile(t, c, "/in/processing/ORDERS_20260316.1.csv"); !bytes.Equal(got, second) {
		t.Errorf("the second file is not in processing/ under the next name")
	}
	for _, s := range []string{"A/good/SUPPLIERS_20260302.csv", "A/good/SKU_20260302.csv", "A/good/SKU_20260310.xlsx", "A/good/RECEPTIONS_20260304.csv"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "samples", s))
		if err != nil {
			t.Fatal(err)
		}
		sftptest.WriteFile(t, c, "/in/"+filepath.Base(s), b)
	}
	rr = e.runOnce()
	var done int
	for _, f := range rr.Files {
		if f.Name == "ORDERS_20260316.csv" && f.State == journal.FileDone {
			done++
		}
	}
	if done != 2 {
		t.Errorf("%d files of the name done once their master data arrived, want 2: %+v", done, rr.Files)
	}
	for _, order := range []string{"SO-2026-10001", "SO-2027-10001"} {
		if n := e.sim.Count(portalsim.SalesOrders, order); n != 1 {
			t.Errorf("order %s created %d times, want once", order, n)
		}
	}
	if n := e.sim.RepeatedCreates(); n != 0 {
		t.Errorf("%d repeated creates, want 0", n)
	}
}
