package e2e

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"
)

// TestCrashResume kills `filebridge run` with SIGKILL at random (seeded)
// moments while it submits 500-order files to a simulator slowed down by
// --latency, restarts it, and repeats 20 times (3 with -short). Whenever a
// file is through, the next one is dropped, so that every kill lands in a
// submission. At the end every order exists exactly once on the portal,
// no create was sent twice (the simulator counts creates refused as
// repeats) and every file is in processed/.
func TestCrashResume(t *testing.T) {
	kills := 20
	if testing.Short() {
		kills = 3
	}
	const perFile = 500
	s, dir, inbox := simAndInbox(t, "A", "--preload", "50", "--latency", "60ms")
	cfg := runConfig(t, dir, s, "", inboxSpec{name: "erp", url: inbox, extra: `settle = "100ms"`})
	processed := filepath.Join(inbox, "processed")
	rng := rand.New(rand.NewPCG(20261121, 42))

	var dropped []string
	drop := func() {
		name := fmt.Sprintf("ORDERS_CRASH_%02d.csv", len(dropped))
		prefix := fmt.Sprintf("CR%02d-", len(dropped))
		writeAtomic(t, filepath.Join(inbox, name), ordersFile("A", prefix, perFile, 1, 50))
		dropped = append(dropped, name)
	}
	drop()
	killRuns(t, cfg, kills, rng, 150*time.Millisecond, 700*time.Millisecond, func() {
		if has(files(t, processed), dropped[len(dropped)-1]) {
			drop()
		}
	})
	finalRun(t, cfg, processed, dropped)

	// A document in flight at a kill is looked up before anything is
	// sent: not one create reaches the portal twice.
	s.ordersOnce(t, len(dropped)*perFile)
	for _, n := range dropped {
		rep := readReport(t, findFile(t, processed, stem(n)+".report.csv"))
		res := rep.results()
		if res["created"]+res["exists"] != perFile {
			t.Errorf("report of %s: %v, want %d documents created or existing", n, res, perFile)
		}
		t.Logf("%s: %v", n, res)
	}
	if left := files(t, filepath.Join(inbox, "processing")); len(left) > 0 {
		t.Errorf("files left in processing/: %q", left)
	}
	t.Logf("%d kills over %d files of %d orders", kills, len(dropped), perFile)
}

// killRuns starts `run` kills times and kills each with SIGKILL after a
// random (rng) pause of least plus up to spread; before, when not nil,
// is called ahead of each start. A run that exits by itself fails the
// test.
func killRuns(t *testing.T, cfg string, kills int, rng *rand.Rand, least, spread time.Duration, before func()) {
	t.Helper()
	for k := range kills {
		if before != nil {
			before()
		}
		p := start(t, fmt.Sprintf("run #%d", k), "run", "--config", cfg)
		time.Sleep(least + time.Duration(rng.IntN(int(spread.Milliseconds())))*time.Millisecond)
		if p.exited() {
			t.Fatalf("run #%d exited by itself: %v", k, p.err)
		}
		p.kill()
	}
}

// finalRun starts `run` once more, waits until every name is under
// processed and stops it, which must exit 0.
func finalRun(t *testing.T, cfg, processed string, names []string) {
	t.Helper()
	p := start(t, "run (final)", "run", "--config", cfg)
	allIn(t, 90*time.Second, processed, names)
	p.stopOK(t, "the final run")
}
