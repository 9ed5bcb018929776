package inbox_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsnotify/fsnotify"

	"filebridge/internal/journal"
	"filebridge/internal/portal"
)

// TestQuarantineAfterTwoStops: a file whose reading two processes started
// and never ended (they died reading it: out of memory, kill -9) is not
// read a third time: it goes to error/ unread with a report saying it
// stopped filebridge, whether it waits in the inbox (its type read from
// its header) or in processing/ with documents already created; a file
// whose reading one process started (cut once by a kill) is read and
// processed as before. Either way the ledger is empty afterwards, and no
// document is created twice. The starts are counted by another Inbox (the
// dead process): the ledger it left is read at the first use.
func TestQuarantineAfterTwoStops(t *testing.T) {
	const stopped = "this file stopped filebridge while it was being read: moved to error/"
	tests := []struct {
		name       string
		stops      int
		typ        string // the route's type ("": from the header row)
		processing bool   // in processing/ with an open journal row, SUP-Q1 sending, the others pending
		want       journal.FileState
	}{
		{"root, never stopped", 0, "", false, journal.FileDone},
		{"root, cut once", 1, "", false, journal.FileDone},
		{"root, stopped twice", 2, "", false, journal.FileFailed},
		{"root, route type, cut once", 1, "suppliers", false, journal.FileDone},
		{"root, route type, stopped twice", 2, "suppliers", false, journal.FileFailed},
		{"processing, cut once", 1, "", true, journal.FileDone},
		{"processing, stopped twice", 2, "", true, journal.FileFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			e := newEnv(t, envOpts{routes: route("SUPPLIERS*", tt.typ)})
			content := suppliersFile("SUP-Q", 4)
			const name = "SUPPLIERS_Q.csv"
			if tt.processing {
				e.drop("processing/"+name, content)
				id, err := e.j.ClaimFile(ctx, journal.File{Inbox: "erp", Name: name, Path: "processing/" + name,
					Size: int64(len(content)), DocType: "suppliers", State: journal.FileSubmitting})
				if err != nil {
					t.Fatal(err)
				}
				var docs []journal.Document
				for _, k := range []string{"SUP-Q1", "SUP-Q2", "SUP-Q3", "SUP-Q4"} {
					docs = append(docs, journal.Document{Key: k, Rows: strings.TrimPrefix(k, "SUP-Q")})
				}
				if err := e.j.AddDocuments(ctx, id, docs); err != nil {
					t.Fatal(err)
				}
				if err := e.j.StartAttempt(ctx, id, "SUP-Q1"); err != nil { // sent, its answer lost
					t.Fatal(err)
				}
			} else {
				e.drop(name, content)
			}
			dead := e.newInbox(e.client, nil)
			for range tt.stops {
				if err := dead.StartReading(name, int64(len(content))); err != nil {
					t.Fatal(err)
				}
			}
			rr := e.runOnce()
			res := result(t, rr, name)
			if res.State != tt.want {
				t.Fatalf("state %s (%q), want %s", res.State, res.Message, tt.want)
			}
			if tt.want == journal.FileFailed {
				if !strings.Contains(res.Message, stopped) || !strings.Contains(e.read("error/SUPPLIERS_Q.report.csv"), stopped) {
					t.Errorf("message %q, report:\n%s\nwant %q", res.Message, e.read("error/SUPPLIERS_Q.report.csv"), stopped)
				}
				if !tt.processing && res.DocType != "" {
					t.Errorf("type %q, want none: a file that stopped filebridge is claimed unread, as before", res.DocType)
				}
				if !e.exists("error/" + name) {
					t.Errorf("error/ holds %q", e.ls("error"))
				}
				if n := e.sim.Stats().Counts["connections"]; n != 0 {
					t.Errorf("%d suppliers created from a quarantined file", n)
				}
			} else {
				e.onceEach(portal.Connections, "SUP-Q", 4)
			}
			if st := e.sim.Stats(); st.RepeatedCreates != 0 {
				t.Errorf("%d repeated creates", st.RepeatedCreates)
			}
			if n := e.in.ReadingsLeft(); n != 0 {
				t.Errorf("the reading ledger holds %d entries, want none", n)
			}
		})
	}
}

// TestReadingLedgerCreatesNoFilePerFile: the reading ledger is rewritten
// in place, not a file created and removed for each reading (two a file:
// its header at the claim, then its decoding), which on ext4 without a
// journal made each new file slower the more files went through.
func TestReadingLedgerCreatesNoFilePerFile(t *testing.T) {
	for _, files := range []int{1, 20} {
		t.Run(fmt.Sprintf("%d files", files), func(t *testing.T) {
			e := newEnv(t, envOpts{routes: route("SUPPLIERS*", "")}) // type from the header row
			dir := e.cfg.Journal.Path + ".reading"
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			w, err := fsnotify.NewWatcher()
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if err := w.Add(dir); err != nil {
				t.Fatal(err)
			}
			for i := range files {
				e.drop(fmt.Sprintf("SUPPLIERS_%02d.csv", i), suppliersFile(fmt.Sprintf("SUP-%02d-", i), 2))
			}
			if rr := e.runOnce(); len(rr.Files) != files {
				t.Fatalf("%d files processed, want %d", len(rr.Files), files)
			}
			// The marker's own event comes after every event of the round.
			marker := filepath.Join(dir, "marker")
			if err := os.WriteFile(marker, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			created := 0
			for ev := range w.Events {
				if ev.Name == marker {
					break
				}
				if ev.Has(fsnotify.Create) {
					created++
				}
			}
			if created > 1 {
				t.Errorf("reading %d files created %d files in the ledger folder, want at most 1 (the inbox's ledger)", files, created)
			}
			if n := e.in.ReadingsLeft(); n != 0 {
				t.Errorf("the reading ledger holds %d entries, want none", n)
			}
		})
	}
}
