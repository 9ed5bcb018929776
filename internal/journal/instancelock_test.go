package journal

import (
	"errors"
	"testing"
	"time"

	"filebridge/internal/journal/pgtest"
)

// TestInstanceSurvivesRestart restarts PostgreSQL (pg_ctl restart -m
// immediate) under two instances: the one running is still alive for the
// other, a second process under its name is refused, and it takes its lock
// again on a new session (KeepInstance). It is gone for the other only once
// it stopped for good: at once when it ends under the current server, and
// a lease after its last heartbeat when it did not come back after a
// restart.
func TestInstanceSurvivesRestart(t *testing.T) {
	cluster := pgtest.Start(t)
	url := cluster.Database(t, "hold")
	ctx := t.Context()
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	clock := &fakeClock{t: t0}
	open := func(name string) *DB {
		d, err := OpenWith(ctx, Options{URL: url, Instance: name, Now: clock.now})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = d.Close() })
		return d
	}
	a, b := open("node-a"), open("node-b")
	alive := func(want bool, when string) {
		t.Helper()
		got, err := b.InstanceAlive(ctx, "node-a")
		if err != nil || got != want {
			t.Fatalf("%s: InstanceAlive(node-a) = %v, %v; want %v", when, got, err, want)
		}
	}
	twinRefused := func(when string) {
		t.Helper()
		if release, err := open("node-a").HoldInstance(ctx); !errors.Is(err, ErrInstanceInUse) {
			if err == nil {
				release()
			}
			t.Fatalf("%s: a second process named node-a: HoldInstance = %v, want ErrInstanceInUse", when, err)
		}
	}
	// restart restarts PostgreSQL, then has b's pool find out which of its
	// sessions ended (each is discarded on its first failed query).
	restart := func() {
		t.Helper()
		cluster.Restart(t)
		var err error
		for range poolSize + 1 {
			var one int
			if err = b.r.QueryRowContext(ctx, "SELECT 1").Scan(&one); err == nil {
				return
			}
		}
		t.Fatalf("no session after the restart: %v", err)
	}
	release, err := a.HoldInstance(ctx)
	if err != nil {
		t.Fatal(err)
	}
	alive(true, "running")
	twinRefused("running")

	restart()
	alive(true, "after the restart, before node-a took its lock again")
	twinRefused("after the restart")
	if err := a.KeepInstance(ctx); err != nil {
		t.Fatalf("KeepInstance after the restart: %v", err)
	}
	twinRefused("node-a took its lock again")
	clock.set(t0.Add(time.Hour)) // its heartbeat is old: only the lock tells
	alive(true, "node-a holds its lock again")
	if err := a.KeepInstance(ctx); err != nil {
		t.Fatalf("KeepInstance on a live session: %v", err)
	}

	release() // node-a stops: gone at once, its name free
	alive(false, "node-a stopped")
	again, err := open("node-a").HoldInstance(ctx)
	if err != nil {
		t.Fatalf("HoldInstance once node-a stopped: %v", err)
	}

	// The new node-a dies with the server: alive for a lease after its
	// last heartbeat, then gone, its name free.
	restart()
	clock.set(t0.Add(time.Hour + a.Lease() - time.Second))
	alive(true, "within the lease after a restart")
	clock.set(t0.Add(time.Hour + a.Lease()))
	alive(false, "a lease after a restart")
	twin, err := open("node-a").HoldInstance(ctx)
	if err != nil {
		t.Fatalf("HoldInstance once node-a did not come back within its lease: %v", err)
	}
	again()

	// A node-a that stops after a restart, before it took its lock again,
	// is gone at once, its name free.
	restart() // the clock stands still: twin's heartbeat is fresh
	twin()
	alive(false, "node-a stopped after a restart")
	last, err := open("node-a").HoldInstance(ctx)
	if err != nil {
		t.Fatalf("HoldInstance once node-a stopped after a restart: %v", err)
	}
	last()
}
