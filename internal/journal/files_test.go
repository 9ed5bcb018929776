package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func TestClaimFileAndRead(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		t0 := time.Date(2026, 11, 21, 8, 0, 0, 123456789, time.UTC)
		d, _ := openAt(t, t0)
		claimedAt := time.Date(2026, 11, 21, 9, 0, 0, 987654321, time.FixedZone("CET", 3600))

		tests := []struct {
			name    string
			in      File
			want    File // ID filled in after the claim
			wantErr bool
		}{
			{
				name: "defaults",
				in:   File{Inbox: "erp", Name: "ORDERS_1.csv", Path: "processing/ORDERS_1.csv", Size: 42, SHA256: "abc"},
				want: File{Inbox: "erp", Name: "ORDERS_1.csv", Path: "processing/ORDERS_1.csv", Size: 42, SHA256: "abc",
					State: FileClaimed, ClaimedAt: t0, UpdatedAt: t0},
			},
			{
				name: "every field",
				in: File{ID: 999, Inbox: "erp", Name: "SKU.xlsx", Path: "processing/SKU.xlsx", Size: 7, SHA256: "def",
					DocType: "skus", State: FileDuplicate, Rows: 3, DocsTotal: 2, DocsOK: 1, DocsFailed: 1,
					ReportPath: "r", FinalPath: "f", Message: "m", ClaimedAt: claimedAt, UpdatedAt: t0.Add(time.Hour)},
				want: File{Inbox: "erp", Name: "SKU.xlsx", Path: "processing/SKU.xlsx", Size: 7, SHA256: "def",
					DocType: "skus", State: FileDuplicate, Rows: 3, DocsTotal: 2, DocsOK: 1, DocsFailed: 1,
					ReportPath: "r", FinalPath: "f", Message: "m", ClaimedAt: claimedAt.UTC(), UpdatedAt: t0},
			},
			{name: "no inbox", in: File{Name: "x.csv"}, wantErr: true},
			{name: "no name", in: File{Inbox: "erp"}, wantErr: true},
			{name: "bad state", in: File{Inbox: "erp", Name: "x.csv", State: "lost"}, wantErr: true},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				id, err := d.ClaimFile(t.Context(), tt.in)
				if (err != nil) != tt.wantErr {
					t.Fatalf("ClaimFile: err = %v, wantErr %v", err, tt.wantErr)
				}
				if tt.wantErr {
					return
				}
				got, err := d.File(t.Context(), id)
				if err != nil {
					t.Fatal(err)
				}
				tt.want.ID = id
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("File(%d)\n got %+v\nwant %+v", id, got, tt.want)
				}
			})
		}
		t.Run("unknown id", func(t *testing.T) {
			if _, err := d.File(t.Context(), 12345); !errors.Is(err, ErrNotFound) {
				t.Errorf("err = %v, want ErrNotFound", err)
			}
		})
	})
}

