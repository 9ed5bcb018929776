package inbox_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestPruneProcessed runs a file through the pipeline (processed/2026/03/16/)
// beside older dated folders, then prunes with a 30-day retention: folders
// whose day ended more than 30 days ago go, with the month and year
// folders left empty; the rest stays.
func TestPruneProcessed(t *testing.T) {
	e := newEnv(t, envOpts{inbox: `retention = "30d"`})
	e.drop("SUPPLIERS.csv", "code,name,relationship\nSUP-A,Supplier A,Manufacturer\n")
	e.runOnce()
	for _, dir := range []string{"processed/2025/12/01", "processed/2026/02/13", "processed/2026/02/15", "processed/2026/02/notaday"} {
		e.drop(dir+"/OLD.csv", "x\n")
	}
	// 2026-03-16 10:00 less 30 days is 2026-02-14 10:00: the days up to
	// 2026-02-13 have ended by then.
	n, err := e.in.PruneProcessed(t.Context(), fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("removed %d files, want 2", n)
	}
	left := e.ls("processed")
	want := []string{"processed/2026/02/15/OLD.csv", "processed/2026/02/notaday/OLD.csv",
		"processed/2026/03/16/SUPPLIERS.csv", "processed/2026/03/16/SUPPLIERS.report.csv"}
	if !slices.Equal(left, want) {
		t.Errorf("left %q, want %q", left, want)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "processed", "2025")); !os.IsNotExist(err) {
		t.Errorf("the empty year folder 2025 is still there: %v", err)
	}
	// Without a retention nothing is deleted.
	off := newEnv(t, envOpts{})
	if n, err := off.in.PruneProcessed(t.Context(), fixedNow.Add(1000*24*time.Hour)); n != 0 || err != nil {
		t.Errorf("without retention: %d, %v", n, err)
	}
}
