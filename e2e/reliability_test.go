package e2e

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"filebridge/internal/folder"
	"filebridge/internal/folder/sftptest"
	"filebridge/internal/journal"
	"filebridge/internal/testkit"
)

// readOnly makes paths unwritable for the filebridge processes of a
// test, in the first way that works here: chattr +i (even root cannot
// write then; needs a file system with attributes), plain chmod when the
// tests do not run as root, or chmod with the processes run as the
// unprivileged uid 65534 (root on a file system without attributes).
type readOnly struct {
	t    *testing.T
	how  string // "chattr", "chmod" or "uid 65534"
	cred *syscall.Credential
}

// newReadOnly picks the way for the files under dir (created already: the
// uid way hands them to uid 65534).
func newReadOnly(t *testing.T, dir string) *readOnly {
	t.Helper()
	r := &readOnly{t: t}
	probe := filepath.Join(dir, ".chattr-probe")
	mustWrite(t, probe, "x")
	defer os.Remove(probe)
	force := os.Getenv("FILEBRIDGE_TEST_READONLY") // "uid" tries the fallback of root
	switch {
	case force != "uid" && exec.Command("chattr", "+i", probe).Run() == nil:
		_ = exec.Command("chattr", "-i", probe).Run()
		r.how = "chattr"
	case os.Geteuid() != 0:
		r.how = "chmod"
	default:
		r.how, r.cred = "uid 65534", &syscall.Credential{Uid: 65534, Gid: 65534}
		err := filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Chown(p, 65534, 65534)
		})
		if err != nil {
			t.Skipf("SKIPPED: cannot hand %s to uid 65534 to test a read-only journal as root: %v", dir, err)
		}
		// The folders above dir and the binary's must be traversable.
		for _, d := range []string{filepath.Dir(dir), filepath.Dir(filepath.Dir(dir)), filepath.Dir(bin)} {
			if st, err := os.Stat(d); err == nil {
				_ = os.Chmod(d, st.Mode().Perm()|0o711)
			}
		}
	}
	t.Logf("read-only paths made with %s", r.how)
	return r
}

// set makes path read-only (on) or writable again.
func (r *readOnly) set(path string, on bool) {
	r.t.Helper()
	if r.how == "chattr" {
		flag := "-i"
		if on {
			flag = "+i"
			r.t.Cleanup(func() { _ = exec.Command("chattr", "-i", path).Run() })
		}
		if out, err := exec.Command("chattr", flag, path).CombinedOutput(); err != nil {
			r.t.Fatalf("chattr %s %s: %v %s", flag, path, err, out)
		}
		return
	}
	testkit.WriteBits(r.t, path, on)
}

// command is the binary with args, run as the way needs.
func (r *readOnly) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, bin, args...)
	if r.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: r.cred}
	}
	return cmd
}

// run runs the binary to completion: output and exit code.
func (r *readOnly) run(timeout time.Duration, args ...string) (string, int) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out, err := r.command(ctx, args...).CombinedOutput()
	if ctx.Err() != nil {
		r.t.Fatalf("filebridge %s did not finish within %s:\n%s", strings.Join(args, " "), timeout, out)
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &ee):
		return string(out), ee.ExitCode()
	}
	r.t.Fatalf("running filebridge %s: %v", strings.Join(args, " "), err)
	return "", 0
}