func TestUpdateFile(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		d, clock := openAt(t, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		id, err := d.ClaimFile(t.Context(), File{Inbox: "erp", Name: "O.csv", Path: "processing/O.csv"})
		if err != nil {
			t.Fatal(err)
		}
		orig, err := d.File(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		later := time.Date(2026, 1, 1, 0, 5, 0, 1, time.UTC)
		clock.set(later)

		tests := []struct {
			name    string
			change  func(f *File)
			wantErr error
		}{
			{"submitting", func(f *File) { f.State = FileSubmitting; f.DocType = "orders"; f.Rows = 10; f.DocsTotal = 4 }, nil},
			{"planned in place", func(f *File) {
				f.FinalPath, f.ReportPath, f.Message = "processed/2026/01/01/O.csv", "processed/2026/01/01/O.csv.report.csv", "planned"
			}, nil},
			{"moved while open", func(f *File) { f.Path, f.Message = "processing/O.1.csv", "moved" }, nil},
			{"unknown open id", func(f *File) { f.ID = 4242 }, ErrNotFound},
			{"done", func(f *File) {
				f.State, f.DocsOK, f.DocsFailed = FileDone, 3, 1
				f.Path, f.FinalPath, f.ReportPath = "processed/2026/01/01/O.csv", "processed/2026/01/01/O.csv", "processed/2026/01/01/O.csv.report.csv"
				f.Message = "1 document failed"
			}, nil},
			{"immutable fields ignored", func(f *File) {
				f.Inbox, f.Name, f.ClaimedAt, f.Size, f.SHA256 = "other", "other.csv", later, 99, "0ther"
			}, nil},
			{"bad state", func(f *File) { f.State = "??" }, errors.New("any")},
			{"unknown id", func(f *File) { f.ID = 4242 }, ErrNotFound},
		}
		want := orig
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				f := want
				tt.change(&f)
				err := d.UpdateFile(t.Context(), f)
				if tt.wantErr != nil {
					if err == nil || (tt.wantErr == ErrNotFound && !errors.Is(err, ErrNotFound)) {
						t.Fatalf("UpdateFile: err = %v, want %v", err, tt.wantErr)
					}
					return
				}
				if err != nil {
					t.Fatalf("UpdateFile: %v", err)
				}
				got, err := d.File(t.Context(), id)
				if err != nil {
					t.Fatal(err)
				}
				f.Inbox, f.Name, f.ClaimedAt, f.UpdatedAt = orig.Inbox, orig.Name, orig.ClaimedAt, later
				f.Size, f.SHA256 = orig.Size, orig.SHA256
				if !reflect.DeepEqual(got, f) {
					t.Errorf("after update\n got %+v\nwant %+v", got, f)
				}
				want = got
			})
		}
	})
}

func TestFileQueries(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		d := openTest(t)
		ctx := t.Context()
		type claim struct {
			inbox, name, sha string
			state            FileState
		}
		claims := []claim{
			{"erp", "1.csv", "h1", FileDone},
			{"erp", "2.csv", "h2", FileClaimed},
			{"erp", "3.csv", "h1", FileDone},
			{"erp", "4.csv", "h3", FileFailed},
			{"shop", "5.csv", "h1", FileSubmitting},
			{"erp", "6.csv", "h3", FileSubmitting},
			{"erp", "7.csv", "h4", FileDuplicate},
		}
		ids := map[string]int64{}
		for _, c := range claims {
			ids[c.name] = claimFile(t, d, File{Inbox: c.inbox, Name: c.name, SHA256: c.sha, State: c.state})
		}
		t.Run("OpenFiles", func(t *testing.T) {
			tests := []struct {
				inbox string
				want  []string
			}{
				{"erp", []string{"2.csv", "6.csv"}},
				{"shop", []string{"5.csv"}},
				{"", []string{"2.csv", "5.csv", "6.csv"}},
				{"none", nil},
			}
			for _, tt := range tests {
				t.Run(tt.inbox, func(t *testing.T) {
					fs, err := d.OpenFiles(ctx, tt.inbox)
					wantNames(t, "OpenFiles", fs, err, tt.want)
				})
			}
		})

		t.Run("ProcessedHash", func(t *testing.T) {
			tests := []struct {
				inbox, sha string
				want       string // name, "" for not found
			}{
				{"erp", "h1", "3.csv"}, // the most recent done file
				{"shop", "h1", ""},     // only submitting there
				{"erp", "h2", ""},      // claimed, not done
				{"erp", "h3", ""},      // failed and submitting
				{"erp", "h4", ""},      // duplicate does not count
				{"erp", "nope", ""},
			}
			for _, tt := range tests {
				t.Run(tt.inbox+"/"+tt.sha, func(t *testing.T) {
					f, ok, err := d.ProcessedHash(ctx, tt.inbox, "", tt.sha)
					if err != nil {
						t.Fatal(err)
					}
					if ok != (tt.want != "") || f.Name != tt.want {
						t.Errorf("got %q, %v; want %q", f.Name, ok, tt.want)
					}
				})
			}
		})

		t.Run("RecentFiles", func(t *testing.T) {
			tests := []struct {
				inbox string
				limit int
				want  []string
			}{
				{"erp", 2, []string{"7.csv", "6.csv"}},
				{"erp", 0, []string{"7.csv", "6.csv", "4.csv", "3.csv", "2.csv", "1.csv"}},
				{"", 3, []string{"7.csv", "6.csv", "5.csv"}},
				{"shop", 10, []string{"5.csv"}},
				{"none", 10, nil},
			}
			for _, tt := range tests {
				t.Run(tt.inbox, func(t *testing.T) {
					fs, err := d.RecentFiles(ctx, tt.inbox, tt.limit)
					wantNames(t, "RecentFiles", fs, err, tt.want)
				})
			}
		})

		t.Run("FileStates", func(t *testing.T) {
			tests := []struct {
				inbox string
				want  map[FileState]int
			}{
				{"erp", map[FileState]int{FileDone: 2, FileClaimed: 1, FileFailed: 1, FileSubmitting: 1, FileDuplicate: 1}},
				{"", map[FileState]int{FileDone: 2, FileClaimed: 1, FileFailed: 1, FileSubmitting: 2, FileDuplicate: 1}},
				{"none", map[FileState]int{}},
			}
			for _, tt := range tests {
				t.Run(tt.inbox, func(t *testing.T) {
					got, err := d.FileStates(ctx, tt.inbox)
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(got, tt.want) {
						t.Errorf("got %v, want %v", got, tt.want)
					}
				})
			}
		})
	})
}

