//go:build unix

package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFIFOBesideGoodFiles: a named pipe in the inbox, whose name a route
// matches, is never claimed nor opened: three good files beside it are
// processed at once, the pipe is logged once as not taken (not at every
// round: a fourth file dropped later is processed and the warning is
// still single), it stays where it is, and SIGTERM stops the daemon at
// once.
func TestFIFOBesideGoodFiles(t *testing.T) {
	t.Parallel()
	s, dir, inbox := simAndInbox(t, "A")
	cfg := runConfig(t, dir, s, "", inboxSpec{name: "erp", url: inbox})
	if err := syscall.Mkfifo(filepath.Join(inbox, "SUPPLIERS_PIPE.csv"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := []string{"SUPPLIERS_F1.csv", "SUPPLIERS_F2.csv", "SUPPLIERS_F3.csv"}
	for i, n := range good {
		writeAtomic(t, filepath.Join(inbox, n), supplierFile(fmt.Sprintf("SUP-F%d", i+1)))
	}
	begin := time.Now()
	p := start(t, "run", "run", "--config", cfg)
	allIn(t, 30*time.Second, filepath.Join(inbox, "processed"), good)
	t.Logf("three good files beside a FIFO processed %s after the start", time.Since(begin).Round(time.Millisecond))
	writeAtomic(t, filepath.Join(inbox, "SUPPLIERS_F4.csv"), supplierFile("SUP-F4"))
	allIn(t, 30*time.Second, filepath.Join(inbox, "processed"), []string{"SUPPLIERS_F4.csv"})

	out := p.out.String()
	if c := strings.Count(out, "named pipe (FIFO): only regular files are taken"); c != 1 {
		t.Errorf("the pipe was logged %d times as not taken, want once", c)
	}
	if strings.Contains(out, `"claimed file","file":"SUPPLIERS_PIPE.csv"`) {
		t.Error("the pipe was claimed")
	}
	if got := files(t, inbox); !has(got, "SUPPLIERS_PIPE.csv") || has(got, "processing/SUPPLIERS_PIPE.csv") {
		t.Errorf("the inbox holds %q: want the pipe left in place", got)
	}
	stopAt := time.Now()
	if code := p.stop(t, 5*time.Second); code != 0 {
		t.Errorf("run exited with %d after SIGTERM, want 0", code)
	}
	t.Logf("stopped %s after SIGTERM", time.Since(stopAt).Round(time.Millisecond))
	if got := s.onceEach(t, "connections", "code"); len(got) != 4 {
		t.Errorf("the portal holds %d suppliers, want 4: %v", len(got), got)
	}
	if st := s.stats(t); st.RepeatedCreates != 0 {
		t.Errorf("%d repeated creates", st.RepeatedCreates)
	}
}
