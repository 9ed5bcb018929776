package outbox

import (
	"context"
	"log/slog"
	"path/filepath"
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
			if len(ticks) != 1 || ticks[0].Owner != ran || !ticks[0].At.Equal(tt.tick) || ticks[0].State != journal.TickDone ||
				ticks[0].Rows != 2 || ticks[0].File != "STOCK.csv" {
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
	if len(ticks) != 1 || ticks[0].State != journal.TickDone || ticks[0].Owner != ran || ticks[0].Attempts != 2 {
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
