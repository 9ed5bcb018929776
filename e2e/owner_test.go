package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

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
	waitFor(t, 15*time.Second, "the daemon to run", func() bool { return strings.Contains(p.out.String(), "filebridge running") })
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
