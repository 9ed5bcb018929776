package outbox

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"filebridge/internal/journal"
	"filebridge/internal/model"
)

// TestRunNow: a run now on a shared journal is a tick of its own. It is
// refused while a run of the export goes on at another instance (and does
// not run); while it runs, a scheduled time of the export at another
// instance is skipped; its end (done or failed) is recorded.
func TestRunNow(t *testing.T) {
	ctx := t.Context()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	job := Job{Outbox: "erp", Type: model.ExportStock}
	failed := errors.New("portal down")
	tests := []struct {
		name    string
		busy    bool  // another instance runs the export at the start
		runErr  error // what the run returns
		wantRun bool
		want    journal.RunState // the run's own tick
	}{
		{name: "free", wantRun: true, want: journal.RunDone},
		{name: "run fails", runErr: failed, wantRun: true, want: journal.RunFailed},
		{name: "busy elsewhere", busy: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dbs := instances(t, 2, time.Minute)
			here, there := dbs[0], dbs[1]
			if tt.busy {
				if _, won, err := there.ClaimTick(ctx, "erp", "stock", at.Add(-time.Second)); err != nil || !won {
					t.Fatalf("ClaimTick = %v, %v", won, err)
				}
			}
			ran := false
			res, err := RunNow(ctx, here, at, job, func(ctx context.Context) (Result, error) {
				ran = true
				// A scheduled time comes at the other instance meanwhile.
				got, won, err := there.ClaimTick(ctx, "erp", "stock", at.Add(time.Second))
				if err != nil || won || got.State != journal.RunSkipped {
					t.Errorf("scheduled tick during the run now: %+v won %v, %v; want skipped", got, won, err)
				}
				return Result{Rows: 5, File: "STOCK_1.csv"}, tt.runErr
			})
			if ran != tt.wantRun {
				t.Fatalf("ran = %v, want %v", ran, tt.wantRun)
			}
			if !tt.wantRun {
				if !errors.Is(err, ErrExportRunning) {
					t.Fatalf("err = %v, want ErrExportRunning", err)
				}
				return
			}
			if !errors.Is(err, tt.runErr) || (tt.runErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.runErr)
			}
			if res.File != "STOCK_1.csv" {
				t.Errorf("result = %+v", res)
			}
			ticks, err := here.Ticks(ctx, "erp", "stock", 0)
			if err != nil {
				t.Fatal(err)
			}
			var own journal.ExportRun
			for _, tk := range ticks {
				if tk.Tick.Equal(at) {
					own = tk
				}
			}
			if own.State != tt.want || own.Owner != here.Instance() {
				t.Errorf("the run's tick = %+v, want %s by %s", own, tt.want, here.Instance())
			}
		})
	}

	// Without a shared journal it just runs.
	ran := false
	if _, err := RunNow(ctx, nil, at, job, func(context.Context) (Result, error) { ran = true; return Result{}, nil }); err != nil || !ran {
		t.Errorf("RunNow without ticks: ran %v, %v", ran, err)
	}
}

// TestSchedulerRunNow: a run now is refused while the scheduler runs the
// export itself, and goes through once that run ended.
func TestSchedulerRunNow(t *testing.T) {
	ctx := t.Context()
	clock := clockwork.NewFakeClockAt(time.Date(2026, 3, 1, 12, 0, 0, 500_000_000, time.UTC))
	s := NewScheduler(ctx, SchedulerOptions{withSeconds: true, clock: clock, Logger: slog.New(slog.DiscardHandler)})
	slow := &slowRunner{started: make(chan struct{}, 8), release: make(chan struct{})}
	job := Job{Outbox: "o", Type: model.ExportStock, Schedule: "0 0 * * * *"} // hourly
	if err := s.Add(job, slow); err != nil {
		t.Fatal(err)
	}
	s.Start()
	defer func() { _ = s.Shutdown() }()
	if err := clock.BlockUntilContext(ctx, 1); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour)
	<-slow.started // the scheduled run, which goes on
	ran := false
	now := func(context.Context) (Result, error) { ran = true; return Result{}, nil }
	if _, err := s.RunNow(ctx, job, now); !errors.Is(err, ErrExportRunning) || ran {
		t.Fatalf("run now beside the scheduled run: ran %v, %v; want ErrExportRunning", ran, err)
	}
	close(slow.release)
	if err := clock.BlockUntilContext(ctx, 1); err != nil {
		t.Fatal(err)
	}
	for { // the scheduled run has returned once its lock is free
		if _, err := s.RunNow(ctx, job, now); !errors.Is(err, ErrExportRunning) {
			if err != nil || !ran {
				t.Fatalf("run now after the scheduled run: ran %v, %v", ran, err)
			}
			break
		}
		runtime.Gosched()
	}
}

// TestRunNowOneHistory: a run now on a shared journal is one row of the
// history of runs: the claim of its tick, which the runner's record of the
// run, its file and its kept copy go to (no second row of the run).
func TestRunNowOneHistory(t *testing.T) {
	h := newHarness(t)
	ctx := t.Context()
	h.src.put(inbound("A", time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC), 2))
	job := receiptJob()
	res, err := RunNow(ctx, h.db, h.now, job, func(ctx context.Context) (Result, error) { return h.runner.Run(ctx, job) })
	if err != nil || res.File == "" {
		t.Fatalf("RunNow = %+v, %v", res, err)
	}
	runs, err := h.db.RecentRuns(ctx, "erp", "receipts", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 {
		t.Fatalf("history = %+v; want the one run", runs)
	}
	r := runs[0]
	if !r.Tick.Equal(h.now) || r.State != journal.RunDone || r.Owner != h.db.Instance() || r.FileName != res.File || r.Rows != res.Rows {
		t.Errorf("the run = %+v; want the tick %s done by %s, %d rows in %s", r, h.now, h.db.Instance(), res.Rows, res.File)
	}
	if _, _, err := h.db.Copy(ctx, r.ID); err != nil {
		t.Errorf("the run's kept copy: %v", err)
	}
}
