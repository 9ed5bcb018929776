package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"filebridge/internal/folder/sftptest"
	"filebridge/internal/testkit"
)

// TestCheck runs `filebridge check` against a good setup and against each
// kind of failure, checking its lines and exit codes.
func TestCheck(t *testing.T) {
	t.Parallel()
	s := startSim(t, "A")
	srv := sftptest.NewServer(t)
	c := srv.Client(t)
	if err := c.MkdirAll("/in"); err != nil {
		t.Fatal(err)
	}
	other := sftptest.NewServer(t) // its known_hosts holds another key
	dir := t.TempDir()
	local := mkdir(t, dir, "local")
	pw := filepath.Join(dir, "sftp-password")
	mustWrite(t, pw, srv.Password)
	sftpExtra := "password_file = \"" + pw + "\"\nknown_hosts = \"" + srv.KnownHostsFile + "\""
	cfg := runConfig(t, dir, s, "", inboxSpec{name: "local", url: local}, inboxSpec{name: "edi", url: srv.URL("/in"), extra: sftpExtra})

	out, code := runCmd(t, 60*time.Second, "check", "--config", cfg)
	if code != 0 {
		t.Fatalf("check exited %d, want 0:\n%s", code, out)
	}
	for _, want := range []string{"ok   portal main: " + s.Base + " answered, token accepted", "ok   inbox edi: sftp://", "ok   inbox local:", "ok   journal"} {
		if !strings.Contains(out, want) {
			t.Errorf("check output lacks %q:\n%s", want, out)
		}
	}

	// A changed host key.
	badKeys := "password_file = \"" + pw + "\"\nknown_hosts = \"" + rewriteKnownHosts(t, dir, other.KnownHostsLine, other.Addr, srv.Addr) + "\""
	cfg2 := runConfig(t, filepath.Join(dir, "hostkey"), s, "", inboxSpec{name: "edi", url: srv.URL("/in"), extra: badKeys})
	out, code = runCmd(t, 60*time.Second, "check", "--config", cfg2)
	if code != 3 || !strings.Contains(out, "FAIL inbox edi: sftp://") || !strings.Contains(out, "host key mismatch") {
		t.Errorf("check with a changed host key: exit %d, want 3 and a host key mismatch line:\n%s", code, out)
	}

	// A refused token.
	mustWrite(t, filepath.Join(dir, "token"), "wrong-token\n")
	out, code = runCmd(t, 60*time.Second, "check", "--config", cfg)
	if code != 1 || !strings.Contains(out, "FAIL portal main:") {
		t.Errorf("check with a wrong token: exit %d, want 1:\n%s", code, out)
	}

	// An unreachable portal.
	s.kill()
	mustWrite(t, filepath.Join(dir, "token"), s.Token+"\n")
	out, code = runCmd(t, 60*time.Second, "check", "--config", cfg)
	if code != 3 || !strings.Contains(out, "FAIL portal main:") {
		t.Errorf("check with the portal down: exit %d, want 3:\n%s", code, out)
	}

	// A broken config.
	bad := filepath.Join(dir, "bad.toml")
	mustWrite(t, bad, readFile(t, cfg)+"\n[portals.main.oops]\nx = 1\n")
	out, code = runCmd(t, 30*time.Second, "check", "--config", bad)
	if code != 2 || !strings.Contains(out, "FAIL config") {
		t.Errorf("check with a broken config: exit %d, want 2:\n%s", code, out)
	}
}

// rewriteKnownHosts writes a known_hosts file holding line (for the host
// at from) under the address to, so that the server at to presents a key
// that does not match.
func rewriteKnownHosts(t testing.TB, dir, line, from, to string) string {
	t.Helper()
	host := func(addr string) string {
		h, p, _ := strings.Cut(addr, ":")
		return "[" + h + "]:" + p
	}
	path := filepath.Join(dir, "known_hosts_changed")
	mustWrite(t, path, strings.Replace(line, host(from), host(to), 1)+"\n")
	return path
}

