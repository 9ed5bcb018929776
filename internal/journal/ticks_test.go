package journal

import (
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// claimAll has every handle claim the tick at once (or take the export's
// last tick over) and returns the handles that won.
func claimAll(t *testing.T, dbs []*DB, do func(d *DB) (ExportRun, bool, error)) []*DB {
	t.Helper()
	var mu sync.Mutex
	var won []*DB
	var wg sync.WaitGroup
	for _, d := range dbs {
		wg.Go(func() {
			_, ok, err := do(d)
			if err != nil {
				t.Error(err)
				return
			}
			if ok {
				mu.Lock()
				won = append(won, d)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return won
}

// tickHandles opens n handles of the test's journal on one clock set to
// the first tick, t0.
func tickHandles(t *testing.T, n int) (t0 time.Time, clock *fakeClock, dbs []*DB) {
	t.Helper()
	t0 = time.Date(2026, 3, 1, 2, 0, 0, 0, time.UTC)
	clock, dbs = handles(t, n, t0)
	return t0, clock, dbs
}

func TestTicksOnePerTickAndTakeOver(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		ctx := t.Context()
		t0, clock, dbs := tickHandles(t, 4)
		claim := func(d *DB) (ExportRun, bool, error) { return d.ClaimTick(ctx, "erp", "stock", t0) }

		won := claimAll(t, dbs, claim)
		if len(won) != 1 {
			t.Fatalf("%d instances won the tick, want exactly 1", len(won))
		}
		first := won[0]
		// Claiming again, later, changes nothing: the tick is recorded.
		clock.set(t0.Add(time.Second))
		if got, ok, err := dbs[0].ClaimTick(ctx, "erp", "stock", t0); ok || err != nil || got.Owner != first.Instance() {
			t.Fatalf("claim of a recorded tick = %+v, %v, %v; want not won, owner %s", got, ok, err, first.Instance())
		}

		// The winner renews while it runs: nobody takes the run over.
		clock.set(t0.Add(first.Lease() - time.Second))
		if n, err := first.RenewTicks(ctx); n != 1 || err != nil {
			t.Fatalf("RenewTicks = %d, %v; want 1", n, err)
		}
		clock.set(t0.Add(first.Lease() + time.Second))
		if won := claimAll(t, dbs, func(d *DB) (ExportRun, bool, error) { return d.TakeOverTick(ctx, "erp", "stock") }); len(won) != 0 {
			t.Fatalf("%d instances took over a run whose lease was renewed", len(won))
		}

		// The winner dies: once its lease ran out exactly one other redoes the tick.
		clock.set(t0.Add(3 * first.Lease()))
		var others []*DB
		for _, d := range dbs {
			if d != first {
				others = append(others, d)
			}
		}
		won = claimAll(t, others, func(d *DB) (ExportRun, bool, error) { return d.TakeOverTick(ctx, "erp", "stock") })
		if len(won) != 1 {
			t.Fatalf("%d instances took over the abandoned tick, want exactly 1", len(won))
		}
		second := won[0]
		tk := ExportRun{Outbox: "erp", Export: "stock", Tick: t0}
		if err := first.FinishTick(ctx, tk, 3, "late.csv", nil); !errors.Is(err, ErrNotFound) {
			t.Fatalf("FinishTick by the instance that lost the tick = %v, want ErrNotFound", err)
		}
		if err := second.FinishTick(ctx, tk, 7, "STOCK_1.csv", nil); err != nil {
			t.Fatal(err)
		}
		ticks, err := dbs[0].Ticks(ctx, "erp", "stock", 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(ticks) != 1 {
			t.Fatalf("%d ticks recorded, want 1: %+v", len(ticks), ticks)
		}
		got := ticks[0]
		if got.State != RunDone || got.Owner != second.Instance() || got.Attempts != 2 || got.Rows != 7 ||
			got.FileName != "STOCK_1.csv" || !got.Tick.Equal(t0) || got.FinishedAt.IsZero() {
			t.Errorf("tick = %+v; want done by %s in 2 attempts, 7 rows into STOCK_1.csv", got, second.Instance())
		}
		// A finished tick is never taken over.
		clock.set(t0.Add(10 * first.Lease()))
		if _, ok, err := first.TakeOverTick(ctx, "erp", "stock"); ok || err != nil {
			t.Fatalf("TakeOverTick of a finished tick = %v, %v", ok, err)
		}
	})
}

func TestTicksSkipWhileRunning(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		ctx := t.Context()
		t0, clock, dbs := tickHandles(t, 2)
		a, b := dbs[0], dbs[1]
		if _, ok, err := a.ClaimTick(ctx, "erp", "orders", t0); !ok || err != nil {
			t.Fatalf("ClaimTick = %v, %v", ok, err)
		}
		// The next tick comes while a still runs the first: skipped, once.
		t1 := t0.Add(5 * time.Second)
		clock.set(t1)
		got, ok, err := b.ClaimTick(ctx, "erp", "orders", t1)
		if ok || err != nil || got.State != RunSkipped || got.Owner != b.Instance() {
			t.Fatalf("ClaimTick while the previous tick runs = %+v, %v, %v; want skipped by b", got, ok, err)
		}
		if err := a.FinishTick(ctx, ExportRun{Outbox: "erp", Export: "orders", Tick: t0}, 0, "", errors.New("portal down")); err != nil {
			t.Fatal(err)
		}
		// Another export is not held back; the tick after runs.
		if _, ok, err := b.ClaimTick(ctx, "erp", "stock", t1); !ok || err != nil {
			t.Fatalf("ClaimTick of another export = %v, %v", ok, err)
		}
		t2 := t1.Add(5 * time.Second)
		if _, ok, err := b.ClaimTick(ctx, "erp", "orders", t2); !ok || err != nil {
			t.Fatalf("ClaimTick after the run finished = %v, %v", ok, err)
		}
		// An abandoned run is redone while it is the newest tick; once a
		// later tick ran, it is marked interrupted instead.
		clock.set(t2.Add(time.Hour))
		if _, ok, err := a.TakeOverTick(ctx, "erp", "stock"); !ok || err != nil {
			t.Fatalf("TakeOverTick of the newest, abandoned tick = %v, %v", ok, err)
		}
		t3 := t2.Add(time.Hour)
		last, err := a.LastTicks(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]RunState{"orders": RunRunning, "stock": RunRunning}
		if len(last) != 2 {
			t.Fatalf("LastTicks = %+v, want one per export", last)
		}
		for _, tk := range last {
			if tk.State != want[tk.Export] || !tk.Tick.Equal(t2) && tk.Export == "orders" {
				t.Errorf("last tick of %s = %+v", tk.Export, tk)
			}
		}
		all, err := a.Ticks(ctx, "erp", "orders", 0)
		if err != nil {
			t.Fatal(err)
		}
		states := []RunState{}
		for _, tk := range all {
			states = append(states, tk.State)
		}
		if len(states) != 3 || states[0] != RunRunning || states[1] != RunSkipped || states[2] != RunFailed {
			t.Errorf("ticks of erp/orders, newest first = %v; want running, skipped, failed", states)
		}
		// The next tick of orders marks the abandoned one interrupted.
		if _, ok, err := b.ClaimTick(ctx, "erp", "orders", t3); !ok || err != nil {
			t.Fatalf("ClaimTick after an abandoned run = %v, %v", ok, err)
		}
		all, err = a.Ticks(ctx, "erp", "orders", 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != 2 || all[0].State != RunRunning || all[1].State != RunInterrupted || all[1].FinishedAt.IsZero() {
			t.Errorf("ticks of erp/orders after a later tick = %+v; want running, interrupted", all)
		}
	})
}

func TestInstancesHeartbeat(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		ctx := t.Context()
		t0, clock, dbs := tickHandles(t, 2)
		for _, d := range dbs {
			if err := d.Heartbeat(ctx); err != nil {
				t.Fatal(err)
			}
		}
		clock.set(t0.Add(time.Minute))
		if err := dbs[1].Heartbeat(ctx); err != nil {
			t.Fatal(err)
		}
		seen, err := dbs[0].Instances(ctx, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if len(seen) != 2 || seen[0].Name != dbs[1].Instance() || !seen[0].SeenAt.Equal(t0.Add(time.Minute)) ||
			!seen[0].StartedAt.Equal(t0) || !seen[1].SeenAt.Equal(t0) {
			t.Fatalf("Instances = %+v; want %s seen at +1m (started at t0), then %s", seen, dbs[1].Instance(), dbs[0].Instance())
		}
		recent, err := dbs[0].Instances(ctx, t0.Add(time.Second))
		if err != nil || len(recent) != 1 {
			t.Fatalf("Instances seen in the last minute = %+v, %v; want 1", recent, err)
		}
	})
}

func TestInstanceAliveAndExpireTick(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		ctx := t.Context()
		target := journalTarget(t)
		open := func(name string) *DB {
			o := Options{Path: target, Instance: name}
			if isPostgresURL(target) {
				o = Options{URL: target, Instance: name}
			}
			d, err := OpenWith(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = d.Close() })
			return d
		}
		a, b := open("node-a"), open("node-b")
		release, err := a.HoldInstance(ctx)
		if err != nil {
			t.Fatal(err)
		}
		alive, err := b.InstanceAlive(ctx, "node-a")
		if err != nil || !alive {
			t.Fatalf("InstanceAlive(node-a) while it runs = %v, %v", alive, err)
		}
		if backendOf(t) == "postgres" {
			twin := open("node-a")
			if _, err := twin.HoldInstance(ctx); !errors.Is(err, ErrInstanceInUse) {
				t.Fatalf("HoldInstance under a name in use = %v, want ErrInstanceInUse", err)
			}
		}
		t0 := time.Now().UTC().Truncate(time.Second)
		tk, ok, err := a.ClaimTick(ctx, "erp", "stock", t0)
		if !ok || err != nil {
			t.Fatalf("ClaimTick = %v, %v", ok, err)
		}
		release() // node-a dies during the run
		alive, err = b.InstanceAlive(ctx, "node-a")
		if err != nil || alive != (backendOf(t) == "sqlite") {
			t.Fatalf("InstanceAlive(node-a) after it stopped = %v, %v; want false on PostgreSQL (true on SQLite: one instance)", alive, err)
		}
		last, found, err := b.LastTick(ctx, "erp", "stock")
		if err != nil || !found || last.Owner != "node-a" || last.State != RunRunning {
			t.Fatalf("LastTick = %+v, %v, %v", last, found, err)
		}
		if ok, err := b.ExpireTick(ctx, tk); !ok || err != nil {
			t.Fatalf("ExpireTick = %v, %v", ok, err)
		}
		if ok, err := b.ExpireTick(ctx, tk); ok || err != nil {
			t.Fatalf("ExpireTick of an expired run = %v, %v; want false", ok, err)
		}
		// Redone at once, not after the lease.
		got, ok, err := b.TakeOverTick(ctx, "erp", "stock")
		if !ok || err != nil || got.Owner != "node-b" || got.Attempts != 2 {
			t.Fatalf("TakeOverTick after ExpireTick = %+v, %v, %v", got, ok, err)
		}
	})
}

