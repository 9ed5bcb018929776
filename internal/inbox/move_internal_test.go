package inbox

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pkg/sftp"

	"filebridge/internal/folder"
	"filebridge/internal/folder/sftptest"
	"filebridge/internal/folderurl"
	"filebridge/internal/journal"
)

// TestFreeNames: the first candidate whose name and report name are free
// wins, and its rejected-rows name too when the file failed; a file that
// succeeded writes no rejected rows, so that name is not asked for.
func TestFreeNames(t *testing.T) {
	tests := []struct {
		name         string
		existing     []string
		withRejected bool
		final        string
	}{
		{"empty folder", nil, true, "A.csv"},
		{"file taken", []string{"A.csv"}, false, "A.1.csv"},
		{"report taken", []string{"A.report.csv"}, false, "A.1.csv"},
		{"rejected taken, failed file", []string{"A.rejected.csv"}, true, "A.1.csv"},
		{"rejected taken, file that succeeded", []string{"A.rejected.csv"}, false, "A.csv"},
		{"two taken", []string{"A.csv", "A.report.csv", "A.1.report.csv"}, true, "A.2.csv"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "out"), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, n := range tt.existing {
				if err := os.WriteFile(filepath.Join(dir, "out", n), []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			f := localFolder(t, dir)
			final, report, err := freeNames(t.Context(), f, "out", "A.csv", tt.withRejected)
			if err != nil {
				t.Fatal(err)
			}
			rep, _ := reportNames(filepath.Base(tt.final))
			if final != "out/"+tt.final || report != "out/"+rep {
				t.Errorf("got %s and %s, want out/%s and out/%s", final, report, tt.final, rep)
			}
		})
	}
}

// localFolder opens dir as a local folder, closed when the test ends.
// tempJournal opens a SQLite journal in a folder of its own, closed when
// the test ends.
func tempJournal(t *testing.T) *journal.DB {
	t.Helper()
	j, err := journal.Open(t.Context(), filepath.Join(t.TempDir(), "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = j.Close() })
	return j
}

func localFolder(t *testing.T, dir string) folder.Folder {
	t.Helper()
	loc, err := folderurl.Parse(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	f, err := folder.Open(t.Context(), folder.Options{Location: loc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}

// statRefuser refuses, with a permission error, every Lstat (the look-up
// of a name) of a path under dir, and counts them.
type statRefuser struct {
	sftp.FileLister
	dir     string
	refused atomic.Int32
}

func (s *statRefuser) Lstat(r *sftp.Request) (sftp.ListerAt, error) {
	if strings.HasPrefix(r.Filepath, s.dir+"/") {
		s.refused.Add(1)
		return nil, os.ErrPermission
	}
	return s.FileLister.(sftp.LstatFileLister).Lstat(r)
}

// TestFreeNamesReportsErrors: only "does not exist" makes a name free. A
// refused permission or a server gone away is reported at the first
// look-up with its cause, not taken for a used name until "too many files
// of that name" after 10,000 look-ups; a symbolic link is a used name.
func TestFreeNamesReportsErrors(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, srv *sftptest.Server, refuser *statRefuser)
		want    string // in the error; "" for no error
		final   string
		refused int32
	}{
		{name: "permission refused", setup: func(t *testing.T, _ *sftptest.Server, r *statRefuser) {
			r.dir = "/data/out"
		}, want: "permission denied", refused: 3}, // the names of the first candidate, asked at once
		{name: "server gone", setup: func(t *testing.T, srv *sftptest.Server, _ *statRefuser) {
			srv.Close()
		}, want: "connection refused"},
		{name: "a link takes the name", setup: func(t *testing.T, srv *sftptest.Server, _ *statRefuser) {
			if err := srv.Client(t).Symlink("/data/elsewhere", "/data/out/A.csv"); err != nil {
				t.Fatal(err)
			}
		}, final: "out/A.1.csv"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			refuser := &statRefuser{dir: "/none"}
			srv := sftptest.NewServerConfig(t, sftptest.Config{Handlers: func(h sftp.Handlers) sftp.Handlers {
				refuser.FileLister, h.FileList = h.FileList, refuser
				return h
			}})
			opts := srv.Options("/data")
			opts.Logger = slog.New(slog.DiscardHandler)
			f, err := folder.Open(t.Context(), opts)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = f.Close() })
			if err := f.MkdirAll(t.Context(), "out"); err != nil {
				t.Fatal(err)
			}
			tt.setup(t, srv, refuser)
			final, _, err := freeNames(t.Context(), f, "out", "A.csv", true)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("freeNames: %v", err)
			case tt.want == "" && final != tt.final:
				t.Errorf("got %s, want %s", final, tt.final)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("got %q, %v; want an error saying %q", final, err, tt.want)
			case tt.want != "" && strings.Contains(err.Error(), "too many"):
				t.Errorf("error %q takes the failure for names in use", err)
			}
			if got := refuser.refused.Load(); got != tt.refused {
				t.Errorf("%d look-ups refused, want %d: the first candidate's error ends the search", got, tt.refused)
			}
		})
	}
}

// gate lets calls through once want of them are in flight together (or a
// second passed), recording the most seen at once.
type gate struct {
	want int
	all  chan struct{}

	mu       sync.Mutex
	inflight int
	most     int
}

func newGate(want int) *gate { return &gate{want: want, all: make(chan struct{})} }

// pass waits at the gate; the call it lets through calls done when over.
func (g *gate) pass() (done func()) {
	g.mu.Lock()
	g.inflight++
	g.most = max(g.most, g.inflight)
	if g.inflight == g.want {
		close(g.all)
	}
	g.mu.Unlock()
	select {
	case <-g.all:
	case <-time.After(time.Second):
	}
	return func() {
		g.mu.Lock()
		g.inflight--
		g.mu.Unlock()
	}
}

// gated is a folder whose List and Stat calls wait at their gate (nil: none).
type gated struct {
	folder.Folder
	lists, stats *gate
}

func (g *gated) List(ctx context.Context, dir string) ([]folder.Entry, error) {
	if g.lists != nil {
		defer g.lists.pass()()
	}
	return g.Folder.List(ctx, dir)
}

func (g *gated) Stat(ctx context.Context, name string) (folder.Entry, error) {
	if g.stats != nil {
		defer g.stats.pass()()
	}
	return g.Folder.Stat(ctx, name)
}

// TestFreeNamesAtOnce: the names of a candidate (the file, its report,
// its rejected rows) are asked for at once, so that on SFTP they share a
// round trip instead of taking one each.
func TestFreeNamesAtOnce(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	g := &gated{Folder: localFolder(t, dir), stats: newGate(3)}
	final, report, err := freeNames(t.Context(), g, "out", "A.csv", true)
	if err != nil || final != "out/A.csv" || report != "out/A.report.csv" {
		t.Fatalf("got %q, %q, %v; want out/A.csv and out/A.report.csv", final, report, err)
	}
	if g.stats.most != 3 {
		t.Errorf("%d names asked for at once, want 3", g.stats.most)
	}
}
