//go:build unix

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"filebridge/internal/testkit"
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

// startLimited is start with the process's address space limited to
// limit bytes (ulimit -v), as the drills ran it.
func startLimited(t testing.TB, name string, limit int64, args ...string) *process {
	t.Helper()
	return startCmd(t, name, exec.Command("/bin/sh", append([]string{"-c", `ulimit -v "$0" && exec "$@"`, strconv.FormatInt(limit>>10, 10), bin}, args...)...))
}

// TestHostileWorkbookDaemon: `filebridge run`, under a 3 GB address-space
// limit, finds a 1.5 MB workbook whose sheet holds a header, one row and
// 1.5 GB of spaces (its type told by its header only) beside three good
// files: the workbook goes to error/ with a report naming the run of
// spaces, within 5 s and 200 MiB of peak memory; the three files are
// processed and the daemon stays up and stops cleanly.
func TestHostileWorkbookDaemon(t *testing.T) {
	t.Parallel()
	s, dir, inbox := simAndInbox(t, "A")
	cfg := runConfig(t, dir, s, "", inboxSpec{name: "erp", url: inbox, extra: "settle = \"300ms\"\npoll = \"200ms\"\n" +
		"[[inboxes.routes]]\nmatch = \"HOSTILE*.xlsx\"\n"}) // no type: the header row tells it
	const hostile = "HOSTILE_SUPPLIERS.xlsx"
	f, err := os.Create(filepath.Join(dir, hostile))
	if err != nil {
		t.Fatal(err)
	}
	werr := testkit.HostileWorkbook(f, [][]string{{"code", "name", "relationship"}, {"SUP-H1", "Hostile", "Manufacturer"}}, 1536<<20)
	if cerr := f.Close(); werr != nil || cerr != nil {
		t.Fatal(werr, cerr)
	}
	st, err := os.Stat(filepath.Join(dir, hostile))
	if err != nil {
		t.Fatal(err)
	}
	good := []string{"SUPPLIERS_H1.csv", "SUPPLIERS_H2.csv", "SUPPLIERS_H3.csv"}
	for i, n := range good {
		writeAtomic(t, filepath.Join(inbox, n), supplierFile(fmt.Sprintf("SUP-G%d", i+1)))
	}
	if err := os.Rename(filepath.Join(dir, hostile), filepath.Join(inbox, hostile)); err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	p := startLimited(t, "run", 3<<30, "run", "--config", cfg)
	allIn(t, 30*time.Second, filepath.Join(inbox, "error"), []string{hostile})
	took := time.Since(begin)
	allIn(t, 30*time.Second, filepath.Join(inbox, "processed"), good)
	peak, err := testkit.PeakRSS(strconv.Itoa(p.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a %d-byte workbook of 1.5 GiB of spaces refused %s after the start; peak RSS of the daemon %d MiB", st.Size(), took.Round(time.Millisecond), peak>>20)
	if p.exited() {
		t.Fatal("the daemon died")
	}
	report := readFile(t, filepath.Join(inbox, "error", "HOSTILE_SUPPLIERS.report.csv"))
	if !strings.Contains(report, "a run of more than 1.0 MiB of text or spaces outside any cell") {
		t.Errorf("the report does not say why:\n%s", report)
	}
	if took > 5*time.Second {
		t.Errorf("refusing the workbook took %s, want at most 5s", took)
	}
	if peak > 200<<20 {
		t.Errorf("peak RSS %d MiB, want at most 200", peak>>20)
	}
	p.stopOK(t, "run")
	if got := s.onceEach(t, "connections", "code"); len(got) != 3 {
		t.Errorf("the portal holds %d suppliers, want the 3 good ones: %v", len(got), got)
	}
}