// TestTickFencing: a run whose tick was taken over after its lease ran out
// may neither put its file in place (OwnsTick) nor move the cursor
// (SaveCursor); and a tick claimed after a later one was recorded (the
// journal was out of reach at its time) is skipped, not run beside it.
func TestTickFencing(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		ctx := t.Context()
		t0, clock, dbs := tickHandles(t, 2)
		a, b := dbs[0], dbs[1]
		tk, won, err := a.ClaimTick(ctx, "erp", "movements", t0)
		if !won || err != nil {
			t.Fatalf("ClaimTick = %v, %v", won, err)
		}
		run := WithTick(ctx, tk)
		first := Cursor{Outbox: "erp", Export: "movements", At: t0, Keys: []string{"m1"}}
		if err := a.OwnsTick(run); err != nil {
			t.Fatalf("OwnsTick while the lease runs: %v", err)
		}
		if err := a.SaveCursor(run, first); err != nil {
			t.Fatalf("SaveCursor while the lease runs: %v", err)
		}
		clock.set(t0.Add(a.Lease()))
		if _, won, err := b.TakeOverTick(ctx, "erp", "movements"); !won || err != nil {
			t.Fatalf("TakeOverTick after the lease = %v, %v", won, err)
		}
		if err := a.OwnsTick(run); !errors.Is(err, ErrTickLost) {
			t.Errorf("OwnsTick of a tick taken over = %v, want ErrTickLost", err)
		}
		if err := a.SaveCursor(run, Cursor{Outbox: "erp", Export: "movements", At: t0.Add(time.Hour)}); !errors.Is(err, ErrTickLost) {
			t.Errorf("SaveCursor of a run whose tick was taken over = %v, want ErrTickLost", err)
		}
		if c, _, err := b.Cursor(ctx, "erp", "movements"); err != nil || !c.At.Equal(t0) {
			t.Errorf("cursor = %+v, %v; want the one saved while the lease ran (%s)", c, err, t0)
		}
		if err := a.OwnsTick(ctx); err != nil {
			t.Errorf("OwnsTick outside a run = %v, want nil", err)
		}

		// b's claim of the next tick went through; a's claim of the one
		// before comes late.
		t1 := t0.Add(time.Minute)
		if _, won, err := b.ClaimTick(ctx, "erp", "stock", t1); !won || err != nil {
			t.Fatalf("ClaimTick(t1) = %v, %v", won, err)
		}
		got, won, err := a.ClaimTick(ctx, "erp", "stock", t0)
		if won || err != nil || got.State != RunSkipped || got.Owner != a.Instance() {
			t.Errorf("late ClaimTick(t0) = %+v, %v, %v; want recorded as skipped by %s, not won", got, won, err, a.Instance())
		}
	})
}

