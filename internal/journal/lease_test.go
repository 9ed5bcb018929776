package journal

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// handles opens the test's journal n times, as n instances would, all on
// one injected clock set to t0.
func handles(t *testing.T, n int, t0 time.Time) (*fakeClock, []*DB) {
	t.Helper()
	clock := &fakeClock{t: t0}
	target := journalTarget(t)
	dbs := make([]*DB, n)
	for i := range dbs {
		dbs[i] = openTarget(t, target)
		dbs[i].now = clock.now
	}
	return clock, dbs
}

func TestLeaseRenewAndTakeOver(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		ctx := t.Context()
		t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
		clock, dbs := handles(t, 2, t0)
		a, b := dbs[0], dbs[1]
		if a.Instance() == b.Instance() {
			t.Fatalf("two handles share the instance name %q", a.Instance())
		}
		id, err := a.ClaimFile(ctx, File{Inbox: "erp", Name: "o.csv", Path: "processing/o.csv"})
		if err != nil {
			t.Fatal(err)
		}
		lease := a.Lease()
		steps := []struct {
			name     string
			at       time.Duration // after t0
			do       func() (bool, error)
			want     bool
			holderIs *DB
		}{
			{"a holds its fresh claim", 0, func() (bool, error) { return a.Holds(ctx, id) }, true, a},
			{"b cannot take a live claim", lease - time.Second, func() (bool, error) { return b.TakeOver(ctx, id) }, false, a},
			{"a renews", lease - time.Second, func() (bool, error) { n, err := a.RenewLeases(ctx); return n == 1, err }, true, a},
			{"b still cannot, the lease was renewed", lease + time.Second, func() (bool, error) { return b.TakeOver(ctx, id) }, false, a},
			{"b takes over once the lease ran out", 2*lease - time.Second, func() (bool, error) { return b.TakeOver(ctx, id) }, true, b},
			{"a no longer holds it", 2*lease - time.Second, func() (bool, error) { return a.Holds(ctx, id) }, false, b},
			{"a's renewal finds nothing", 2*lease - time.Second, func() (bool, error) { n, err := a.RenewLeases(ctx); return n == 1, err }, false, b},
			{"b holds it", 2*lease - time.Second, func() (bool, error) { return b.Holds(ctx, id) }, true, b},
		}
		for _, st := range steps {
			clock.set(t0.Add(st.at))
			got, err := st.do()
			if err != nil || got != st.want {
				t.Fatalf("%s: got %v, %v; want %v", st.name, got, err, st.want)
			}
			ls, err := a.Leases(ctx, "erp")
			if err != nil || len(ls) != 1 {
				t.Fatalf("%s: Leases = %v, %v", st.name, ls, err)
			}
			if ls[0].Owner != st.holderIs.Instance() || ls[0].FileID != id || ls[0].Name != "o.csv" {
				t.Errorf("%s: lease %+v, want owner %s", st.name, ls[0], st.holderIs.Instance())
			}
		}
		// A finished file has no lease to take.
		f, err := b.File(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		f.State = FileDone
		if err := b.UpdateFile(ctx, f); err != nil {
			t.Fatal(err)
		}
		clock.set(t0.Add(10 * lease))
		if ok, err := a.TakeOver(ctx, id); ok || err != nil {
			t.Errorf("TakeOver of a done file = %v, %v", ok, err)
		}
		if ls, err := a.Leases(ctx, ""); err != nil || len(ls) != 0 {
			t.Errorf("Leases after done = %v, %v", ls, err)
		}
	})
}

// TestTakeOverExactlyOneWins lets several instances race for the expired
// claims of a dead one: every file goes to exactly one of them.
func TestTakeOverExactlyOneWins(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		ctx := t.Context()
		t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
		clock, dbs := handles(t, 5, t0)
		dead, rivals := dbs[0], dbs[1:]
		const files = 20
		ids := make([]int64, files)
		for i := range ids {
			var err error
			if ids[i], err = dead.ClaimFile(ctx, File{Inbox: "erp", Name: "f.csv"}); err != nil {
				t.Fatal(err)
			}
		}
		clock.set(t0.Add(dead.Lease()))
		wins := make([]atomic.Int64, files)
		var wg sync.WaitGroup
		for _, r := range rivals {
			wg.Go(func() {
				ls, err := r.Leases(ctx, "erp")
				if err != nil {
					t.Error(err)
					return
				}
				for _, l := range ls {
					if !l.Expired(clock.now()) {
						continue
					}
					ok, err := r.TakeOver(ctx, l.FileID)
					if err != nil {
						t.Error(err)
						return
					}
					if ok {
						wins[l.FileID-ids[0]].Add(1)
					}
				}
			})
		}
		wg.Wait()
		for i := range wins {
			if n := wins[i].Load(); n != 1 {
				t.Errorf("file %d taken over %d times, want exactly once", ids[i], n)
			}
		}
		ls, err := dead.Leases(ctx, "erp")
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range ls {
			if l.Owner == dead.Instance() || l.Expired(clock.now()) {
				t.Errorf("file %d: owner %s until %v after the takeover", l.FileID, l.Owner, l.Until)
			}
		}
	})
}

