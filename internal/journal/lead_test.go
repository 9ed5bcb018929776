package journal

import (
	"sync"
	"sync/atomic"
	"testing"
)

func TestTryLead(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		ctx := t.Context()
		target := journalTarget(t)
		const n = 4
		dbs := make([]*DB, n)
		for i := range dbs {
			dbs[i] = openTarget(t, target)
		}
		if backendOf(t) == "sqlite" {
			// One owner per SQLite journal: it always leads.
			release, ok, err := dbs[0].TryLead(ctx, "erp/stock")
			if !ok || err != nil {
				t.Fatalf("TryLead on SQLite = %v, %v", ok, err)
			}
			release()
			return
		}
		var leaders atomic.Int32
		releases := make([]func(), n)
		var wg sync.WaitGroup
		for i, d := range dbs {
			wg.Go(func() {
				release, ok, err := d.TryLead(ctx, "erp/stock 2026-03-01T02:00")
				if err != nil {
					t.Error(err)
					return
				}
				if ok {
					leaders.Add(1)
					releases[i] = release
				}
			})
		}
		wg.Wait()
		if got := leaders.Load(); got != 1 {
			t.Fatalf("%d leaders, want exactly 1", got)
		}
		// Another name has its own leader.
		other, ok, err := dbs[0].TryLead(ctx, "erp/items 2026-03-01T02:00")
		if !ok || err != nil {
			t.Fatalf("TryLead of another name = %v, %v", ok, err)
		}
		other()
		// Released, the lead goes to whoever asks next.
		for i, r := range releases {
			if r == nil {
				continue
			}
			r()
			next := dbs[(i+1)%n]
			release, ok, err := next.TryLead(ctx, "erp/stock 2026-03-01T02:00")
			if !ok || err != nil {
				t.Fatalf("TryLead after release = %v, %v", ok, err)
			}
			release()
		}
		// A leader that dies (its session ends: here the server ends it)
		// loses the lead at once.
		if _, ok, err := dbs[1].TryLead(ctx, "erp/cursor"); !ok || err != nil {
			t.Fatalf("TryLead = %v, %v", ok, err)
		}
		if _, ok, _ := dbs[2].TryLead(ctx, "erp/cursor"); ok {
			t.Fatal("two leaders for erp/cursor")
		}
		if _, err := dbs[3].w.ExecContext(ctx, `SELECT pg_terminate_backend(pid, 10000) FROM pg_locks
			WHERE locktype = 'advisory' AND pid <> pg_backend_pid()
			AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`); err != nil {
			t.Fatal(err)
		}
		release, ok, err := dbs[2].TryLead(ctx, "erp/cursor")
		if !ok || err != nil {
			t.Fatalf("TryLead after the leader died = %v, %v", ok, err)
		}
		release()
	})
}
