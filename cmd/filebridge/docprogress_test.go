package main

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"filebridge/internal/journal"
	"filebridge/internal/testkit"
)

// fixedCounts counts 100 documents settled per second of (bubble) time
// out of 1,000, from the first reading on.
func fixedCounts() docCounts {
	var start atomic.Pointer[time.Time]
	return func(context.Context) (int, int, error) {
		now := time.Now()
		start.CompareAndSwap(nil, &now)
		done := int(now.Sub(*start.Load()) / (10 * time.Millisecond))
		return min(done, 1000), 1000, nil
	}
}

// TestDocProgressOnTerminal: a run longer than the delay shows
// done/total, the rate in documents per second and the time left; the
// line is cleared when it stops, and nothing is written before the delay.
func TestDocProgressOnTerminal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out testkit.Buffer
		stop := startDocProgress(t.Context(), &out, fixedCounts())
		time.Sleep(docProgressDelay - time.Millisecond)
		if out.String() != "" {
			t.Fatalf("wrote %q before the delay", out.String())
		}
		time.Sleep(3 * time.Second)
		synctest.Wait()
		got := out.String()
		last := got[strings.LastIndex(got, "\r")+1:]
		// e.g. "documents  35% |██████████      | (350/1000, 100 docs/s) [3s:6s]"
		want := regexp.MustCompile(`^documents +\d+% \|.*\| \((\d+)/1000, (\d+) docs/s\) \[\d+s:(\d+)s\]`)
		m := want.FindStringSubmatch(last)
		if m == nil {
			t.Fatalf("progress line %q does not match %s", last, want)
		}
		// Read from 250ms on, last at 3.75s: 350 done, 650 left at 100/s.
		if m[1] != "350" || m[2] != "100" || m[3] != "6" {
			t.Errorf("progress line %q: want 350 done at 100 docs/s, 6s left", last)
		}
		stop()
		if end := out.String(); !strings.HasSuffix(end, "\r") {
			t.Errorf("the line is not cleared at the end: %q", end[len(got):])
		}
	})
}

// TestDocProgressOffTerminal: on a writer that is not a terminal nothing
// is ever written.
func TestDocProgressOffTerminal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out testkit.Buffer
		stop := showDocProgress(t.Context(), newTermLine(&out), fixedCounts())
		time.Sleep(5 * time.Second)
		stop()
		if out.String() != "" {
			t.Errorf("wrote %q to a non-terminal", out.String())
		}
	})
}

// TestJournalDocCounts reads the counts of a file as the inbox records
// them: nothing before the file is claimed and validated, then its final
// documents out of its total.
func TestJournalDocCounts(t *testing.T) {
	ctx := t.Context()
	db, err := journal.Open(ctx, filepath.Join(t.TempDir(), "j.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	count := journalDocCounts(db, "erp", "S.csv")
	check := func(wantDone, wantTotal int) {
		t.Helper()
		done, total, err := count(ctx)
		if err != nil || done != wantDone || total != wantTotal {
			t.Fatalf("counts %d/%d (%v), want %d/%d", done, total, err, wantDone, wantTotal)
		}
	}
	check(0, 0)
	if _, err := db.ClaimFile(ctx, journal.File{Inbox: "erp", Name: "OTHER.csv", Path: "processing/OTHER.csv"}); err != nil {
		t.Fatal(err)
	}
	id, err := db.ClaimFile(ctx, journal.File{Inbox: "erp", Name: "S.csv", Path: "processing/S.csv"})
	if err != nil {
		t.Fatal(err)
	}
	check(0, 0)
	if err := db.UpdateFile(ctx, journal.File{ID: id, Path: "processing/S.csv", State: journal.FileSubmitting, DocsTotal: 3}); err != nil {
		t.Fatal(err)
	}
	if err := db.AddDocuments(ctx, id, []journal.Document{
		{Key: "A", Rows: "2", Result: journal.ResultInvalid}, {Key: "B", Rows: "3"}, {Key: "C", Rows: "4"},
	}); err != nil {
		t.Fatal(err)
	}
	check(1, 3)
	if err := db.StartAttempt(ctx, id, "B"); err != nil {
		t.Fatal(err)
	}
	check(1, 3)
	if err := db.SetResult(ctx, id, "B", journal.ResultCreated, "7", ""); err != nil {
		t.Fatal(err)
	}
	check(2, 3)
}

// TestProcessNoProgressOffTerminal: `process` writing to files (not a
// terminal) prints its result and logs, never a progress line.
func TestProcessNoProgressOffTerminal(t *testing.T) {
	cfg, inbox := processEnv(t, "demo-token", "")
	var b strings.Builder
	b.WriteString("code,name,relationship\n")
	for i := range 300 {
		fmt.Fprintf(&b, "SUP-%03d,Supplier %d,Manufacturer\n", i, i)
	}
	writeFile(t, filepath.Join(inbox, "SUPPLIERS_P.csv"), b.String(), 0o644)
	out, err := execute(t, newProcessCmd(), true, "--config", cfg, "--inbox", "erp", "SUPPLIERS_P.csv")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if s := out.String(); strings.ContainsAny(s, "\r\x1b") || strings.Contains(s, "docs/s") {
		t.Errorf("progress bytes in non-terminal output: %q", s)
	}
	if !strings.Contains(out.String(), "SUPPLIERS_P.csv") {
		t.Errorf("no result printed: %q", out.String())
	}
}