// TestRunExitCodes checks the exit codes of run: 2 for a broken config, 3
// for a journal that cannot be opened; and /healthz answering 503 with the
// reason while a portal refuses the token.
func TestRunExitCodes(t *testing.T) {
	t.Parallel()
	s, dir, inbox := simAndInbox(t, "A")
	cfg := runConfig(t, dir, s, "", inboxSpec{name: "erp", url: inbox})

	bad := filepath.Join(dir, "bad.toml")
	mustWrite(t, bad, strings.Replace(readFile(t, cfg), "edition =", "editoin =", 1))
	if out, code := runCmd(t, 30*time.Second, "run", "--config", bad); code != 2 {
		t.Errorf("run with a broken config: exit %d, want 2:\n%s", code, out)
	}

	blocker := filepath.Join(dir, "blocker")
	mustWrite(t, blocker, "a file where the journal's folder should be")
	noJournal := filepath.Join(dir, "nojournal.toml")
	mustWrite(t, noJournal, strings.Replace(readFile(t, cfg), filepath.Join(dir, "var", "filebridge.db"), filepath.Join(blocker, "filebridge.db"), 1))
	if out, code := runCmd(t, 30*time.Second, "run", "--config", noJournal); code != 3 {
		t.Errorf("run with a journal that cannot be opened: exit %d, want 3:\n%s", code, out)
	}

	// A refused token pauses the portal: /healthz answers 503.
	listen := testkit.FreeAddr(t)
	mustWrite(t, filepath.Join(dir, "paused", "token"), "wrong-token\n")
	cfgPaused := runConfig(t, filepath.Join(dir, "paused"), &sim{Base: s.Base, Token: "wrong-token", Edition: "A"}, listen, inboxSpec{name: "erp", url: inbox})
	p := start(t, "run (wrong token)", "run", "--config", cfgPaused)
	copySample(t, "A", "good", "SUPPLIERS_20260302.csv", inbox, "")
	body := waitHealthz(t, listen, 30*time.Second, http.StatusServiceUnavailable, "")
	if !strings.Contains(body, `"paused"`) || !strings.Contains(body, "reason") {
		t.Errorf("/healthz while paused lacks the paused state and its reason:\n%s", body)
	}
	if got := files(t, filepath.Join(inbox, "error")); len(got) > 0 {
		t.Errorf("a refused token sent files to error/: %q", got)
	}
	// `health` (a container's HEALTHCHECK) says the same: exit 1 and why.
	if out, code := runCmd(t, 30*time.Second, "health", "--config", cfgPaused); code != 1 || !strings.Contains(out, "portal main: paused") {
		t.Errorf("health while the portal is paused: exit %d, want 1 naming the paused portal:\n%s", code, out)
	}
	p.stopOK(t, "run")
	if out, code := runCmd(t, 30*time.Second, "health", "--config", cfgPaused); code != 3 || !strings.Contains(out, "no filebridge answers on "+listen) {
		t.Errorf("health with no daemon: exit %d, want 3:\n%s", code, out)
	}
}

