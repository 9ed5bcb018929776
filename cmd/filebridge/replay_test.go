package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"filebridge/internal/config"
	"filebridge/internal/journal"
	"filebridge/internal/model"
	"filebridge/internal/samples"
)

// TestReplayCommand: a receptions file fails on the portal because one of
// its SKUs is unknown; the SKU is then created on the portal, and replay
// puts the file through again. The reception created by the first run is
// looked up, not created twice; the journal links both runs.
func TestReplayCommand(t *testing.T) {
	// The sample routes, receptions first with policy partial; and no
	// hold: R-1 is created by the first run while R-2 fails at once on its
	// unknown SKU.
	sim, cfg, put := masterDataEnv(t, `hold_missing = "0"
[[inboxes.routes]]
match = "RECEPTIONS_*"
type = "receptions"
policy = "partial"
`+samples.Routes(model.EditionA))
	out, code := runProcessCmd(t, "--config", cfg, "--inbox", "erp", put("RECEPTIONS_1.csv", recHeader+
		"R-1,3,SUP-A,CONT40HC,2026-03-16T07:00:00Z,1,SKU-1,10\n"+
		"R-2,3,SUP-A,CONT40HC,2026-03-16T07:00:00Z,1,SKU-2,5\n"))
	t.Logf("process RECEPTIONS_1.csv: exit %d\n%s", code, out)
	receptions := func() int { return sim.Stats().Counts["purchase_orders"] }
	if n := receptions(); n != 1 {
		t.Fatalf("after the first run the portal has %d receptions, want 1 (R-1)", n)
	}
	replay := func(args ...string) (string, int) {
		return runOn(t, cfg, newReplayCmd(), args...)
	}
	// Not fixed yet: it fails again, R-1 is found, not created again.
	out, code = replay("RECEPTIONS_1.csv")
	if code != exitInvalid || !strings.Contains(out, "replaying #3 RECEPTIONS_1.csv (failed) as RECEPTIONS_1.csv") {
		t.Errorf("replay before the fix: exit %d:\n%s", code, out)
	}
	if n := receptions(); n != 1 {
		t.Errorf("after a failed replay the portal has %d receptions, want 1", n)
	}
	// The clerk creates SKU-2 on the portal.
	if out, code := runProcessCmd(t, "--config", cfg, "--inbox", "erp", put("SKU_2.csv", skuHeader+"SKU-2,Table,Birch table,7350123100587,17350123100584,4,44,50,80,4.2,17.9,39.50,SUP-A\n")); code != 0 {
		t.Fatalf("creating SKU-2: exit %d\n%s", code, out)
	}
	before := sim.Stats().Requests
	out, code = replay("RECEPTIONS_1.csv") // the newest of the name: the first replay
	if code != exitOK || !strings.Contains(out, "processed/") {
		t.Fatalf("replay after the fix: exit %d:\n%s", code, out)
	}
	if n := receptions(); n != 2 {
		t.Errorf("after the replay the portal has %d receptions, want 2 (R-1 once, R-2)", n)
	}
	t.Logf("the replay took %d requests", sim.Stats().Requests-before)

	// The journal links the runs.
	showOut, err := execute(t, newShowCmd(), false, "--config", cfg, "RECEPTIONS_1.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"state       done", "replay of   #", "R-1", "exists", "R-2", "created"} {
		if !strings.Contains(showOut.String(), want) {
			t.Errorf("show lacks %q:\n%s", want, showOut)
		}
	}
	first, _ := execute(t, newShowCmd(), false, "--config", cfg, "3")
	if !strings.Contains(first.String(), "replayed as  #") {
		t.Errorf("show of the first run lacks its replay:\n%s", first)
	}

	// A processed file needs --force; with it the duplicate check is skipped.
	if out, code := replay("SUPPLIERS_1.csv"); code != exitInvalid || !strings.Contains(out, "--force") {
		t.Errorf("replay of a processed file without --force: exit %d:\n%s", code, out)
	}
	if out, code := replay("--force", "SUPPLIERS_1.csv"); code != exitOK || strings.Contains(out, "duplicate") {
		t.Errorf("replay --force: exit %d:\n%s", code, out)
	}
	if n := sim.Stats().Counts["connections"]; n != 1 {
		t.Errorf("the portal has %d connections after the forced replay, want 1", n)
	}
	if out, code := replay("NOPE.csv"); code != exitUsage {
		t.Errorf("unknown file: exit %d:\n%s", code, out)
	}
}

// TestReplayQueued: with the daemon running, replay only puts the file
// back with its journal note.
func TestReplayQueued(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		lock bool // another process (a daemon) owns the journal
	}{
		{name: "queue flag", args: []string{"--queue"}},
		{name: "journal owned by a daemon", lock: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := journalEnv(t)
			c, err := config.Load(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if tc.lock {
				lock, err := journal.AcquireLock(c.Journal.Path)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = lock.Release() })
			}
			out := mustRunOn(t, cfg, newReplayCmd(), append(tc.args, "SUPPLIERS_BAD.csv")...)
			if !strings.Contains(out, "is back in inbox erp as SUPPLIERS_BAD.csv: the running filebridge picks it up") {
				t.Errorf("output %s", out)
			}
			if _, err := os.Stat(filepath.Join(c.Inbox("erp").Folder.Path, "SUPPLIERS_BAD.csv")); err != nil {
				t.Errorf("the file is not back in the inbox: %v", err)
			}
		})
	}
}