// TestClaimQueriesUseTheTickIndex: on SQLite, a claim found by its tick
// (byTick), or the claim after a tick, is an index search of the claims
// (export_runs_tick), not a read of every run of the export: the index is
// partial, and SQLite uses it only when the query says that tick is not
// empty.
func TestClaimQueriesUseTheTickIndex(t *testing.T) {
	d := openTarget(t, filepath.Join(t.TempDir(), "journal.db"))
	for _, q := range []string{
		`SELECT id FROM export_runs WHERE ` + byTick,
		`SELECT id FROM export_runs WHERE outbox = ? AND export = ? AND tick != '' AND tick > ? ORDER BY tick LIMIT 1`,
	} {
		rows, err := d.r.QueryContext(t.Context(), `EXPLAIN QUERY PLAN `+q, "erp", "stock", "2026-01-01T00:00:00.000000000Z")
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		if len(plan) != 1 || !strings.Contains(plan[0], "INDEX export_runs_tick ") {
			t.Errorf("plan of %s:\n%s\nwant a search of export_runs_tick", q, strings.Join(plan, "\n"))
		}
	}
}

// oneRunOfThree has three instances claim one tick of erp/stock at t0 and
// returns the one that won it: the tests then play a new process of that
// instance's name.
func oneRunOfThree(t *testing.T) (t0 time.Time, clock *fakeClock, dbs []*DB, won *DB) {
	t.Helper()
	t0, clock, dbs = tickHandles(t, 3)
	winners := claimAll(t, dbs, func(d *DB) (ExportRun, bool, error) { return d.ClaimTick(t.Context(), "erp", "stock", t0) })
	if len(winners) != 1 {
		t.Fatalf("%d instances won the tick, want exactly 1", len(winners))
	}
	return t0, clock, dbs, winners[0]
}

