//go:build unix

package inbox_test

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"filebridge/internal/journal"
)

// TestPipeInProcessing: a named pipe left in processing/ with an open
// journal row (claimed by an earlier release) is not opened: it goes to
// error/ with a report saying it is not a regular file, instead of
// blocking the round or being retried for ever; a good file of the same
// round is processed.
func TestPipeInProcessing(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, envOpts{routes: route("SUPPLIERS*", "suppliers")})
	e.drop("processing/.keep", "")
	if err := syscall.Mkfifo(filepath.Join(e.dir, "processing", "SUPPLIERS_PIPE.csv"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := e.j.ClaimFile(ctx, journal.File{Inbox: "erp", Name: "SUPPLIERS_PIPE.csv", Path: "processing/SUPPLIERS_PIPE.csv",
		DocType: "suppliers", State: journal.FileClaimed}); err != nil {
		t.Fatal(err)
	}
	e.drop("SUPPLIERS_GOOD.csv", suppliersFile("SUP-G", 2))
	rr := e.runOnce()
	pipe := result(t, rr, "SUPPLIERS_PIPE.csv")
	if pipe.State != journal.FileFailed || !strings.Contains(pipe.Message, "is a named pipe (FIFO): not a regular file") {
		t.Errorf("pipe: %s %q, want failed as not a regular file", pipe.State, pipe.Message)
	}
	if !e.exists("error/SUPPLIERS_PIPE.csv") || !strings.Contains(e.read("error/SUPPLIERS_PIPE.report.csv"), "only regular files are taken") {
		t.Errorf("error/ holds %q: want the pipe and its report", e.ls("error"))
	}
	if good := result(t, rr, "SUPPLIERS_GOOD.csv"); good.State != journal.FileDone {
		t.Errorf("good file: %s %q", good.State, good.Message)
	}
	e.onceEach("connections", "SUP-G", 2)
}
