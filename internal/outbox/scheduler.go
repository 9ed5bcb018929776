package outbox

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jonboulle/clockwork"

	"filebridge/internal/backoff"
	"filebridge/internal/journal"
)

// JobRunner runs one export now; *Runner is one.
type JobRunner interface {
	Run(ctx context.Context, job Job) (Result, error)
}

var _ JobRunner = (*Runner)(nil)

// Observer receives the outcome of every scheduled run, e.g. to count runs,
// rows and failures in metrics. It must not block.
type Observer interface {
	ExportRun(job Job, res Result, err error, took time.Duration)
}

// SchedulerOptions configure a Scheduler.
type SchedulerOptions struct {
	Logger   *slog.Logger // default slog.Default()
	Observer Observer     // optional

	// Ticks, when set (a journal shared by several instances), runs each
	// scheduled time of an export on exactly one instance.
	Ticks Ticks

	// clock is the clock of the schedules and of their ticks (tests: a
	// fake clock); default the real one.
	clock clockwork.Clock
	// withSeconds reads schedules with a leading seconds field (tests).
	withSeconds bool
	// claimed, when set, is told the outcome of every claim of a tick
	// (tests).
	claimed func(job Job, won bool)
}

// Ticks is what the Scheduler needs of a journal shared by several
// instances to run each scheduled time of an export (a tick) on exactly one
// of them; *journal.DB has it.
type Ticks interface {
	ClaimTick(ctx context.Context, outbox, export string, at time.Time) (journal.ExportRun, bool, error)
	TakeOverTick(ctx context.Context, outbox, export string) (journal.ExportRun, bool, error)
	FinishTick(ctx context.Context, t journal.ExportRun, rows int, file string, runErr error) error
	LastTick(ctx context.Context, outbox, export string) (journal.ExportRun, bool, error)
	ExpireTick(ctx context.Context, t journal.ExportRun) (bool, error)
	InstanceAlive(ctx context.Context, name string) (bool, error)
	Instance() string
	Lease() time.Duration
}

var _ Ticks = (*journal.DB)(nil)

// Scheduler runs exports on their cron schedules: one goroutine per
// export waits on the clock for the schedule's next time and fires it.
//
// Time zones: each export's schedule is read in its own time zone (the
// export's timezone key, Job.Location); a TZ= or CRON_TZ= prefix in a
// schedule is refused. An "@every <duration>" schedule runs at the
// multiples of the duration since the Unix epoch (every 5 minutes: at :00,
// :05...), not counted from the start, the same on every instance.
//
// Missed times: the wait is at most maxWait at a time, after which the
// wall clock is read again, so a machine that was suspended (a timer
// stands still meanwhile) or whose clock was set forward runs within
// maxWait. Of several times that passed meanwhile, the export runs once,
// for the latest: its cursor has not moved, so that run exports the rows of
// the times it missed.
//
// Overlap: an export runs one run at a time in a process (its run lock,
// also held by a redo and by a run now): a scheduled time that comes while
// a run is still going is skipped, not queued; the export runs again at
// the following schedule. Nothing is lost, since the cursor only moves
// when a run completes. (A skipped time still reaches fire and, with a
// shared journal, is recorded as a skipped tick.)
//
// Several instances (SchedulerOptions.Ticks, a shared journal): every
// instance runs the same schedules, and at each scheduled time (a tick)
// each claims the tick in the journal; exactly one wins and runs the
// export, the others do nothing (journal.DB.ClaimTick). Overlap is then
// ruled out across instances too: a tick due while the previous one still
// runs elsewhere is recorded as skipped. The runner's claim carries a
// lease, renewed while it runs (journal.DB.KeepAlive); when the runner
// dies, one other instance redoes the tick once the lease ran out
// (TakeOverAbandoned, called every Lease/3 by Watch). On PostgreSQL a
// runner known to be gone (journal.DB.InstanceAlive: its instance lock was
// dropped with its connection, and not by a restart of the server) has its
// lease ended at once, so that neither the redo nor the next tick waits
// for the lease. A run carries its tick (journal.WithTick): once its lease
// is lost it neither puts its file in place nor moves its cursor. A claim
// or the record of a run's end that the journal cannot take a moment is
// tried again (retryJournal), so a restart of the journal loses no tick.
//
// Failures: a failed run is logged (slog, level ERROR) with the export and
// the error, reported to the Observer, and retried at the next schedule;
// its cursor has not moved, so the next run exports the same rows and more.
//
// Daylight saving time (robfig/cron semantics; see
// TestSchedulerDaylightSaving): times are wall-clock times of the zone.
// When clocks go forward, a run whose time does not exist that day (02:30
// in Europe/Paris on the last Sunday of March) is skipped: the export next
// runs at its following scheduled time (a daily 02:30 export runs on
// Monday 02:30); a cursor export loses nothing, that next run includes the
// changes, but a daily stock snapshot is missing for that day. Choose a
// time outside 02:00-03:00 for zones with daylight saving time to avoid
// this. When clocks go back, a time that occurs twice (02:30 on the last
// Sunday of October) runs once, at its first occurrence; a schedule of
// several runs an hour runs at each of its times in both passes of the
// repeated hour (every 15 minutes stays every 15 minutes of real time).
type Scheduler struct {
	opts    SchedulerOptions
	log     *slog.Logger
	ctx     context.Context // of the waits and the runs; Shutdown cancels it
	cancel  context.CancelFunc
	clock   clockwork.Clock
	mu      sync.Mutex
	jobs    map[string]*scheduled // by Job.Name()
	order   []string
	started bool
	wg      sync.WaitGroup // the waits and the runs
}

