package outbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"filebridge/internal/journal"
	"filebridge/internal/model"
)

// slowRunner counts runs and the most runs ever in flight at once.
type slowRunner struct {
	took    time.Duration
	started chan struct{} // when set, told of each run's start
	release chan struct{} // when set, a run lasts until it is closed (took is not used)
	fail    bool
	mu      sync.Mutex
	running int
	most    int
	runs    atomic.Int32
}

func (r *slowRunner) Run(ctx context.Context, job Job) (Result, error) {
	r.mu.Lock()
	r.running++
	r.most = max(r.most, r.running)
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.running--
		r.mu.Unlock()
	}()
	r.runs.Add(1)
	if r.started != nil {
		r.started <- struct{}{}
	}
	wait := r.release
	if wait == nil {
		wait = make(chan struct{})
		time.AfterFunc(r.took, func() { close(wait) })
	}
	select {
	case <-wait:
	case <-ctx.Done():
	}
	if r.fail {
		return Result{}, errors.New("portal unreachable")
	}
	return Result{Rows: 1, File: "x.csv"}, nil
}

type countingObserver struct {
	mu   sync.Mutex
	runs int
	errs int
}

func (o *countingObserver) ExportRun(_ Job, _ Result, err error, _ time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.runs++
	if err != nil {
		o.errs++
	}
}

// TestSchedulerSingleton: a run still going on when its next times come
// is not overlapped, and those times are not queued behind it (the run
// lock skips them); on a fake clock, without waiting on real time.
func TestSchedulerSingleton(t *testing.T) {
	ctx := t.Context()
	clock := clockwork.NewFakeClockAt(time.Date(2026, 3, 1, 12, 0, 0, 500_000_000, time.UTC))
	obs := &countingObserver{}
	s := NewScheduler(ctx, SchedulerOptions{Observer: obs, withSeconds: true, clock: clock, Logger: slog.New(slog.DiscardHandler)})
	slow := &slowRunner{fail: true, started: make(chan struct{}, 8), release: make(chan struct{})}
	job := Job{Outbox: "o", Type: model.ExportStock, Schedule: "* * * * * *"} // every second
	if err := s.Add(job, slow); err != nil {
		t.Fatal(err)
	}
	s.Start()
	next := func() { // the next scheduled time, a second on
		t.Helper()
		if err := clock.BlockUntilContext(ctx, 1); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Second)
	}
	next()
	<-slow.started // the first run, which goes on
	next()         // two more scheduled times while it runs
	next()
	if err := clock.BlockUntilContext(ctx, 1); err != nil { // the scheduler waits for the next one
		t.Fatal(err)
	}
	close(slow.release)
	if err := s.Shutdown(); err != nil {
		t.Fatal(err)
	}
	slow.mu.Lock()
	defer slow.mu.Unlock()
	if slow.most != 1 {
		t.Errorf("%d runs overlapped, want 1 at a time", slow.most)
	}
	if n := slow.runs.Load(); n != 1 {
		t.Errorf("%d runs, want 1: the times that came during the run are skipped, not queued", n)
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if obs.runs != 1 || obs.errs != 1 {
		t.Errorf("observer saw %d runs, %d failed; want the one run, failed", obs.runs, obs.errs)
	}
}

func TestSchedulerTimezones(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	clock := clockwork.NewFakeClockAt(now)
	s := NewScheduler(t.Context(), SchedulerOptions{clock: clock})
	zones := map[string]time.Time{
		"UTC":              time.Date(2026, 11, 22, 2, 0, 0, 0, time.UTC),
		"Asia/Tokyo":       time.Date(2026, 11, 21, 17, 0, 0, 0, time.UTC), // 02:00 JST on the 22nd
		"America/New_York": time.Date(2026, 11, 22, 7, 0, 0, 0, time.UTC),  // 02:00 EST
		"Europe/Paris":     time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC),  // 02:00 CET
	}
	for zone := range zones {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Add(Job{Outbox: zone, Type: model.ExportStock, Schedule: "0 2 * * *", Location: loc}, &slowRunner{}); err != nil {
			t.Fatal(err)
		}
	}
	s.Start()
	defer s.Shutdown()
	for zone, want := range zones {
		got, err := s.NextRun(zone + "/stock")
		if err != nil {
			t.Fatal(err)
		}
		if !got.Equal(want) {
			t.Errorf("%s: next run %s, want %s", zone, got.UTC(), want)
		}
	}
}

func TestSchedulerRefusesTZPrefix(t *testing.T) {
	s := NewScheduler(t.Context(), SchedulerOptions{})
	for _, spec := range []string{"TZ=Europe/Paris 0 2 * * *", "CRON_TZ=UTC 0 2 * * *", "TZ=Europe/Paris", "cron_tz=UTC", "not cron"} {
		if err := s.Add(Job{Outbox: "o", Type: model.ExportStock, Schedule: spec}, &slowRunner{}); err == nil {
			t.Errorf("%q accepted", spec)
		}
	}
}

