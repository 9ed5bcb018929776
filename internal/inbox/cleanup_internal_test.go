package inbox

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"filebridge/internal/config"
)

// TestRemoveTempsStopped: a stop that comes while the inbox cleans up
// after an earlier stop (a SIGTERM just after the start) ends the cleanup
// quietly: no warning that the journal or the folder could not be listed,
// while a real failure still warns.
func TestRemoveTempsStopped(t *testing.T) {
	dir := t.TempDir()
	j := tempJournal(t)
	f := localFolder(t, dir)
	var logs strings.Builder
	in := &Inbox{cfg: config.Inbox{Name: "erp", ProcessingDir: "processing", ErrorDir: "error"}, j: j,
		log: slog.New(slog.NewTextHandler(&logs, nil)), opts: Options{Now: time.Now}}

	stopped, cancel := context.WithCancel(t.Context())
	cancel()
	in.removeTemps(stopped, f)
	if logs.Len() != 0 {
		t.Errorf("a cleanup cut by a stop logged:\n%s", logs.String())
	}

	_ = j.Close() // a journal that cannot answer: that is worth a warning
	in.removeTemps(t.Context(), f)
	if !strings.Contains(logs.String(), "could not list the open files") {
		t.Errorf("a journal that failed was not reported:\n%s", logs.String())
	}
}

// TestRemoveTempsListsAtOnce: the folders cleaned up at the start (the
// root, processing/, error/, today's and yesterday's processed/) are
// listed at once, so that on SFTP their requests share round trips, and
// a temporary file left in any of them is still removed.
func TestRemoveTempsListsAtOnce(t *testing.T) {
	dir := t.TempDir()
	j := tempJournal(t)
	now := time.Now()
	for _, d := range []string{"processing", "error", filepath.Join("processed", now.Format("2006/01/02"))} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	temp := filepath.Join(dir, "error", ".A.csv.report.csv.0123456789ab.part")
	if err := os.WriteFile(temp, []byte("half a report"), 0o644); err != nil {
		t.Fatal(err)
	}
	g := &gated{Folder: localFolder(t, dir), lists: newGate(5)}
	in := &Inbox{cfg: config.Inbox{Name: "erp", ProcessingDir: "processing", ErrorDir: "error", ProcessedDir: "processed"}, j: j,
		log: slog.New(slog.DiscardHandler), opts: Options{Now: func() time.Time { return now }}}
	in.removeTemps(t.Context(), g)
	if g.lists.most != 5 {
		t.Errorf("%d folders listed at once, want 5", g.lists.most)
	}
	if _, err := os.Stat(temp); !os.IsNotExist(err) {
		t.Errorf("the temporary file in error/ is still there: %v", err)
	}
}
