package inbox

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"filebridge/internal/config"
	"filebridge/internal/journal"
)

// TestRemoveTempsStopped: a stop that comes while the inbox cleans up
// after an earlier stop (a SIGTERM just after the start) ends the cleanup
// quietly: no warning that the journal or the folder could not be listed,
// while a real failure still warns.
func TestRemoveTempsStopped(t *testing.T) {
	dir := t.TempDir()
	j, err := journal.Open(t.Context(), filepath.Join(dir, "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
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