// TestReleaseTicksOfEarlierProcess: an instance killed during a run and
// started again under the same name must not keep the run's lease alive
// (RenewTicks renews by name): at start it releases the runs its name
// holds, and another instance redoes the tick at once, within the lease.
func TestReleaseTicksOfEarlierProcess(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		ctx := t.Context()
		t0, clock, dbs, restarted := oneRunOfThree(t)
		clock.set(t0.Add(time.Second))
		if n, err := restarted.RenewTicks(ctx); n != 1 || err != nil {
			t.Fatalf("RenewTicks = %d, %v; want the earlier process's run renewed, 1", n, err)
		}
		if n, err := restarted.ReleaseTicks(ctx); n != 1 || err != nil {
			t.Fatalf("ReleaseTicks = %d, %v; want 1", n, err)
		}
		var others []*DB
		for _, d := range dbs {
			if d != restarted {
				others = append(others, d)
			}
		}
		if won := claimAll(t, others, func(d *DB) (ExportRun, bool, error) { return d.TakeOverTick(ctx, "erp", "stock") }); len(won) != 1 {
			t.Fatalf("%d instances took over the released run within its lease, want exactly 1", len(won))
		}
		if n, err := restarted.ReleaseTicks(ctx); n != 0 || err != nil {
			t.Fatalf("ReleaseTicks after the take-over = %d, %v; want 0", n, err)
		}
	})
}

// TestEndedLeaseNotRenewed: a run whose lease ended (another instance saw
// its process gone, or a new process of its name released it at start) is
// not renewed by RenewTicks of a process of the same name: it stays
// abandoned, for a take-over or the next tick, instead of holding every
// later tick of its export back as "still going on" for ever.
func TestEndedLeaseNotRenewed(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		ctx := t.Context()
		t0, clock, dbs, restarted := oneRunOfThree(t)
		other := dbs[0]
		if other == restarted {
			other = dbs[1]
		}
		run, ok, err := restarted.LastTick(ctx, "erp", "stock")
		if !ok || err != nil {
			t.Fatalf("LastTick = %v, %v", ok, err)
		}
		if ended, err := other.ExpireTick(ctx, run); !ended || err != nil {
			t.Fatalf("ExpireTick = %v, %v; want the lease ended", ended, err)
		}
		clock.set(t0.Add(time.Second))
		if n, err := restarted.RenewTicks(ctx); n != 0 || err != nil {
			t.Fatalf("RenewTicks of a run whose lease ended = %d, %v; want 0", n, err)
		}
		next := t0.Add(time.Minute)
		clock.set(next)
		got, ok, err := other.ClaimTick(ctx, "erp", "stock", next)
		if !ok || err != nil {
			t.Fatalf("the next tick = %+v, %v, %v; want it won, not held back by the abandoned run", got, ok, err)
		}
	})
}
