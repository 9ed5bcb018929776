package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
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

// TestProgressDisabledOffTerminal: a buffer, a file and /dev/null (a
// character device, not a terminal) get no progress line.
func TestProgressDisabledOffTerminal(t *testing.T) {
	open := func(name string) func(t *testing.T) io.Writer {
		return func(t *testing.T) io.Writer {
			f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = f.Close() })
			return f
		}
	}
	tests := []struct {
		name string
		w    func(t *testing.T) io.Writer
	}{
		{"buffer", func(*testing.T) io.Writer { return new(bytes.Buffer) }},
		{"file", open(filepath.Join(t.TempDir(), "err.log"))},
		{"dev null", open(os.DevNull)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := tt.w(t)
			p := newProgress(w)
			r := strings.NewReader("data")
			if got := p.track("f.csv", r, 10<<20); got != io.ReaderAt(r) {
				t.Error("a non-terminal writer must get the reader unwrapped")
			}
			p.done()
			if b, ok := w.(*bytes.Buffer); ok && b.Len() != 0 {
				t.Errorf("wrote %q", b.String())
			}
		})
	}
}

func TestProgressCountsFurthestOffset(t *testing.T) {
	var buf bytes.Buffer
	p := &progress{w: &buf, enabled: true}
	data := strings.Repeat("x", progressMinSize)
	r := p.track("big.csv", strings.NewReader(data), int64(len(data)))
	c, ok := r.(*countingReaderAt)
	if !ok {
		t.Fatalf("reader not wrapped: %T", r)
	}
	b := make([]byte, 100)
	if _, err := r.ReadAt(b, 1000); err != nil {
		t.Fatal(err)
	}
	if _, err := r.ReadAt(b, 0); err != nil {
		t.Fatal(err)
	}
	if got := c.high.Load(); got != 1100 {
		t.Errorf("furthest offset = %d, want 1100", got)
	}
	p.done()
	out := buf.String()
	if !strings.Contains(out, "big.csv") || !strings.Contains(out, "1.1 kB/5.2 MB") {
		t.Errorf("the progress line does not show the bytes read: %q", out)
	}
	if !strings.HasSuffix(out, "\r") {
		t.Errorf("the progress line is not cleared: %q", out)
	}
}

// TestTermLine: a log line written while a progress line shows clears
// it, stands on a line of its own, and the progress line is drawn again
// after it; once the bar cleared its line, log lines pass unchanged.
func TestTermLine(t *testing.T) {
	var out bytes.Buffer
	term := newTermLine(&out)
	bar, logs := term.Bar(), term.Logs()
	steps := []struct {
		w    func() (int, error)
		want string
	}{
		{func() (int, error) { return logs.Write([]byte("level=INFO msg=claimed\n")) }, "level=INFO msg=claimed\n"},
		{func() (int, error) { return bar.Write([]byte("\rdocuments  10% |###       | (10/100)")) }, "\rdocuments  10% |###       | (10/100)"},
		{func() (int, error) { return logs.Write([]byte("level=WARN msg=retrying\n")) },
			"\r\x1b[Klevel=WARN msg=retrying\n\rdocuments  10% |###       | (10/100)"},
		{func() (int, error) { return bar.Write([]byte("\r                                      \r")) }, "\r                                      \r"},
		{func() (int, error) { return logs.Write([]byte("level=INFO msg=done\n")) }, "level=INFO msg=done\n"},
	}
	for i, s := range steps {
		out.Reset()
		if _, err := s.w(); err != nil {
			t.Fatal(err)
		}
		if out.String() != s.want {
			t.Errorf("step %d wrote %q, want %q", i, out.String(), s.want)
		}
	}
	if term.Terminal() {
		t.Error("a buffer is taken for a terminal")
	}
}

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
