package inbox_test

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"filebridge/internal/inbox"
	"filebridge/internal/journal"
)

// fileNamed is the journal's newest file of the name.
func (e *env) fileNamed(name string) journal.File {
	e.t.Helper()
	fs, err := e.j.FindFiles(e.t.Context(), name)
	if err != nil {
		e.t.Fatal(err)
	}
	return fs[0]
}

// TestFailuresWorkQueue: an orders file that fails for SKUs not on the
// portal can be replayed; once the master data is there its replay
// succeeds and resolves it, and after error_retention its files leave
// error/ for error/resolved/YYYY/MM/ (the journal follows them). A file
// whose rows are invalid in themselves offers no replay, and a corrected
// re-drop under another name resolves it.
func TestFailuresWorkQueue(t *testing.T) {
	e := newEnv(t, envOpts{inbox: `hold_missing = "0s"` + "\nerror_retention = \"1h\"", stopped: true})
	e.withClock(e.clock)
	ctx := t.Context()
	e.dropSample(ordersSample, "")
	if res := result(t, e.runOnce(), "ORDERS_20260316.csv"); res.State != journal.FileFailed {
		t.Fatalf("orders without their SKUs: %s %s; want failed", res.State, res.Message)
	}
	orig := e.fileNamed("ORDERS_20260316.csv")
	if !orig.OpenFailure() || !orig.Replayable() || orig.FixFile {
		t.Fatalf("failed for missing SKUs: open %v, replayable %v; want an open failure a replay can help", orig.OpenFailure(), orig.Replayable())
	}
	for _, s := range []string{"A/good/SUPPLIERS_20260302.csv", "A/good/SKU_20260302.csv", "A/good/SKU_20260310.xlsx", "A/good/RECEPTIONS_20260304.csv"} {
		e.dropSample(s, "")
	}
	e.runOnce()
	f, err := e.in.Folder(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := inbox.Requeue(ctx, e.j, f, &e.cfg.Inboxes[0], orig, false, "cli"); err != nil {
		t.Fatal(err)
	}
	e.clock.Add(time.Minute)
	if res := result(t, e.runOnce(), "ORDERS_20260316.csv"); res.State != journal.FileDone {
		t.Fatalf("replay: %s %s; want done", res.State, res.Message)
	}
	replay := e.fileNamed("ORDERS_20260316.csv")
	orig, _ = e.j.File(ctx, orig.ID)
	if orig.OpenFailure() || orig.Resolved.Kind != journal.ResolvedByReplay || orig.Resolved.FileID != replay.ID || orig.Resolved.By != "cli" {
		t.Fatalf("after its replay succeeded: resolution %+v; want replay #%d (cli)", orig.Resolved, replay.ID)
	}

	// error_retention: not before the hour is over, then out of error/
	// (the journal's clock is real time: the resolution's month).
	at := orig.Resolved.At.In(time.Local)
	if n, err := e.in.ArchiveResolved(ctx, at.Add(59*time.Minute)); n != 0 || err != nil {
		t.Fatalf("ArchiveResolved within the retention = %d, %v", n, err)
	}
	if n, err := e.in.ArchiveResolved(ctx, at.Add(61*time.Minute)); n != 1 || err != nil {
		t.Fatalf("ArchiveResolved past the retention = %d, %v; want 1", n, err)
	}
	dir := fmt.Sprintf("error/resolved/%s/%d-", at.Format("2006/01"), orig.ID)
	want := []string{dir + "ORDERS_20260316.csv", dir + "ORDERS_20260316.rejected.csv", dir + "ORDERS_20260316.report.csv"}
	if got := e.ls("error"); !slices.Equal(got, want) {
		t.Errorf("error/ = %q, want %q", got, want)
	}
	moved, _ := e.j.File(ctx, orig.ID)
	if moved.FinalPath != want[0] || moved.ReportPath != want[2] || !moved.UpdatedAt.Equal(orig.UpdatedAt) {
		t.Errorf("journal: final %s, report %s, updated %v; want %s, %s, %v unchanged", moved.FinalPath, moved.ReportPath, moved.UpdatedAt, want[0], want[2], orig.UpdatedAt)
	}
	if n, err := e.in.ArchiveResolved(ctx, at.Add(48*time.Hour)); n != 0 || err != nil {
		t.Errorf("a second ArchiveResolved = %d, %v; want nothing left to move", n, err)
	}

	// A move cut short (files moved, the journal not told) is finished by
	// the next round: the journal points at the files where they are.
	e.drop("SUPPLIERS_BAD.csv", "code,name,relationship\nSUP-Y,,Manufacturer\n")
	e.runOnce()
	cut := e.fileNamed("SUPPLIERS_BAD.csv")
	if _, err := e.j.Acknowledge(ctx, cut.ID, "ana", ""); err != nil {
		t.Fatal(err)
	}
	cut, _ = e.j.File(ctx, cut.ID)
	cutDir := fmt.Sprintf("error/resolved/%s/%d-", cut.Resolved.At.In(time.Local).Format("2006/01"), cut.ID)
	if err := os.MkdirAll(filepath.Join(e.dir, filepath.FromSlash(path.Dir(cutDir))), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(e.dir, "error", "SUPPLIERS_BAD.csv"), filepath.Join(e.dir, filepath.FromSlash(cutDir+"SUPPLIERS_BAD.csv"))); err != nil {
		t.Fatal(err)
	}
	if n, err := e.in.ArchiveResolved(ctx, cut.Resolved.At.Add(2*time.Hour)); n != 1 || err != nil {
		t.Fatalf("ArchiveResolved after a cut-short move = %d, %v; want 1", n, err)
	}
	cut, _ = e.j.File(ctx, cut.ID)
	wantCut := []string{cutDir + "SUPPLIERS_BAD.csv", cutDir + "SUPPLIERS_BAD.rejected.csv", cutDir + "SUPPLIERS_BAD.report.csv"}
	if cut.FinalPath != wantCut[0] || cut.ReportPath != wantCut[2] {
		t.Errorf("journal after a cut-short move: %s, %s; want %s, %s", cut.FinalPath, cut.ReportPath, wantCut[0], wantCut[2])
	}
	for _, p := range wantCut {
		if !e.exists(p) {
			t.Errorf("%s is missing: %q", p, e.ls("error"))
		}
	}
	if left := e.ls("error"); slices.ContainsFunc(left, func(p string) bool { return !strings.HasPrefix(p, "error/resolved/") }) {
		t.Errorf("error/ still holds %q", left)
	}

	// Rows invalid in the file: only a corrected file helps.
	e.drop("SUPPLIERS_BAD.csv", "code,name,relationship\nSUP-Z,,Manufacturer\n")
	if res := result(t, e.runOnce(), "SUPPLIERS_BAD.csv"); res.State != journal.FileFailed {
		t.Fatalf("invalid supplier: %s %s; want failed", res.State, res.Message)
	}
	bad := e.fileNamed("SUPPLIERS_BAD.csv")
	if !bad.FixFile || bad.Replayable() {
		t.Errorf("rows invalid in the file: fix_file %v, replayable %v; want true, false", bad.FixFile, bad.Replayable())
	}
	e.drop("SUPPLIERS_FIXED.csv", "code,name,relationship\nSUP-Z,Supplier Z,Manufacturer\n")
	if res := result(t, e.runOnce(), "SUPPLIERS_FIXED.csv"); res.State != journal.FileDone {
		t.Fatalf("fixed supplier: %s %s", res.State, res.Message)
	}
	fixed := e.fileNamed("SUPPLIERS_FIXED.csv")
	bad, _ = e.j.File(ctx, bad.ID)
	if bad.Resolved.What() != fmt.Sprintf("file #%d", fixed.ID) {
		t.Errorf("after the re-drop: resolution %+v; want file #%d", bad.Resolved, fixed.ID)
	}
}