// TestJournalOwner checks issue 8 points 6 and 7 on one daemon whose local
// inbox folder does not exist at start and which polls only every 60s:
// the folder it creates is watched (a file goes through in well under the
// poll interval); a second `run` on the same journal exits 3 naming the
// daemon's PID; `process` refuses with exit 3 and says what to do instead;
// `validate` needs no lock; once the daemon stopped, `process` works.
func TestJournalOwner(t *testing.T) {
	t.Parallel()
	s := startSim(t, "A")
	dir := t.TempDir()
	inbox := filepath.Join(dir, "in")
	cfg := runConfig(t, dir, s, "", inboxSpec{name: "erp", url: inbox, extra: `poll = "60s"`})
	p := start(t, "run", "run", "--config", cfg)
	p.waitRunning(t, 15*time.Second)
	pid := strconv.Itoa(p.cmd.Process.Pid)

	t.Run("created folder is watched", func(t *testing.T) {
		waitFor(t, 10*time.Second, "the inbox folder to be created", func() bool {
			_, err := os.Stat(inbox)
			return err == nil
		})
		// The first round may still be listing the new folder: wait for the watcher.
		waitFor(t, 10*time.Second, "the watch to start", func() bool {
			return strings.Contains(p.out.String(), "watching inbox") && !strings.Contains(p.out.String(), "file-system events unavailable")
		})
		began := time.Now()
		copySample(t, "A", "good", "SUPPLIERS_20260302.csv", inbox, "")
		allIn(t, 20*time.Second, filepath.Join(inbox, "processed"), []string{"SUPPLIERS_20260302.csv"})
		if took := time.Since(began); took > 15*time.Second {
			t.Errorf("the file took %s: the created folder is not watched (poll 60s)", took)
		}
	})

	t.Run("second run refused", func(t *testing.T) {
		out, code := runCmd(t, 30*time.Second, "run", "--config", cfg)
		if code != 3 {
			t.Errorf("a second run: exit %d, want 3:\n%s", code, out)
		}
		if !strings.Contains(out, "PID "+pid) || !strings.Contains(out, "already running") {
			t.Errorf("a second run does not name the owner's PID %s:\n%s", pid, out)
		}
	})

	sample := filepath.Join(repoRoot, "samples", "A", "good", "SKU_20260302.csv")
	t.Run("process refused", func(t *testing.T) {
		out, code := runCmd(t, 30*time.Second, "process", "--config", cfg, "--inbox", "erp", sample)
		if code != 3 {
			t.Errorf("process while the daemon runs: exit %d, want 3:\n%s", code, out)
		}
		for _, want := range []string{"PID " + pid, "owns journal", "drop the file into"} {
			if !strings.Contains(out, want) {
				t.Errorf("process while the daemon runs: the message lacks %q:\n%s", want, out)
			}
		}
		if got := files(t, inbox); has(got, "SKU_20260302.csv") {
			t.Errorf("the refused process left its file in the inbox: %q", got)
		}
	})

	t.Run("validate needs no lock", func(t *testing.T) {
		if out, code := runCmd(t, 30*time.Second, "validate", "--config", cfg, "--inbox", "erp", sample); code != 0 {
			t.Errorf("validate while the daemon runs: exit %d, want 0:\n%s", code, out)
		}
	})

	p.stopOK(t, "run")
	out, code := runCmd(t, 60*time.Second, "process", "--config", cfg, "--inbox", "erp", sample)
	if code != 0 {
		t.Errorf("process once the daemon stopped: exit %d, want 0:\n%s", code, out)
	}
}

// TestDemo runs `filebridge demo --once` twice in the same folder, for each
// edition: the first run processes the samples and writes exports, the
// second reports the good files as duplicates.
func TestDemo(t *testing.T) {
	for _, ed := range []string{"A", "B"} {
		t.Run(ed, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "demo")
			out, code := runCmd(t, 90*time.Second, "demo", "--once", "--edition", ed, "--dir", dir)
			if code != 0 {
				t.Fatalf("demo exited %d:\n%s", code, out)
			}
			for _, want := range []string{"console           http://127.0.0.1:", "→ inbox/processed/", "→ inbox/error/", "documents created", "rejected: see inbox/error/", "→ outbox/"} {
				if !strings.Contains(out, want) {
					t.Errorf("demo output lacks %q:\n%s", want, out)
				}
			}
			if len(files(t, filepath.Join(dir, "outbox"))) == 0 {
				t.Errorf("demo wrote no export into outbox/")
			}
			// The second demo runs a new, empty simulator on another port:
			// another portal, so the files are submitted again, not
			// reported duplicates (duplicates are per portal).
			out, code = runCmd(t, 90*time.Second, "demo", "--once", "--edition", ed, "--dir", dir)
			if code != 0 || strings.Contains(out, "duplicate") || !strings.Contains(out, "documents created") {
				t.Errorf("second demo (fresh simulator, fresh journal): exit %d, want 0 and documents created again:\n%s", code, out)
			}
			if out, code := runCmd(t, 30*time.Second, "check", "--config", filepath.Join(dir, "config.toml")); code != 3 {
				t.Errorf("check of the demo config with its simulator gone: exit %d, want 3:\n%s", code, out)
			}
		})
	}
}
