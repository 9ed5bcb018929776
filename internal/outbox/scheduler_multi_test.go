package outbox

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"filebridge/internal/journal"
	"filebridge/internal/model"
)

// tally counts the runs of each instance.
type tally struct {
	mu   sync.Mutex
	runs map[string]int
	last string
}

// observed is an Observer that signals every run it is told of (the
// Scheduler tells it once the run and its tick are recorded).
type observed chan struct{}

func (o observed) ExportRun(Job, Result, error, time.Duration) { o <- struct{}{} }

// instanceRunner is the runner of one instance.
type instanceRunner struct {
	t    *tally
	name string
}

func (r instanceRunner) Run(context.Context, Job) (Result, error) {
	r.t.mu.Lock()
	r.t.runs[r.name]++
	r.t.last = r.name
	r.t.mu.Unlock()
	return Result{Rows: 2, File: "STOCK.csv"}, nil
}

// instances opens n handles of one SQLite journal, as n instances named
// i1, i2... (the journal tests run ClaimTick on PostgreSQL too).
func instances(t *testing.T, n int, lease time.Duration) []*journal.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "journal.db")
	dbs := make([]*journal.DB, n)
	for i := range dbs {
		d, err := journal.OpenWith(t.Context(), journal.Options{Path: path, Instance: "i" + string(rune('1'+i)), Lease: lease})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = d.Close() })
		dbs[i] = d
	}
	return dbs
}

