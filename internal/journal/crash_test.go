package journal

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// crashEnv names the database a re-executed test binary writes to until it
// is killed.
const crashEnv = "FILEBRIDGE_JOURNAL_CRASH_DB"

// crashBase is the first cursor instant the child writes; iteration i
// saves crashBase + i seconds.
var crashBase = time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)

// TestCrashChild is not a test: it is the child process of
// TestCrashDurability. It writes in a loop and reports each committed
// write on stdout as "J <op> <i> [value]".
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashEnv)
	if path == "" {
		t.Skip("helper process of TestCrashDurability")
	}
	ctx := t.Context()
	d, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	id := claimFile(t, d, File{Inbox: "erp", Name: "CRASH.csv", SHA256: "c"})
	say := func(format string, args ...any) {
		// Unbuffered: a line on stdout means the call before it returned.
		if _, err := fmt.Fprintf(os.Stdout, "J "+format+"\n", args...); err != nil {
			t.Fatal(err)
		}
	}
	say("file %d", id)
	deadline := time.Now().Add(30 * time.Second) // in case the parent is gone
	for i := 0; time.Now().Before(deadline); i++ {
		key := fmt.Sprintf("K%06d", i)
		if err := d.AddDocuments(ctx, id, []Document{{Key: key, Rows: strconv.Itoa(i + 2)}}); err != nil {
			t.Fatal(err)
		}
		say("added %d", i)
		if err := d.StartAttempt(ctx, id, key); err != nil {
			t.Fatal(err)
		}
		say("sending %d", i)
		if err := d.SetResult(ctx, id, key, ResultCreated, "/p/"+key, ""); err != nil {
			t.Fatal(err)
		}
		say("created %d", i)
		seq, err := d.NextSequence(ctx, "erp", "stock")
		if err != nil {
			t.Fatal(err)
		}
		say("seq %d %d", i, seq)
		if err := d.SaveCursor(ctx, Cursor{Outbox: "erp", Export: "stock", At: crashBase.Add(time.Duration(i) * time.Second), Keys: []string{key}}); err != nil {
			t.Fatal(err)
		}
		say("cursor %d", i)
	}
}

// TestCrashDurability kills a writing child process with SIGKILL and checks
// that the reopened journal is intact and holds every write the child saw
// committed.
func TestCrashDurability(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	path := filepath.Join(t.TempDir(), "journal.db")
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"="+path)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}

	// Kill at a point that varies from run to run, while writes go on.
	killAfter := 150 + int(time.Now().UnixNano()%97)
	var (
		fileID                    int64
		added, sending, created   = -1, -1, -1
		cursorAt, lastSeq, events = -1, int64(0), 0
	)
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 3 || f[0] != "J" {
			continue
		}
		n, _ := strconv.Atoi(f[2])
		switch f[1] {
		case "file":
			fileID = int64(n)
		case "added":
			added = n
		case "sending":
			sending = n
		case "created":
			created = n
		case "seq":
			lastSeq, _ = strconv.ParseInt(f[3], 10, 64)
		case "cursor":
			cursorAt = n
		}
		// Keep reading after the kill: lines already in the pipe are
		// writes the child saw committed before it died.
		if events++; events == killAfter {
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
		}
	}
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child did not die by SIGKILL: %v (after %d events)", err, events)
	}
	if fileID == 0 || created < 10 {
		t.Fatalf("child committed too little before the kill: file %d, created up to %d", fileID, created)
	}
	t.Logf("killed after %d events: added %d, sending %d, created %d, seq %d, cursor %d",
		events, added, sending, created, lastSeq, cursorAt)

	ctx := t.Context()
	d, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("reopening after the crash: %v", err)
	}
	defer d.Close()
	var check string
	if err := d.r.db.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check = %q, %v", check, err)
	}
	docs, err := d.Documents(ctx, fileID)
	if err != nil {
		t.Fatal(err)
	}
	// Every acknowledged document is there; at most one more (committed,
	// killed before it was reported).
	if len(docs) < added+1 || len(docs) > added+2 {
		t.Fatalf("%d documents after the crash, acknowledged %d", len(docs), added+1)
	}
	for i, doc := range docs {
		key := fmt.Sprintf("K%06d", i)
		if doc.Key != key || doc.Rows != strconv.Itoa(i+2) {
			t.Errorf("document %d = %+v, want key %s", i, doc, key)
		}
		switch {
		case i <= created:
			if doc.Result != ResultCreated || doc.PortalID != "/p/"+key || doc.Attempts != 1 {
				t.Errorf("acknowledged created document %s = %+v", key, doc)
			}
		case i <= sending:
			if doc.Result != ResultSending && doc.Result != ResultCreated || doc.Attempts != 1 {
				t.Errorf("acknowledged sending document %s = %+v", key, doc)
			}
		}
	}
	c, ok, err := d.Cursor(ctx, "erp", "stock")
	if err != nil {
		t.Fatal(err)
	}
	if cursorAt >= 0 {
		want := crashBase.Add(time.Duration(cursorAt) * time.Second)
		if !ok || c.At.Before(want) {
			t.Errorf("cursor at %v, acknowledged %v", c.At, want)
		}
	}
	next, err := d.NextSequence(ctx, "erp", "stock")
	if err != nil || next <= lastSeq {
		t.Errorf("NextSequence after crash = %d, %v; acknowledged %d already", next, err, lastSeq)
	}
	open, err := d.OpenFiles(ctx, "erp")
	if err != nil || len(open) != 1 || open[0].ID != fileID {
		t.Errorf("OpenFiles after crash = %+v, %v; want the crashed file to resume", open, err)
	}
}