// TestPrune deletes the history before the cutoff and keeps what is
// still worked on: files in progress, open failures, a failure resolved
// after the cutoff, and the original of a replay still requested or kept;
// in batches of 2 as well, so that kept files end batches.
func TestPrune(t *testing.T) {
	for _, batch := range []int{pruneBatch, 2} {
		t.Run(fmt.Sprintf("batch %d", batch), func(t *testing.T) {
			defer func(old int) { pruneBatch = old }(pruneBatch)
			pruneBatch = batch
			forBackends(t, testPrune)
		})
	}
}

// testPrune is TestPrune on one backend.
func testPrune(t *testing.T) {
	d, clock := openAt(t, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	ctx := t.Context()
	claim := func(name string, state FileState) int64 {
		t.Helper()
		id, err := d.ClaimFile(ctx, File{Inbox: "erp", Name: name, State: state})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	ack := func(id int64) {
		t.Helper()
		if _, err := d.Acknowledge(ctx, id, "ana", "entered by phone"); err != nil {
			t.Fatal(err)
		}
	}
	// replay records a replay of original put back as name; the
	// claim of that name (state) links to it unless state is "".
	replay := func(original int64, name string, state FileState) int64 {
		t.Helper()
		if _, err := d.RequestReplay(ctx, Replay{Inbox: "erp", Name: name, OriginalID: original, By: "cli"}); err != nil {
			t.Fatal(err)
		}
		if state == "" {
			return 0
		}
		id := claim(name, state)
		if _, ok, err := d.LinkReplay(ctx, File{ID: id, Inbox: "erp", Name: name}); err != nil || !ok {
			t.Fatalf("LinkReplay = %v, %v", ok, err)
		}
		return id
	}
	oldDone := claim("old-done", FileDone)
	oldOpen := claim("old-open", FileClaimed)
	openFailure := claim("open-failure", FileFailed)
	resolved := claim("resolved", FileFailed)
	ack(resolved)
	resolvedLate := claim("resolved-late", FileFailed)
	if err := d.AddDocuments(ctx, oldDone, []Document{{Key: "A"}}); err != nil {
		t.Fatal(err)
	}
	requested := claim("requested", FileFailed)
	replay(requested, "requested.1", "")
	replayedOld := claim("replayed-old", FileDone)
	replayOld := replay(replayedOld, "replayed-old.1", FileDone)
	replayedNew := claim("replayed-new", FileDone)
	replayFailed := replay(openFailure, "open-failure.1", FileFailed)
	ack(replayFailed)
	for range 3 {
		oldRun, _ := d.StartRun(ctx, "o", "stock")
		if err := d.FinishRun(ctx, ExportRun{ID: oldRun}); err != nil {
			t.Fatal(err)
		}
	}
	unfinished, _ := d.StartRun(ctx, "o", "stock")
	clock.set(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC))
	newDone := claim("new-done", FileDone)
	ack(resolvedLate)
	replayNew := replay(replayedNew, "replayed-new.1", FileDone)

	n, err := d.Prune(ctx, time.Date(2026, 1, 15, 0, 0, 0, 0, time.UTC))
	if err != nil || n != 5 {
		t.Errorf("Prune = %d, %v; want 5", n, err)
	}
	tests := []struct {
		name string
		id   int64
		want bool
	}{
		{"done before the cutoff", oldDone, false},
		{"claimed", oldOpen, true},
		{"open failure", openFailure, true},
		{"failure resolved before the cutoff", resolved, false},
		{"failure resolved after the cutoff", resolvedLate, true},
		{"original of a replay requested", requested, true},
		{"original of a pruned replay", replayedOld, false},
		{"replay before the cutoff", replayOld, false},
		{"original of a kept replay", replayedNew, true},
		{"replay after the cutoff", replayNew, true},
		{"resolved replay of an open failure", replayFailed, false},
		{"done after the cutoff", newDone, true},
	}
	for _, tt := range tests {
		_, err := d.File(ctx, tt.id)
		if got := err == nil; got != tt.want {
			t.Errorf("%s (file %d): kept = %v, want %v (%v)", tt.name, tt.id, got, tt.want, err)
		}
	}
	docs, err := d.Documents(ctx, oldDone)
	if err != nil || len(docs) != 0 {
		t.Errorf("documents of a pruned file: %v, %v", docs, err)
	}
	if r, ok, err := d.ReplayOf(ctx, replayNew); err != nil || !ok || r.OriginalID != replayedNew {
		t.Errorf("ReplayOf(kept replay) = %+v, %v, %v; want its original %d", r, ok, err, replayedNew)
	}
	// The pruned replay's request goes with it: were it left unlinked,
	// the next file of that name would be taken for the replay.
	if rs, err := d.ReplaysOf(ctx, openFailure); err != nil || len(rs) != 0 {
		t.Errorf("replays of the open failure after its replay was pruned = %+v, %v; want none", rs, err)
	}
	if rs, err := d.ReplaysOf(ctx, requested); err != nil || len(rs) != 1 || rs[0].ReplayID != 0 {
		t.Errorf("replays of the requested original = %+v, %v; want the request waiting", rs, err)
	}
	runs, err := d.RecentRuns(ctx, "", "", 0)
	if err != nil || len(runs) != 1 || runs[0].ID != unfinished {
		t.Errorf("runs after prune = %+v, %v; want only the unfinished one", runs, err)
	}
}

// fileNames lists the names of files, in order.
func fileNames(fs []File) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Name)
	}
	return out
}

