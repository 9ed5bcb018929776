package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestUpgradeFromF2cdbaa starts this filebridge on the SQLite journal the
// release of commit f2cdbaa wrote (internal/journal/testdata/f2cdbaa.db:
// its `demo --once --edition A`, inbox "demo"): `files` says to run
// filebridge once to upgrade it (exit 3, no SQL error); then a sample that
// release processed, dropped again, is a duplicate: none of its documents
// is POSTed again (the simulator holds them already: a fresh journal
// processed the sample there first).
func TestUpgradeFromF2cdbaa(t *testing.T) {
	t.Parallel()
	s := startSim(t, "A")
	sample := filepath.Join(repoRoot, "samples", "A", "good", "SUPPLIERS_20260302.csv")
	process := func(cfg string) string {
		t.Helper()
		out, code := runCmd(t, 60*time.Second, "process", "--config", cfg, "--inbox", "demo", sample)
		if code != 0 {
			t.Fatalf("filebridge process: exit %d:\n%s", code, out)
		}
		return out
	}
	seed := t.TempDir()
	process(runConfig(t, seed, s, "", inboxSpec{name: "demo", url: mkdir(t, seed, "in")}))
	before := s.stats(t)

	dir := t.TempDir()
	cfg := runConfig(t, dir, s, "", inboxSpec{name: "demo", url: mkdir(t, dir, "in")})
	old, err := os.ReadFile(filepath.Join(repoRoot, "internal", "journal", "testdata", "f2cdbaa.db"))
	if err != nil {
		t.Fatal(err)
	}
	writeAtomic(t, filepath.Join(mkdir(t, dir, "var"), "filebridge.db"), old)

	out, code := runCmd(t, 30*time.Second, "files", "--config", cfg)
	if code != 3 || !strings.Contains(out, "run `filebridge run` (or `filebridge process`) once to upgrade the journal") || strings.Contains(out, "SQL") {
		t.Errorf("files on the old journal: exit %d:\n%s\nwant exit 3 saying to run filebridge once to upgrade the journal", code, out)
	}
	if out := process(cfg); !strings.Contains(out, "duplicate") {
		t.Errorf("a sample processed before the upgrade, dropped again, is not a duplicate:\n%s", out)
	}
	after := s.stats(t)
	if after.RepeatedCreates != 0 || after.Counts["connections"] != before.Counts["connections"] {
		t.Errorf("after the duplicate: %d repeated creates, %d partners (%d before); want 0 and no new one",
			after.RepeatedCreates, after.Counts["connections"], before.Counts["connections"])
	}
	out, code = runCmd(t, 30*time.Second, "files", "--config", cfg)
	if code != 0 || !strings.Contains(out, "SUPPLIERS_20260302.csv") {
		t.Errorf("files on the upgraded journal: exit %d:\n%s", code, out)
	}
}