// TestSchedulerDaylightSaving pins down what the Scheduler doc comment says
// about runs in a daylight saving gap or overlap (Europe/Paris, 2026: clocks
// go forward on 29 March at 02:00, back on 25 October at 03:00).
func TestSchedulerDaylightSaving(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	at := func(mo time.Month, d, h, mi int, utcOffset int) time.Time {
		return time.Date(2026, mo, d, h, mi, 0, 0, time.FixedZone("", utcOffset*3600))
	}
	tests := []struct {
		name     string
		from     time.Time
		schedule string
		want     []time.Time
	}{
		{"daily in the spring gap is skipped that day", at(3, 27, 12, 0, 1), "30 2 * * *",
			[]time.Time{at(3, 28, 2, 30, 1), at(3, 30, 2, 30, 2), at(3, 31, 2, 30, 2)}},
		{"daily at the gap's start is skipped too", at(3, 28, 12, 0, 1), "0 2 * * *",
			[]time.Time{at(3, 30, 2, 0, 2)}},
		{"quarter-hourly across the gap", at(3, 29, 1, 40, 1), "*/15 * * * *",
			[]time.Time{at(3, 29, 1, 45, 1), at(3, 29, 3, 0, 2), at(3, 29, 3, 15, 2)}},
		{"daily in the autumn overlap runs once", at(10, 24, 12, 0, 2), "30 2 * * *",
			[]time.Time{at(10, 25, 2, 30, 2), at(10, 26, 2, 30, 1), at(10, 27, 2, 30, 1)}},
		{"quarter-hourly runs in both passes of the repeated hour", at(10, 25, 2, 40, 2), "*/15 * * * *",
			[]time.Time{at(10, 25, 2, 45, 2), at(10, 25, 2, 0, 1), at(10, 25, 2, 15, 1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sched, err := ParseSchedule(Job{Outbox: "o", Type: model.ExportStock, Schedule: tt.schedule, Location: paris})
			if err != nil {
				t.Fatal(err)
			}
			var got []time.Time // the times the scheduler's loop goes through
			for at := sched.Next(tt.from); !at.IsZero() && len(got) < len(tt.want); at = sched.Next(at) {
				got = append(got, at)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("next runs %v, want %d", got, len(tt.want))
			}
			for i := range tt.want {
				if !got[i].Equal(tt.want[i]) {
					t.Errorf("run %d at %s, want %s", i+1, got[i].In(paris), tt.want[i].In(paris))
				}
			}
		})
	}
}

// suspendedClock is a fake clock whose wall clock can jump while its
// timers stand still, as a machine's do across a suspend (a Go timer
// counts the monotonic clock, which stops meanwhile).
type suspendedClock struct {
	*clockwork.FakeClock
	mu    sync.Mutex
	ahead time.Duration
}

func (c *suspendedClock) jump(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ahead += d
}

func (c *suspendedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.FakeClock.Now().Add(c.ahead)
}

func (c *suspendedClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// TestSchedulerAfterSuspend: scheduled times that pass while the machine
// is suspended run once, for the latest of them, within maxWait of the
// resume, and the schedule goes on from there.
func TestSchedulerAfterSuspend(t *testing.T) {
	ctx := t.Context()
	d := instances(t, 1, time.Minute)[0]
	clock := &suspendedClock{FakeClock: clockwork.NewFakeClockAt(time.Date(2026, 3, 1, 12, 10, 0, 0, time.UTC))}
	claims := make(chan bool, 4)
	runs := make(observed, 4)
	runner := &tally{runs: map[string]int{}}
	s := NewScheduler(ctx, SchedulerOptions{Ticks: d, clock: clock, Logger: slog.New(slog.DiscardHandler), Observer: runs,
		claimed: func(_ Job, won bool) { claims <- won }})
	job := Job{Outbox: "erp", Type: model.ExportStock, Schedule: "0 * * * *"} // hourly
	if err := s.Add(job, instanceRunner{t: runner, name: d.Instance()}); err != nil {
		t.Fatal(err)
	}
	s.Start()
	t.Cleanup(func() { _ = s.Shutdown() })
	if err := clock.BlockUntilContext(ctx, 1); err != nil {
		t.Fatal(err)
	}
	clock.jump(3 * time.Hour) // suspended from 12:10 to 15:10: the timer did not move
	clock.Advance(maxWait)
	if !receive(t, claims, "the times missed during the suspend did not run within maxWait of the resume") {
		t.Fatal("the tick after the suspend was not won")
	}
	receive(t, runs, "the run after the suspend did not end")
	if err := clock.BlockUntilContext(ctx, 1); err != nil { // waiting for the next time
		t.Fatal(err)
	}
	ticks, err := d.Ticks(ctx, "erp", "stock", 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2026, 3, 1, 15, 0, 0, 0, time.UTC); len(ticks) != 1 || !ticks[0].Tick.Equal(want) || ticks[0].State != journal.RunDone {
		t.Fatalf("ticks = %+v; want one run, for the latest missed time %s", ticks, want)
	}
	next, err := s.NextRun(job.Name())
	if want := time.Date(2026, 3, 1, 16, 0, 0, 0, time.UTC); err != nil || !next.Equal(want) {
		t.Errorf("next run %s, %v; want %s", next, err, want)
	}
}

// NextRun returns the next time the named job ("outbox/type") runs; zero
// before Start. Only tests use it.
func (s *Scheduler) NextRun(name string) (time.Time, error) {
	s.mu.Lock()
	sj, ok := s.jobs[name]
	s.mu.Unlock()
	if !ok {
		return time.Time{}, fmt.Errorf("no export %s is scheduled", name)
	}
	return sj.nextRun(), nil
}