// maxWait is the longest the scheduler waits on a timer before it reads
// the wall clock again (see Scheduler: missed times).
const maxWait = time.Minute

// stopWait is how long Shutdown waits for the runs it cancelled.
const stopWait = 10 * time.Second

// scheduled is one job of the Scheduler.
type scheduled struct {
	job   Job
	r     JobRunner
	sched Schedule
	log   *slog.Logger
	runMu sync.Mutex // held by a run: a take-over does not overlap a scheduled run

	mu   sync.Mutex
	next time.Time // the next scheduled time; zero before Start
}

// NewScheduler returns a scheduler whose runs take contexts derived from
// ctx; cancelling ctx cancels running exports.
func NewScheduler(ctx context.Context, opts SchedulerOptions) *Scheduler {
	log := cmp.Or(opts.Logger, slog.Default())
	clock := cmp.Or(opts.clock, clockwork.NewRealClock())
	ctx, cancel := context.WithCancel(ctx)
	return &Scheduler{opts: opts, log: log, ctx: ctx, cancel: cancel, clock: clock, jobs: map[string]*scheduled{}}
}

// Add schedules job, run by r. Jobs are named by Job.Name(), which must be
// unique.
func (s *Scheduler) Add(job Job, r JobRunner) error {
	sched, err := parseSchedule(job, s.opts.withSeconds)
	if err != nil {
		return fmt.Errorf("scheduling %s: %w", job.Name(), err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.jobs[job.Name()]; dup {
		return fmt.Errorf("scheduling %s: the outbox already has a %s export scheduled", job.Name(), job.Type)
	}
	sj := &scheduled{job: job, r: r, sched: sched,
		log: s.log.With("outbox", job.Outbox, "export", string(job.Type))}
	s.jobs[job.Name()] = sj
	s.order = append(s.order, job.Name())
	if s.started {
		s.startJob(sj)
	}
	return nil
}

// startJob sets the job's next time and starts its goroutine; s.mu is
// held.
func (s *Scheduler) startJob(sj *scheduled) {
	next := sj.sched.Next(s.clock.Now())
	sj.setNext(next)
	s.wg.Go(func() { s.loop(sj, next) })
}

func (sj *scheduled) setNext(t time.Time) {
	sj.mu.Lock()
	sj.next = t
	sj.mu.Unlock()
}

func (sj *scheduled) nextRun() time.Time {
	sj.mu.Lock()
	defer sj.mu.Unlock()
	return sj.next
}

// loop waits for the job's scheduled times, from next on, and fires each
// in a goroutine of its own (a run that goes on does not hold back the
// next time: fire skips it), until the scheduler stops.
func (s *Scheduler) loop(sj *scheduled, next time.Time) {
	for !next.IsZero() {
		timer := s.clock.NewTimer(min(next.Sub(s.clock.Now()), maxWait))
		select {
		case <-s.ctx.Done():
			timer.Stop()
			return
		case <-timer.Chan():
		}
		now := s.clock.Now()
		if now.Before(next) {
			continue
		}
		at := next // the latest time that passed: one run for the times missed
		for n := sj.sched.Next(at); !n.IsZero() && !n.After(now); n = sj.sched.Next(n) {
			at = n
		}
		if !at.Equal(next) {
			sj.log.Warn("scheduled times passed while the process was suspended or the clock jumped; the export runs once for them",
				"from", next, "to", at)
		}
		next = sj.sched.Next(at)
		sj.setNext(next)
		// Whether a run is going on is decided here, before the next timer:
		// a time that comes during a run is skipped even if that run ends
		// before fire's goroutine starts.
		locked := sj.runMu.TryLock()
		if !locked && s.opts.Ticks == nil {
			sj.log.Info("the export's previous run is still going on; this scheduled time is skipped")
			continue
		}
		s.wg.Go(func() { s.fire(s.ctx, sj, at, locked) })
	}
	sj.log.Warn("the export's schedule has no further time; it no longer runs", "schedule", sj.job.Schedule)
}

// fire is the run of the scheduled time at; locked says whether loop took
// the run lock (no run of it is going on in this process). Without a
// shared journal loop skips the time when it could not. On a shared
// journal the journal decides, for every instance alike: fire claims the
// tick even while this process still runs the export, so that every
// scheduled time has a record. ClaimTick records it as skipped while a run holds a live lease
// on an earlier tick (a redo or a run now here, or a run anywhere); a tick
// won while the lock is held (this process's last run is just finishing,
// its tick already recorded) runs once the lock is free.
func (s *Scheduler) fire(ctx context.Context, sj *scheduled, at time.Time, locked bool) {
	var claim journal.ExportRun // the tick this instance won
	if s.opts.Ticks != nil {
		if locked {
			s.expireGone(ctx, sj) // it takes runMu held: no run of this process
		}
		var got journal.ExportRun
		var won bool
		err := retryJournal(ctx, s.clock, sj.log, "claiming the tick", time.Time{}, func() (err error) {
			got, won, err = claimTick(ctx, s.opts.Ticks, sj.job, at)
			return err
		})
		if s.opts.claimed != nil {
			s.opts.claimed(sj.job, won)
		}
		if err != nil || !won {
			if locked {
				sj.runMu.Unlock()
			}
			switch {
			case err != nil:
				sj.log.Error("export not run: the journal could not say which instance runs it; it runs again at its next schedule",
					"tick", at, "error", err)
			case got.State == journal.RunSkipped && got.Owner == s.opts.Ticks.Instance():
				sj.log.Info("the export's previous run is still going on; this scheduled time is skipped", "tick", at, "why", got.Message())
			default:
				sj.log.Debug("export of this tick is another instance's", "tick", at, "instance", got.Owner, "state", got.State)
			}
			return
		}
		if !locked {
			sj.runMu.Lock()
		}
		claim = got
	}
	defer sj.runMu.Unlock()
	s.run(ctx, sj, claim)
}

// run runs the export and, when it runs a claimed tick, records its end.
func (s *Scheduler) run(ctx context.Context, sj *scheduled, claim journal.ExportRun) {
	begin := s.clock.Now()
	rctx := ctx
	if !claim.Tick.IsZero() {
		rctx = journal.WithTick(ctx, claim) // fenced: no file, no cursor once the tick is lost
	}
	res, err := sj.r.Run(rctx, sj.job)
	took := s.clock.Since(begin)
	next := sj.nextRun()
	log := sj.log
	if !claim.Tick.IsZero() {
		log = log.With("tick", claim.Tick)
		// Until the lease would run out: a journal that restarts is back
		// well before; a tick left running after it is redone.
		fctx := context.WithoutCancel(ctx)
		var ferr error
		_ = retryJournal(fctx, s.clock, sj.log, "recording the end of the tick", s.clock.Now().Add(s.opts.Ticks.Lease()), func() error {
			tctx, cancel := context.WithTimeout(fctx, 10*time.Second)
			defer cancel()
			ferr = s.opts.Ticks.FinishTick(tctx, claim, res.Rows, res.File, err)
			if errors.Is(ferr, journal.ErrNotFound) {
				return nil // not this instance's any more: nothing to retry
			}
			return ferr
		})
		if errors.Is(ferr, journal.ErrNotFound) {
			log.Warn("this run took longer than its lease and another instance took the tick over", "error", ferr)
		} else if ferr != nil {
			log.Warn("recording the end of the export's tick", "error", ferr)
		}
	}
	if err != nil {
		log.Error("export failed; it runs again at its next schedule", "error", err, "next_run", next, "took", took)
	} else {
		log.Info("export run", "rows", res.Rows, "file", res.File, "took", took, "next_run", next)
	}
	if s.opts.Observer != nil {
		s.opts.Observer.ExportRun(sj.job, res, err, took)
	}
}

// expireGone ends the lease of the export's last run when it is still
// running on an instance that is gone: this one (a previous process under
// the same name: the caller holds runMu, so no run of this process), or
// one that no longer holds its instance lock. It reports whether the last
// run is abandoned (gone, or its lease ran out), for TakeOverTick.
func (s *Scheduler) expireGone(ctx context.Context, sj *scheduled) (abandoned bool) {
	last, ok, err := s.opts.Ticks.LastTick(ctx, sj.job.Outbox, string(sj.job.Type))
	if err != nil || !ok || last.State != journal.RunRunning {
		if err != nil && ctx.Err() == nil {
			sj.log.Warn("reading the export's last tick", "error", err)
		}
		return false
	}
	if last.Abandoned(s.clock.Now()) {
		return true
	}
	if last.Owner != s.opts.Ticks.Instance() {
		alive, err := s.opts.Ticks.InstanceAlive(ctx, last.Owner)
		if err != nil || alive {
			if err != nil && ctx.Err() == nil {
				sj.log.Warn("checking whether the instance running the export is alive", "instance", last.Owner, "error", err)
			}
			return false
		}
	}
	ended, err := s.opts.Ticks.ExpireTick(ctx, last)
	if err != nil {
		sj.log.Warn("ending the lease of a run whose instance is gone", "instance", last.Owner, "tick", last.Tick, "error", err)
		return false
	}
	if ended {
		sj.log.Warn("the instance running the export stopped during the run; its lease is ended", "instance", last.Owner, "tick", last.Tick)
	}
	return true
}

// TakeOverAbandoned redoes, on this instance, the runs other instances
// left unfinished: for each export whose newest tick is still running
// under a lease that ran out, it takes the tick over (exactly one instance
// does) and runs the export, and returns once those runs ended. It does
// nothing without SchedulerOptions.Ticks.
func (s *Scheduler) TakeOverAbandoned(ctx context.Context) {
	if s.opts.Ticks == nil {
		return
	}
	s.mu.Lock()
	jobs := make([]*scheduled, 0, len(s.order))
	for _, name := range s.order {
		jobs = append(jobs, s.jobs[name])
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, sj := range jobs {
		if !sj.runMu.TryLock() {
			continue // running here: its newest tick is not abandoned
		}
		if !s.expireGone(ctx, sj) {
			sj.runMu.Unlock()
			continue
		}
		claim, won, err := claimFully(ctx, func(ctx context.Context) (journal.ExportRun, bool, error) {
			return s.opts.Ticks.TakeOverTick(ctx, sj.job.Outbox, string(sj.job.Type))
		})
		if err != nil || !won {
			sj.runMu.Unlock()
			if err != nil && ctx.Err() == nil {
				sj.log.Warn("looking for an abandoned run of the export", "error", err)
			}
			continue
		}
		sj.log.Warn("redoing the export of a tick whose instance stopped during the run", "tick", claim.Tick,
			"attempt", claim.Attempts, "note", claim.Message())
		wg.Go(func() {
			defer sj.runMu.Unlock()
			s.run(ctx, sj, claim)
		})
	}
	wg.Wait()
}

// journalRetry is the wait between tries of a journal write the schedule
// cannot do without (the claim of a tick, the record of its end).
var journalRetry = backoff.Backoff{Initial: 250 * time.Millisecond, Max: 5 * time.Second}

// retryJournal calls do until it succeeds, ctx ends or, when until is set,
// the clock passed it, waiting journalRetry between tries on clock: a
// journal that cannot be reached a moment (PostgreSQL restarting) neither
// loses a tick's record nor leaves a run unrecorded. It returns do's last
// error.
func retryJournal(ctx context.Context, clock clockwork.Clock, log *slog.Logger, doing string, until time.Time, do func() error) error {
	for attempt := 0; ; attempt++ {
		err := do()
		if err == nil || ctx.Err() != nil || !until.IsZero() && !clock.Now().Before(until) {
			return err
		}
		wait := journalRetry.Next(attempt)
		if attempt == 0 {
			log.Warn(doing+" failed; trying again until the journal answers", "error", err, "wait", wait)
		}
		select {
		case <-ctx.Done():
			return err
		case <-clock.After(wait):
		}
	}
}

// Watch calls TakeOverAbandoned at every beat of the channel until ctx
// ends; give it a ticker of the journal's Lease/3.
func (s *Scheduler) Watch(ctx context.Context, every <-chan time.Time) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-every:
			s.TakeOverAbandoned(ctx)
		}
	}
}

// Start starts running the scheduled jobs; it does not block.
func (s *Scheduler) Start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return
	}
	s.started = true
	for _, name := range s.order {
		s.startJob(s.jobs[name])
	}
}

// Jobs lists the names of the scheduled jobs in the order they were added.
func (s *Scheduler) Jobs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.order...)
}

// Shutdown stops scheduling, cancels the context of running exports and
// waits for them, stopWait at most.
func (s *Scheduler) Shutdown() error {
	s.cancel()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-time.After(stopWait):
		return fmt.Errorf("stopping the scheduler: exports still running %s after they were cancelled", stopWait)
	}
}