// TestClaimExclusive lets several instances record the same processing/
// file at once: exactly one gets it, the others learn who has it; once the
// file is done the path can be claimed again.
func TestClaimExclusive(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		ctx := t.Context()
		_, dbs := handles(t, 5, time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC))
		const paths = 10
		var won [paths]atomic.Int32
		var wg sync.WaitGroup
		for _, d := range dbs {
			wg.Go(func() {
				for p := range paths {
					f := File{Inbox: "erp", Name: "o.csv", Path: "processing/o" + string(rune('a'+p)) + ".csv"}
					_, err := d.ClaimExclusive(ctx, f)
					var ce *ClaimedError
					switch {
					case err == nil:
						won[p].Add(1)
					case errors.As(err, &ce) && errors.Is(err, ErrClaimed):
						if ce.Lease.Path != f.Path || ce.Lease.Owner == d.Instance() {
							t.Errorf("ClaimedError names %+v for %s claimed by %s", ce.Lease, f.Path, d.Instance())
						}
					default:
						t.Error(err)
					}
				}
			})
		}
		wg.Wait()
		for p := range won {
			if n := won[p].Load(); n != 1 {
				t.Errorf("path %d claimed %d times, want exactly once", p, n)
			}
		}
		ls, err := dbs[0].Leases(ctx, "erp")
		if err != nil || len(ls) != paths {
			t.Fatalf("Leases = %d, %v; want %d", len(ls), err, paths)
		}
		// Done, the path is free for the next file of that name.
		f, err := dbs[0].File(ctx, ls[0].FileID)
		if err != nil {
			t.Fatal(err)
		}
		f.State = FileDone
		if err := dbs[0].UpdateFile(ctx, f); err != nil {
			t.Fatal(err)
		}
		// The claim is one statement (PostgreSQL takes the path's row of
		// claim_locks first), and stores what it is given.
		before := dbs[1].WriteStats()
		again := File{Inbox: "erp", Name: f.Name, Path: f.Path, Size: 55, SHA256: "ab12", DocType: "orders", Rows: 3, DocsTotal: 2, Portal: "p"}
		id, err := dbs[1].ClaimExclusive(ctx, again)
		if err != nil {
			t.Fatalf("ClaimExclusive after done: %v", err)
		}
		want := int64(1)
		if dbs[1].Shared() {
			want = 2
		}
		if n := dbs[1].WriteStats().Statements - before.Statements; n != want {
			t.Errorf("ClaimExclusive ran %d statements, want %d", n, want)
		}
		got, err := dbs[1].File(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got.Size != 55 || got.SHA256 != "ab12" || got.DocType != "orders" || got.Rows != 3 || got.DocsTotal != 2 ||
			got.Portal != "p" || got.State != FileClaimed || got.Path != f.Path {
			t.Errorf("claimed file stored as %+v", got)
		}
		if _, err := dbs[1].ClaimExclusive(ctx, File{Inbox: "erp", Name: "x.csv"}); err == nil {
			t.Error("ClaimExclusive without a path succeeded")
		}
	})
}

// TestKeepLeases drives the renewal loop with a hand-made ticker: each
// tick moves the lease to Lease after the clock.
func TestKeepLeases(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
		clock, dbs := handles(t, 2, t0)
		a, b := dbs[0], dbs[1]
		id, err := a.ClaimFile(ctx, File{Inbox: "erp", Name: "o.csv", Path: "processing/o.csv"})
		if err != nil {
			t.Fatal(err)
		}
		beat := make(chan time.Time)
		done := make(chan struct{})
		go func() {
			a.KeepLeases(ctx, beat, slog.New(slog.DiscardHandler))
			close(done)
		}()
		for i := 1; i <= 5; i++ {
			clock.set(t0.Add(time.Duration(i) * a.Lease() / 2))
			beat <- clock.now()
			beat <- clock.now() // the loop took the first beat and renewed
			if ok, err := b.TakeOver(ctx, id); ok || err != nil {
				t.Fatalf("beat %d: b took over a renewed claim (%v, %v)", i, ok, err)
			}
		}
		cancel()
		<-done
		clock.set(clock.now().Add(a.Lease()))
		if ok, err := b.TakeOver(context.Background(), id); !ok || err != nil {
			t.Errorf("TakeOver once renewals stopped = %v, %v", ok, err)
		}
	})
}

// TestReleaseLeases: an instance stopping cleanly hands its claims back at
// once; another one takes them over without waiting for the lease.
func TestReleaseLeases(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		ctx := t.Context()
		_, dbs := handles(t, 2, time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC))
		a, b := dbs[0], dbs[1]
		id, err := a.ClaimFile(ctx, File{Inbox: "erp", Name: "o.csv", Path: "processing/o.csv"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.ClaimFile(ctx, File{Inbox: "erp", Name: "p.csv", Path: "processing/p.csv"}); err != nil {
			t.Fatal(err)
		}
		if ok, err := b.TakeOver(ctx, id); ok || err != nil {
			t.Fatalf("TakeOver of a live claim = %v, %v", ok, err)
		}
		if n, err := a.ReleaseLeases(ctx); n != 1 || err != nil {
			t.Fatalf("ReleaseLeases = %d, %v; want 1 (b's claim is not a's)", n, err)
		}
		if ok, err := b.TakeOver(ctx, id); !ok || err != nil {
			t.Errorf("TakeOver of a released claim = %v, %v", ok, err)
		}
	})
}