func TestSchedulerOneInstancePerTick(t *testing.T) {
	tests := []struct {
		schedule string
		start    time.Time
		advance  time.Duration
		tick     time.Time
	}{
		{"*/5 * * * *", time.Date(2026, 3, 1, 12, 3, 0, 0, time.UTC), 2 * time.Minute, time.Date(2026, 3, 1, 12, 5, 0, 0, time.UTC)},
		{"@every 3s", time.Date(2026, 3, 1, 12, 0, 1, 0, time.UTC), 2 * time.Second, time.Date(2026, 3, 1, 12, 0, 3, 0, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.schedule, func(t *testing.T) {
			const n = 4
			dbs := instances(t, n, 0)
			clock := clockwork.NewFakeClockAt(tt.start)
			claims := make(chan bool, n)
			runner := &tally{runs: map[string]int{}}
			runs := make(observed, n)
			job := Job{Outbox: "erp", Type: model.ExportStock, Schedule: tt.schedule}
			for _, d := range dbs {
				s := NewScheduler(t.Context(), SchedulerOptions{Ticks: d, clock: clock, Logger: slog.New(slog.DiscardHandler), Observer: runs,
					claimed: func(_ Job, won bool) { claims <- won }})
				if err := s.Add(job, instanceRunner{t: runner, name: d.Instance()}); err != nil {
					t.Fatal(err)
				}
				s.Start()
				t.Cleanup(func() { _ = s.Shutdown() })
			}
			if err := clock.BlockUntilContext(t.Context(), n); err != nil {
				t.Fatal(err)
			}
			clock.Advance(tt.advance)
			won := 0
			for range n {
				if <-claims {
					won++
				}
			}
			if won != 1 {
				t.Fatalf("%d instances won the tick, want exactly 1", won)
			}
			<-runs
			runner.mu.Lock()
			ran := runner.last
			runner.mu.Unlock()
			ticks, err := dbs[0].Ticks(t.Context(), "erp", "stock", 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(ticks) != 1 || ticks[0].Owner != ran || !ticks[0].Tick.Equal(tt.tick) || ticks[0].State != journal.RunDone ||
				ticks[0].Rows != 2 || ticks[0].FileName != "STOCK.csv" {
				t.Fatalf("ticks = %+v; want the tick %s done by %s", ticks, tt.tick, ran)
			}
			runner.mu.Lock()
			defer runner.mu.Unlock()
			if len(runner.runs) != 1 || runner.runs[ran] != 1 {
				t.Errorf("runs by instance = %v, want one run by %s", runner.runs, ran)
			}
		})
	}
}

func TestSchedulerTakesOverAbandonedTick(t *testing.T) {
	ctx := t.Context()
	dbs := instances(t, 4, 0)
	// The first instance runs the tick and dies: its lease (1 ns here) runs out unrenewed.
	dead, err := journal.OpenWith(ctx, journal.Options{Path: dbs[0].Path(), Instance: "dead", Lease: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	defer dead.Close()
	tick := time.Date(2026, 3, 1, 2, 0, 0, 0, time.UTC)
	if _, ok, err := dead.ClaimTick(ctx, "erp", "shipments", tick); !ok || err != nil {
		t.Fatalf("ClaimTick = %v, %v", ok, err)
	}
	runner := &tally{runs: map[string]int{}}
	runs := make(observed, len(dbs))
	job := Job{Outbox: "erp", Type: model.ExportShipments, Schedule: "0 2 * * *"}
	scheds := make([]*Scheduler, len(dbs))
	for i, d := range dbs {
		scheds[i] = NewScheduler(ctx, SchedulerOptions{Ticks: d, Observer: runs, Logger: slog.New(slog.DiscardHandler)})
		if err := scheds[i].Add(job, instanceRunner{t: runner, name: d.Instance()}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for _, s := range scheds {
		wg.Go(func() { s.TakeOverAbandoned(ctx) })
	}
	wg.Wait()
	if len(runs) != 1 {
		t.Fatalf("%d instances redid the abandoned tick, want exactly 1", len(runs))
	}
	runner.mu.Lock()
	ran := runner.last
	runner.mu.Unlock()
	ticks, err := dbs[0].Ticks(ctx, "erp", "shipments", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ticks) != 1 || ticks[0].State != journal.RunDone || ticks[0].Owner != ran || ticks[0].Attempts != 2 {
		t.Fatalf("ticks = %+v; want the tick done by %s at its second attempt", ticks, ran)
	}
	// Done, the tick is not redone again.
	for _, s := range scheds {
		s.TakeOverAbandoned(ctx)
	}
	if len(runs) != 1 {
		t.Errorf("a finished tick was redone")
	}
}

// receive waits for a value of ch, failing the test after 30s with why
// (a guard against a hang, not a wait on real time).
func receive[T any](t *testing.T, ch <-chan T, why string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatal(why)
		var zero T
		return zero
	}
}

// blockingRunner runs until release is closed, saying on started that it
// began.
type blockingRunner struct{ started, release chan struct{} }

func (r blockingRunner) Run(context.Context, Job) (Result, error) {
	r.started <- struct{}{}
	<-r.release
	return Result{Rows: 1, File: "STOCK.csv"}, nil
}

// TestSchedulerRecordsTickSkippedWhileRedoing: a scheduled time that comes
// while this instance still redoes an abandoned tick is not run, and is
// recorded as skipped, naming the tick whose run goes on: the journal has
// a record of every scheduled time even when no other instance is there to
// claim it.
func TestSchedulerRecordsTickSkippedWhileRedoing(t *testing.T) {
	ctx := t.Context()
	dbs := instances(t, 1, time.Minute)
	d := dbs[0]
	dead, err := journal.OpenWith(ctx, journal.Options{Path: d.Path(), Instance: "dead", Lease: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	defer dead.Close()
	// The journal measures leases on the real clock: the scheduler's
	// starts a little later, so that the dead instance's lease is over.
	start := time.Now().Add(time.Minute).Truncate(3 * time.Second).Add(time.Second)
	abandoned := start.Truncate(3 * time.Second)
	if _, ok, err := dead.ClaimTick(ctx, "erp", "stock", abandoned); !ok || err != nil {
		t.Fatalf("ClaimTick = %v, %v", ok, err)
	}
	clock := clockwork.NewFakeClockAt(start)
	claims := make(chan bool, 1)
	r := blockingRunner{started: make(chan struct{}, 1), release: make(chan struct{})}
	s := NewScheduler(ctx, SchedulerOptions{Ticks: d, clock: clock, Logger: slog.New(slog.DiscardHandler),
		claimed: func(_ Job, won bool) { claims <- won }})
	if err := s.Add(Job{Outbox: "erp", Type: model.ExportStock, Schedule: "@every 3s"}, r); err != nil {
		t.Fatal(err)
	}
	s.Start()
	t.Cleanup(func() { _ = s.Shutdown() })
	release := sync.OnceFunc(func() { close(r.release) })
	t.Cleanup(release) // before the Shutdown, should the test fail first
	redone := make(chan struct{})
	go func() { s.TakeOverAbandoned(ctx); close(redone) }()
	receive(t, r.started, "the abandoned tick was not redone") // the redo holds the export's run lock
	if err := clock.BlockUntilContext(ctx, 1); err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Second) // the next scheduled time
	if receive(t, claims, "the scheduled time that came during the redo was not claimed: the journal has no record of it") {
		t.Fatalf("the tick that came during the redo was won, want it skipped")
	}
	release()
	<-redone
	ticks, err := d.Ticks(ctx, "erp", "stock", 0)
	if err != nil {
		t.Fatal(err)
	}
	next := abandoned.Add(3 * time.Second)
	if len(ticks) != 2 || !ticks[0].Tick.Equal(next) || ticks[0].State != journal.RunSkipped || ticks[0].Owner != d.Instance() ||
		!strings.Contains(ticks[0].Message(), "still going on at instance "+d.Instance()) ||
		!ticks[1].Tick.Equal(abandoned) || ticks[1].State != journal.RunDone || ticks[1].Attempts != 2 {
		t.Fatalf("ticks = %+v; want %s skipped by %s (its redo of %s going on), and %s done at the second attempt",
			ticks, next, d.Instance(), abandoned, abandoned)
	}
}

// TestSchedulerRunsTickWonWhileFinishing: a scheduled time that comes
// while this process's previous run is finishing (its tick already
// recorded, its run lock not yet released) is won, and so runs once the
// lock is free: neither skipped without a record nor recorded as failed.
func TestSchedulerRunsTickWonWhileFinishing(t *testing.T) {
	ctx := t.Context()
	d := instances(t, 1, time.Minute)[0]
	clock := clockwork.NewFakeClockAt(time.Now().Truncate(3 * time.Second).Add(time.Second))
	claims := make(chan bool, 1)
	runs := make(observed, 1)
	runner := &tally{runs: map[string]int{}}
	s := NewScheduler(ctx, SchedulerOptions{Ticks: d, clock: clock, Logger: slog.New(slog.DiscardHandler), Observer: runs,
		claimed: func(_ Job, won bool) { claims <- won }})
	job := Job{Outbox: "erp", Type: model.ExportStock, Schedule: "@every 3s"}
	if err := s.Add(job, instanceRunner{t: runner, name: d.Instance()}); err != nil {
		t.Fatal(err)
	}
	sj := s.jobs[job.Name()]
	sj.runMu.Lock() // the previous run, finishing
	s.Start()
	t.Cleanup(func() { _ = s.Shutdown() })
	if err := clock.BlockUntilContext(ctx, 1); err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Second)
	if !receive(t, claims, "the scheduled time that came while the run lock was held was not claimed") {
		t.Fatal("the tick was not won, with no run of the export in the journal")
	}
	runner.mu.Lock()
	early := runner.runs[d.Instance()]
	runner.mu.Unlock()
	if early != 0 {
		t.Fatalf("the export ran while the previous run held the lock")
	}
	sj.runMu.Unlock()
	receive(t, runs, "the tick won while the lock was held did not run once it was free")
	ticks, err := d.Ticks(ctx, "erp", "stock", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ticks) != 1 || ticks[0].State != journal.RunDone || ticks[0].Owner != d.Instance() || ticks[0].Attempts != 1 {
		t.Fatalf("ticks = %+v; want one tick done by %s", ticks, d.Instance())
	}
}

// stopDuringClaim is a journal whose tick claims are made, after which
// the daemon's stop comes, and which then says what a driver says of a
// commit its caller's context cancelled midway: the context's error,
// though the claim was made (seen in CI on PostgreSQL).
type stopDuringClaim struct {
	*journal.DB
	stop context.CancelFunc
}

func (j stopDuringClaim) ClaimTick(ctx context.Context, outbox, export string, at time.Time) (journal.ExportRun, bool, error) {
	got, won, err := j.DB.ClaimTick(context.WithoutCancel(ctx), outbox, export, at)
	j.stop()
	if ctx.Err() != nil {
		return journal.ExportRun{}, false, ctx.Err()
	}
	return got, won, err
}

// TestSchedulerStopDuringClaim: a stop that comes while a tick is being
// claimed leaves no run recorded as running for nobody: the claim is let
// finish, and the tick won is recorded as ended (the export's run sees
// the stop), where the claimant used to give up on the claim's answer and
// leave the tick it had claimed running in the journal.
func TestSchedulerStopDuringClaim(t *testing.T) {
	d := instances(t, 1, time.Minute)[0]
	ctx, stop := context.WithCancel(t.Context())
	clock := clockwork.NewFakeClockAt(time.Now().Truncate(3 * time.Second).Add(time.Second))
	claims := make(chan bool, 1)
	s := NewScheduler(ctx, SchedulerOptions{Ticks: stopDuringClaim{d, stop}, clock: clock, Logger: slog.New(slog.DiscardHandler),
		claimed: func(_ Job, won bool) { claims <- won }})
	if err := s.Add(Job{Outbox: "erp", Type: model.ExportStock, Schedule: "@every 3s"}, instanceRunner{t: &tally{runs: map[string]int{}}, name: d.Instance()}); err != nil {
		t.Fatal(err)
	}
	s.Start()
	if err := clock.BlockUntilContext(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Second)
	receive(t, claims, "the scheduled time was not claimed")
	if err := s.Shutdown(); err != nil {
		t.Fatal(err)
	}
	ticks, err := d.Ticks(t.Context(), "erp", "stock", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ticks) != 1 || ticks[0].State == journal.RunRunning || ticks[0].Owner != d.Instance() {
		t.Fatalf("ticks = %+v; want the one tick claimed by %s, ended", ticks, d.Instance())
	}
}