// start starts the binary like the harness's start.
func (r *readOnly) start(name string, args ...string) *process {
	r.t.Helper()
	p := &process{name: name, out: &testkit.Buffer{}, done: make(chan struct{}), started: time.Now()}
	p.cmd = r.command(context.Background(), args...)
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		r.t.Fatalf("starting %s: %v", name, err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	r.t.Cleanup(func() {
		p.kill()
		if r.t.Failed() {
			r.t.Logf("--- output of %s ---\n%s", name, tail(p.out.String(), 12000))
		}
	})
	return p
}

// TestReadOnlyJournal: `check` and `run` agree about a journal that cannot
// be written, whether its file or its folder is read-only: check fails
// its journal line and run refuses to start (exit 3). A journal that
// becomes read-only while run runs pauses the inbox (nothing is claimed,
// /healthz says degraded with the reason); once writable again the inbox
// resumes by itself.
func TestReadOnlyJournal(t *testing.T) {
	t.Parallel()
	s, dir, inbox := simAndInbox(t, "A")
	listen := testkit.FreeAddr(t)
	cfg := runConfig(t, dir, s, listen, inboxSpec{name: "erp", url: inbox})
	dbPath := filepath.Join(dir, "var", "filebridge.db")
	j, err := journal.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	ro := newReadOnly(t, dir)
	for _, target := range []string{dbPath, filepath.Dir(dbPath)} {
		ro.set(target, true)
		out, code := ro.run(60*time.Second, "check", "--config", cfg)
		if code != 3 || !strings.Contains(out, "FAIL journal") || !strings.Contains(out, "not writable") {
			t.Errorf("check with %s read-only: exit %d, want 3 and a failed journal line:\n%s", target, code, out)
		}
		out, code = ro.run(30*time.Second, "run", "--config", cfg)
		if code != 3 || !strings.Contains(out, "not writable") {
			t.Errorf("run with %s read-only: exit %d, want 3 and why:\n%s", target, code, out)
		}
		ro.set(target, false)
	}
	if out, code := ro.run(60*time.Second, "check", "--config", cfg); code != 0 || !strings.Contains(out, "ok   journal") {
		t.Fatalf("check with the journal writable again: exit %d:\n%s", code, out)
	}

	p := ro.start("run", "run", "--config", cfg)
	waitHealthz(t, listen, 30*time.Second, http.StatusOK, "")
	ro.set(dbPath, true)
	copySample(t, "A", "good", "SUPPLIERS_20260302.csv", inbox, "")
	body := waitHealthz(t, listen, 30*time.Second, http.StatusServiceUnavailable, "not writable")
	if !strings.Contains(body, `"journal": {`) || !strings.Contains(body, `"degraded"`) {
		t.Errorf("/healthz lacks the journal's degraded state:\n%s", body)
	}
	if out, code := runCmd(t, 30*time.Second, "health", "--config", cfg); code != 1 || !strings.Contains(out, "journal: degraded") {
		t.Errorf("health while the journal is read-only: exit %d, want 1 naming the journal:\n%s", code, out)
	}
	if got := files(t, inbox); len(got) != 1 || got[0] != "SUPPLIERS_20260302.csv" {
		t.Errorf("files moved while the journal was read-only: %q", got)
	}
	ro.set(dbPath, false)
	allIn(t, 30*time.Second, filepath.Join(inbox, "processed"), []string{"SUPPLIERS_20260302.csv"})
	waitHealthz(t, listen, 10*time.Second, http.StatusOK, "")
	if out, code := runCmd(t, 30*time.Second, "health", "--config", cfg); code != 0 || strings.TrimSpace(out) != "ok" {
		t.Errorf("health with the journal writable again: exit %d, want 0 and ok:\n%s", code, out)
	}
	p.stopOK(t, "run")
	if n := strings.Count(p.out.String(), "journal not writable"); n != 1 {
		t.Errorf("the journal problem was logged %d times, want once", n)
	}
}

// TestHostKeyMismatchHealthz: an SFTP inbox whose server presents another
// key than known_hosts holds makes /healthz degraded with the reason, and
// is logged at ERROR as a possible attack once, not at every retry.
func TestHostKeyMismatchHealthz(t *testing.T) {
	t.Parallel()
	s := startSim(t, "A")
	srv, other := sftptest.NewServer(t), sftptest.NewServer(t)
	dir := t.TempDir()
	pw := filepath.Join(dir, "sftp-password")
	mustWrite(t, pw, srv.Password)
	extra := "password_file = \"" + pw + "\"\nknown_hosts = \"" + rewriteKnownHosts(t, dir, other.KnownHostsLine, other.Addr, srv.Addr) + "\""
	listen := testkit.FreeAddr(t)
	cfg := runConfig(t, dir, s, listen, inboxSpec{name: "edi", url: srv.URL("/in"), extra: extra})
	p := start(t, "run", "run", "--config", cfg)
	body := waitHealthz(t, listen, 30*time.Second, http.StatusServiceUnavailable, "host key mismatch")
	if !strings.Contains(body, "possibly an attack") {
		t.Errorf("/healthz does not call the mismatch a possible attack:\n%s", body)
	}
	// Let a few retries fail, then count the ERROR lines.
	waitFor(t, 30*time.Second, "three failed attempts", func() bool {
		return strings.Count(p.out.String(), folder.ErrHostKeyMismatch.Error()) >= 6
	})
	attacks := 0
	for _, l := range strings.Split(p.out.String(), "\n") {
		if strings.Contains(l, `"level":"ERROR"`) && strings.Contains(l, "possibly an attack") {
			attacks++
		}
	}
	if attacks != 1 {
		t.Errorf("%d ERROR lines about a possible attack, want 1", attacks)
	}
	p.stopOK(t, "run")
}

// TestStopWhileWritingReports sends SIGTERM while `run` writes the
// reports of one order of many invalid lines: it exits 0, leaves no
// temporary .part file anywhere in the inbox, the file waits in
// processing/, and the next run writes its reports and files it in
// error/.
func TestStopWhileWritingReports(t *testing.T) {
	t.Parallel()
	const lines = 400_000
	s, dir, inbox := simAndInbox(t, "A")
	cfg := runConfig(t, dir, s, "", inboxSpec{name: "erp", url: inbox, extra: `max_file_size = "1GB"`})
	var b strings.Builder
	b.WriteString("orderNumber,externalOrderNumber,deliveryMode,warehouseLocation,shipTo.firstName,shipTo.lastName,shipTo.streetAddress,shipTo.zipcode,shipTo.city,shipTo.countryCode,shipTo.email,position,sku,quantity\n")
	for i := 1; i <= lines; i++ {
		fmt.Fprintf(&b, "BIG-1,EXT-BIG-1,STANDARD,3,Jeanne,Martin,12 rue des Lilas,69003,Lyon,FR,jeanne.martin@example.org,%d,PRE-%06d,0\n", i, i%50+1)
	}
	const name = "ORDERS_BIG_20260401.csv"
	writeAtomic(t, filepath.Join(inbox, name), []byte(b.String()))

	temps := func() []string {
		var out []string
		for _, f := range files(t, inbox) {
			if folder.IsTemp(filepath.Base(f)) {
				out = append(out, f)
			}
		}
		return out
	}
	p := start(t, "run", "run", "--config", cfg)
	waitFor(t, 120*time.Second, "a report being written", func() bool { return len(temps()) > 0 })
	if code := p.stop(t, 25*time.Second); code != 0 {
		t.Fatalf("run exited with %d after SIGTERM, want 0", code)
	}
	if left := temps(); len(left) > 0 {
		t.Errorf("temporary files left after SIGTERM: %q", left)
	}
	if !has(files(t, filepath.Join(inbox, "processing")), name) {
		t.Fatalf("the file is not waiting in processing/: %q", files(t, inbox))
	}

	p = start(t, "run (again)", "run", "--config", cfg)
	allIn(t, 120*time.Second, filepath.Join(inbox, "error"), []string{name, stem(name) + ".report.csv", stem(name) + ".rejected.csv"})
	p.stopOK(t, "the second run")
	if left := temps(); len(left) > 0 {
		t.Errorf("temporary files left: %q", left)
	}
}

// orderShape says what writeOrderLines generates: mb megabytes, or lines
// lines, of orders of perOrder lines each; scattered puts the lines of
// one order far apart (line 1 of every order, then line 2...), as in a
// file sorted by another column.
type orderShape struct {
	mb, lines, perOrder int
	invalid, scattered  bool
}

// writeOrderLines writes an order file of the given shape and returns its
// number of data lines.
func writeOrderLines(t testing.TB, path string, sh orderShape) int {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	n, _ := w.WriteString("orderNumber,externalOrderNumber,deliveryMode,warehouseLocation,shipTo.firstName,shipTo.lastName,shipTo.streetAddress,shipTo.zipcode,shipTo.city,shipTo.countryCode,shipTo.email,position,sku,quantity\n")
	size, lines := int64(n), 0
	line := func(order, p int) {
		q := 1 + p%5
		if sh.invalid {
			q = 0
		}
		n, _ := fmt.Fprintf(w, "MEM-%07d,EXT-MEM-%07d,STANDARD,3,Jeanne,Martin,12 rue des Lilas,69003,Lyon,FR,jeanne.martin@example.org,%d,PRE-%06d,%d\n",
			order, order, p, p%50+1, q)
		size += int64(n)
		lines++
	}
	switch {
	case sh.scattered:
		orders := sh.lines / sh.perOrder
		for p := 1; p <= sh.perOrder; p++ {
			for order := 1; order <= orders; order++ {
				line(order, p)
			}
		}
	default:
		for order := 1; (sh.mb == 0 || size < int64(sh.mb)<<20) && (sh.lines == 0 || lines < sh.lines); order++ {
			for p := 1; p <= sh.perOrder; p++ {
				line(order, p)
			}
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// procStatus reads a kB figure (VmHWM: peak RSS, VmRSS: current) of a
// process from /proc, in MiB.
func procStatus(t testing.TB, pid int, field string) float64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("reading the memory of process %d: %v", pid, err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb / 1024
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// TestLargeFileMemory is the memory drill of `make bench`: `run` processes
// a generated order file of FILEBRIDGE_MEMTEST_MB megabytes (make bench:
// 300) of 200-line orders, once valid and once with every line invalid,
// each in a fresh daemon. It prints the peak RSS (VmHWM) and the RSS once
// the file is done, and fails when the peak exceeds 400 MiB.
func TestLargeFileMemory(t *testing.T) {
	mb := drillSize(t, "FILEBRIDGE_MEMTEST_MB", "300", "the memory of a large file")
	for _, kind := range []string{"valid", "invalid"} {
		t.Run(kind, func(t *testing.T) {
			memoryDrill(t, fmt.Sprintf("%s %dMB", kind, mb), orderShape{mb: mb, perOrder: 200, invalid: kind == "invalid"}, 400)
		})
	}
}

// TestManyOrdersMemory is the second memory drill of `make bench`: `run`
// validates and submits an order file of FILEBRIDGE_MEMTEST_LINES lines
// (make bench: 1,000,000, that is 200,000 orders of 5 lines), once with
// the lines of each order together and once scattered over the whole
// file; the peak RSS must stay within 250 MiB.
func TestManyOrdersMemory(t *testing.T) {
	lines := drillSize(t, "FILEBRIDGE_MEMTEST_LINES", "1000000", "the memory of many orders")
	for _, kind := range []string{"together", "scattered"} {
		t.Run(kind, func(t *testing.T) {
			memoryDrill(t, fmt.Sprintf("orders %s %d lines", kind, lines), orderShape{lines: lines, perOrder: 5, scattered: kind == "scattered"}, 250)
		})
	}
}

// drillSize is the size of a memory drill, from the environment variable
// name; without a positive one the test is skipped, saying what make
// bench sets it to and what it would measure.
func drillSize(t *testing.T, name, bench, what string) int {
	t.Helper()
	n, _ := strconv.Atoi(os.Getenv(name))
	if n <= 0 {
		t.Skipf("SKIPPED: set %s (make bench runs it with %s) to measure %s", name, bench, what)
	}
	return n
}

// memoryDrill runs one generated order file through a fresh daemon and
// reports its peak RSS and the RSS once the file is done.
func memoryDrill(t *testing.T, what string, sh orderShape, limitMiB float64) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("SKIPPED: no /proc to read the peak RSS from")
	}
	s, dir, inbox := simAndInbox(t, "A", "--preload", "50")
	cfg := runConfig(t, dir, s, "", inboxSpec{name: "erp", url: inbox, extra: `max_file_size = "1GB"`})
	name := "ORDERS_MEM.csv"
	tmp := filepath.Join(dir, name)
	lines := writeOrderLines(t, tmp, sh)
	p := start(t, "run", "run", "--config", cfg)
	p.waitRunning(t, 30*time.Second)
	base := procStatus(t, p.cmd.Process.Pid, "VmRSS")
	begin := time.Now()
	if err := os.Rename(tmp, filepath.Join(inbox, name)); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(inbox, "processed")
	if sh.invalid {
		dest = filepath.Join(inbox, "error")
	}
	allIn(t, 30*time.Minute, dest, []string{name})
	took := time.Since(begin)
	// The inbox hands memory back after a large file; give the runtime up
	// to 30s to do it, then take the RSS as it is.
	after := procStatus(t, p.cmd.Process.Pid, "VmRSS")
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		time.Sleep(500 * time.Millisecond)
		prev := after
		if after = procStatus(t, p.cmd.Process.Pid, "VmRSS"); after >= prev-1 && after < limitMiB {
			break
		}
	}
	peak := procStatus(t, p.cmd.Process.Pid, "VmHWM")
	t.Logf("%s (%d lines): took %s, peak RSS %.0f MiB, RSS before %.0f MiB, after %.0f MiB (limit %.0f MiB)",
		what, lines, took.Round(time.Second), peak, base, after, limitMiB)
	fmt.Printf("memory %s: peak_rss_mib=%.0f rss_after_mib=%.0f seconds=%.0f limit_mib=%.0f\n",
		strings.ReplaceAll(what, " ", "_"), peak, after, took.Seconds(), limitMiB)
	if peak > limitMiB {
		t.Errorf("peak RSS %.0f MiB over the %.0f MiB limit", peak, limitMiB)
	}
	p.stopOK(t, "run")
}