// wantNames fails unless call (named for the messages) returned no error
// and files named want, in order.
func wantNames(t *testing.T, call string, fs []File, err error, want []string) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if got := fileNames(fs); !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %v, want %v", call, got, want)
	}
}

func TestProcessedHashPerPortal(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		d := openTest(t)
		ctx := t.Context()
		for _, f := range []File{
			{Inbox: "erp", Name: "sandbox.csv", SHA256: "h", Portal: "https://sandbox/api company 42", State: FileDone},
			{Inbox: "erp", Name: "old.csv", SHA256: "h", State: FileDone}, // recorded before portals were told apart
		} {
			if _, err := d.ClaimFile(ctx, f); err != nil {
				t.Fatal(err)
			}
		}
		tests := []struct {
			portal string
			want   string
		}{
			{"https://sandbox/api company 42", "sandbox.csv"},
			{"https://production/api company 42", ""},
			{"https://sandbox/api company 43", ""},
		}
		for _, tt := range tests {
			t.Run(tt.portal, func(t *testing.T) {
				f, ok, err := d.ProcessedHash(ctx, "erp", tt.portal, "h")
				if err != nil {
					t.Fatal(err)
				}
				if ok != (tt.want != "") || f.Name != tt.want {
					t.Errorf("got %q, %v; want %q", f.Name, ok, tt.want)
				}
			})
		}
	})
}

