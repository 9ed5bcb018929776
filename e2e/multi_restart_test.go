package e2e

import (
	"slices"
	"strings"
	"testing"
	"time"

	"filebridge/internal/journal"
)

// TestExportsThroughPostgresRestart runs two `filebridge run` instances on
// one PostgreSQL journal with two exports every 2 s (stock, and movements
// made while the test runs), each run 2.5 s long (the portal's latency),
// and restarts PostgreSQL the way a crash does (pg_ctl restart -m
// immediate) while a tick runs, three times. The tick due during a run is
// skipped only while the other instance still counts its runner as alive:
// taking the restart for the runner's death would start a second run
// beside it. Right
// after each restart a second process under the running instance's name
// is started: it must be refused. No instance dies, so no tick may be
// taken over: every scheduled time has one record, each ran on one
// instance once, and every stock movement is in exactly one file.
func TestExportsThroughPostgresRestart(t *testing.T) {
	t.Parallel()
	// Runs longer than the period: the next tick comes while one runs, and
	// is skipped only while its runner counts as alive.
	d := newExportDrill(t, "e2e_restart", 2500*time.Millisecond, exportEvery, "stock", "movements")
	db := d.db
	stopMoving := moveWarehouse(t, d.s)
	defer stopMoving()
	d.start(t, "n1", "n2")
	// The test's own queries fail while the server restarts, and once on
	// each session the restart ended: they are asked again.
	lastTick := func(export string) journal.ExportRun {
		tk, _, err := db.LastTick(t.Context(), "out", export)
		if err != nil {
			return journal.ExportRun{}
		}
		return tk
	}
	doneSince := func(since time.Time) bool {
		for _, export := range []string{"stock", "movements"} {
			ticks, err := db.Ticks(t.Context(), "out", export, 8)
			if err != nil {
				return false
			}
			if !slices.ContainsFunc(ticks, func(tk journal.ExportRun) bool {
				return tk.State == journal.RunDone && tk.StartedAt.After(since)
			}) {
				return false
			}
		}
		return true
	}
	waitFor(t, 60*time.Second, "a first tick of both exports done", func() bool { return doneSince(time.Time{}) })

	for i := range 3 {
		var running journal.ExportRun
		waitFor(t, 30*time.Second, "an export running", func() bool {
			for _, export := range []string{"stock", "movements"} {
				if tk := lastTick(export); tk.State == journal.RunRunning {
					running = tk
					return true
				}
			}
			return false
		})
		d.cluster.Restart(t)
		restarted := time.Now()
		twin := startEnv(t, "twin of "+running.Owner, []string{"FILEBRIDGE_INSTANCE=" + running.Owner}, "run", "--config", d.cfg)
		select {
		case <-twin.done:
		case <-time.After(30 * time.Second):
			t.Fatalf("restart %d: a second process named %s still runs 30s after the restart", i+1, running.Owner)
		}
		if code := twin.cmd.ProcessState.ExitCode(); code == 0 || !strings.Contains(twin.out.String(), "in use") {
			t.Errorf("restart %d: a second process named %s exited with %d:\n%s\nwant it refused: the name is in use",
				i+1, running.Owner, code, twin.out.String())
		}
		waitFor(t, 30*time.Second, "ticks of both exports done after the restart", func() bool { return doneSince(restarted) })
		t.Logf("restart %d during the run of %s/%s tick %s on %s", i+1, running.Export, running.Tick.Format(time.TimeOnly), running.Tick, running.Owner)
	}

	stopMoving()
	produced := d.finish(t, 30*time.Second, 25*time.Second)
	for _, export := range []string{"stock", "movements"} {
		checkTicks(t, db, export, produced, true)
		// No instance died: a tick taken over, or one left to a later
		// tick, ran (or began to run) on two instances.
		ticks, err := db.Ticks(t.Context(), "out", export, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, tk := range ticks {
			if tk.Attempts != 1 || tk.State == journal.RunInterrupted {
				t.Errorf("%s: tick %s is %s at attempt %d (%s): it ran on two instances", export, tk.Tick, tk.State, tk.Attempts, tk.Message())
			}
		}
	}
	checkMovements(t, d.s, d.out, produced)
}
