package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"filebridge/internal/folder"
	"filebridge/internal/folder/sftptest"
	"filebridge/internal/journal"
)

// chattr sets (+i) or clears (-i) the immutable attribute: writes to the
// path then fail even for root, as the tests run. Where the file system
// does not support it the test is skipped, visibly.
func chattr(t *testing.T, flag, path string) {
	t.Helper()
	if flag == "+i" {
		t.Cleanup(func() { _ = exec.Command("chattr", "-i", path).Run() })
	}
	if out, err := exec.Command("chattr", flag, path).CombinedOutput(); err != nil {
		t.Skipf("SKIPPED: cannot make %s read-only for root here (chattr %s: %v %s); the read-only journal is not tested", path, flag, err, out)
	}
}

// healthz fetches /healthz: its status code and body ("" when it does
// not answer).
func healthz(listen string) (int, string) {
	resp, err := http.Get("http://" + listen + "/healthz")
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestReadOnlyJournal: `check` and `run` agree about a journal that cannot
// be written, whether its file or its folder is read-only: check fails
// its journal line and run refuses to start (exit 3). A journal that
// becomes read-only while run runs pauses the inbox (nothing is claimed,
// /healthz says degraded with the reason); once writable again the inbox
// resumes by itself.
func TestReadOnlyJournal(t *testing.T) {
	t.Parallel()
	s := startSim(t, "A")
	dir := t.TempDir()
	inbox := filepath.Join(dir, "in")
	if err := os.MkdirAll(inbox, 0o755); err != nil {
		t.Fatal(err)
	}
	listen := freeAddr(t)
	cfg := runConfig(t, dir, s, listen, inboxSpec{name: "erp", url: inbox})
	dbPath := filepath.Join(dir, "var", "filebridge.db")
	j, err := journal.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	for _, target := range []string{dbPath, filepath.Dir(dbPath)} {
		chattr(t, "+i", target)
		out, code := runCmd(t, 60*time.Second, "check", "--config", cfg)
		if code != 3 || !strings.Contains(out, "FAIL journal") || !strings.Contains(out, "not writable") {
			t.Errorf("check with %s read-only: exit %d, want 3 and a failed journal line:\n%s", target, code, out)
		}
		out, code = runCmd(t, 30*time.Second, "run", "--config", cfg)
		if code != 3 || !strings.Contains(out, "not writable") {
			t.Errorf("run with %s read-only: exit %d, want 3 and why:\n%s", target, code, out)
		}
		chattr(t, "-i", target)
	}
	if out, code := runCmd(t, 60*time.Second, "check", "--config", cfg); code != 0 || !strings.Contains(out, "ok   journal") {
		t.Fatalf("check with the journal writable again: exit %d:\n%s", code, out)
	}

	p := start(t, "run", "run", "--config", cfg)
	waitFor(t, 30*time.Second, "/healthz to answer 200", func() bool { code, _ := healthz(listen); return code == http.StatusOK })
	chattr(t, "+i", dbPath)
	copySample(t, "A", "good", "SUPPLIERS_20260302.csv", inbox, "")
	var body string
	waitFor(t, 30*time.Second, "/healthz to answer 503 for the journal", func() bool {
		var code int
		code, body = healthz(listen)
		return code == http.StatusServiceUnavailable && strings.Contains(body, "not writable")
	})
	if !strings.Contains(body, `"journal": {`) || !strings.Contains(body, `"degraded"`) {
		t.Errorf("/healthz lacks the journal's degraded state:\n%s", body)
	}
	if got := files(t, inbox); len(got) != 1 || got[0] != "SUPPLIERS_20260302.csv" {
		t.Errorf("files moved while the journal was read-only: %q", got)
	}
	chattr(t, "-i", dbPath)
	allIn(t, 30*time.Second, filepath.Join(inbox, "processed"), []string{"SUPPLIERS_20260302.csv"})
	waitFor(t, 10*time.Second, "/healthz to answer 200 again", func() bool { code, _ := healthz(listen); return code == http.StatusOK })
	if code := p.stop(t, 25*time.Second); code != 0 {
		t.Errorf("run exited with %d after SIGTERM", code)
	}
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
	listen := freeAddr(t)
	cfg := runConfig(t, dir, s, listen, inboxSpec{name: "edi", url: srv.URL("/in"), extra: extra})
	p := start(t, "run", "run", "--config", cfg)
	var body string
	waitFor(t, 30*time.Second, "/healthz to answer 503 for the host key", func() bool {
		var code int
		code, body = healthz(listen)
		return code == http.StatusServiceUnavailable && strings.Contains(body, "host key mismatch")
	})
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
	if code := p.stop(t, 25*time.Second); code != 0 {
		t.Errorf("run exited with %d after SIGTERM", code)
	}
}

// TestStopWhileWritingReports sends SIGTERM while `run` writes the
// reports of one order of many invalid lines: it exits 0, leaves no
// temporary .part file anywhere in the inbox, the file waits in
// processing/, and the next run writes its reports and files it in
// error/.
func TestStopWhileWritingReports(t *testing.T) {
	t.Parallel()
	const lines = 400_000
	s := startSim(t, "A")
	dir := t.TempDir()
	inbox := filepath.Join(dir, "in")
	if err := os.MkdirAll(inbox, 0o755); err != nil {
		t.Fatal(err)
	}
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
	if code := p.stop(t, 25*time.Second); code != 0 {
		t.Errorf("the second run exited with %d after SIGTERM", code)
	}
	if left := temps(); len(left) > 0 {
		t.Errorf("temporary files left: %q", left)
	}
}