func TestHoldRoundTrip(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		d := openTest(t)
		ctx := t.Context()
		id := claimFile(t, d, File{Inbox: "erp", Name: "ORDERS.csv", Portal: "p"})
		f, err := d.File(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if !f.HeldSince.IsZero() || f.WaitingFor != "" || f.Portal != "p" {
			t.Fatalf("a new file: held since %v waiting for %q, portal %q", f.HeldSince, f.WaitingFor, f.Portal)
		}
		since := time.Date(2026, 3, 16, 7, 0, 0, 0, time.UTC)
		f.State, f.HeldSince, f.WaitingFor = FileSubmitting, since, "SKU X-1"
		if err := d.UpdateFile(ctx, f); err != nil {
			t.Fatal(err)
		}
		got, err := d.File(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if !got.HeldSince.Equal(since) || got.WaitingFor != "SKU X-1" {
			t.Errorf("got held since %v waiting for %q, want %v and %q", got.HeldSince, got.WaitingFor, since, "SKU X-1")
		}
		got.HeldSince, got.WaitingFor = time.Time{}, ""
		if err := d.UpdateFile(ctx, got); err != nil {
			t.Fatal(err)
		}
		if again, _ := d.File(ctx, id); !again.HeldSince.IsZero() || again.WaitingFor != "" {
			t.Errorf("the hold was not cleared: %v %q", again.HeldSince, again.WaitingFor)
		}
	})
}

// TestUpdateFilePages: an update of an open file leaves out of its
// statement the state and the path it keeps, so that the indexes on them
// are not rewritten: recording its decoding (claimed to submitting, at
// the same path) writes its row and the three indexes on its state, four
// pages of the write-ahead log where setting the path too wrote five; its
// plan (same state and path) writes its row alone, one page where five.
// Neither runs a statement more, and a file moved meanwhile has its new
// path stored.
func TestUpdateFilePages(t *testing.T) {
	d, err := Open(t.Context(), filepath.Join(t.TempDir(), "j.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	ctx := t.Context()
	var pageSize int64
	if err := d.r.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&pageSize); err != nil {
		t.Fatal(err)
	}
	walSize := func() int64 {
		st, err := os.Stat(d.Path() + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()
	}
	id, err := d.ClaimFile(ctx, File{Inbox: "erp", Name: "O.csv", Path: "processing/O.csv"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := d.File(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		change func(f *File)
		write  func(f File) error
		pages  int64
		stmts  int64 // EndDocuments counts its documents' insert, prepared
	}{
		{"decoding recorded", func(f *File) { f.State, f.Rows, f.DocsTotal = FileSubmitting, 1, 1 },
			func(f File) error { return d.EndDocuments(ctx, f, `{"Rows":1}`, nil) }, 4, 2},
		{"plan", func(f *File) {
			f.FinalPath, f.ReportPath = "processed/2026/01/01/O.csv", "processed/2026/01/01/O.csv.report.csv"
		},
			func(f File) error { return d.UpdateFile(ctx, f) }, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.change(&f)
			before, stmts := walSize(), d.WriteStats().Statements
			if err := tt.write(f); err != nil {
				t.Fatal(err)
			}
			const frameHeader = 24 // each page in the log has a header of its own
			if pages := (walSize() - before) / (pageSize + frameHeader); pages != tt.pages {
				t.Errorf("the update wrote %d pages to the log, want %d", pages, tt.pages)
			}
			if n := d.WriteStats().Statements - stmts; n != tt.stmts {
				t.Errorf("the update ran %d statements, want %d", n, tt.stmts)
			}
			got, err := d.File(ctx, id)
			if err != nil || got.FinalPath != f.FinalPath || got.ReportPath != f.ReportPath || got.State != f.State || got.Rows != f.Rows {
				t.Errorf("after the update: %+v, %v", got, err)
			}
		})
	}
	t.Run("moved meanwhile", func(t *testing.T) {
		f.Path = "processing/O.1.csv"
		if err := d.EndDocuments(ctx, f, "", nil); err != nil {
			t.Fatal(err)
		}
		if got, err := d.File(ctx, id); err != nil || got.Path != f.Path {
			t.Errorf("after the move: %+v, %v", got, err)
		}
	})
}
