package outbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/go-co-op/gocron/v2"
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

	// extra is appended to the options of every gocron scheduler (tests:
	// a fake clock).
	extra []gocron.SchedulerOption
	// withSeconds reads schedules with a leading seconds field (tests).
	withSeconds bool
}

// Scheduler runs exports on their cron schedules with gocron v2.
//
// Time zones: each export's schedule is read in its own time zone (jobs
// are grouped into one gocron scheduler per zone, created with
// gocron.WithLocation); a TZ= or CRON_TZ= prefix in a schedule is refused,
// the config's timezone key is the only way to set a zone.
//
// Overlap: every job runs in singleton mode (gocron.LimitModeReschedule): a
// run that is still going when the next one is due makes that next one
// skip; the export runs again at the following schedule. Nothing is lost,
// since the cursor only moves when a run completes.
//
// Failures: a failed run is logged (slog, level ERROR) with the export and
// the error, reported to the Observer, and retried at the next schedule;
// its cursor has not moved, so the next run exports the same rows and more.
//
// Daylight saving time (robfig/cron semantics, as gocron uses them; see
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
	opts   SchedulerOptions
	log    *slog.Logger
	ctx    context.Context
	mu     sync.Mutex
	scheds map[string]gocron.Scheduler // by zone name
	jobs   map[string]gocron.Job       // by Job.Name()
	order  []string
	start  bool
}

// NewScheduler returns a scheduler whose runs take contexts derived from
// ctx; cancelling ctx cancels running exports.
func NewScheduler(ctx context.Context, opts SchedulerOptions) *Scheduler {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Scheduler{opts: opts, log: log, ctx: ctx, scheds: map[string]gocron.Scheduler{}, jobs: map[string]gocron.Job{}}
}

// Add schedules job, run by r. Jobs are named by Job.Name(), which must be
// unique.
func (s *Scheduler) Add(job Job, r JobRunner) error {
	spec := strings.TrimSpace(job.Schedule)
	if up := strings.ToUpper(spec); strings.HasPrefix(up, "TZ=") || strings.HasPrefix(up, "CRON_TZ=") {
		return fmt.Errorf("scheduling %s: schedule %q: remove the TZ= prefix and set the export's timezone instead", job.Name(), job.Schedule)
	}
	loc := job.Location
	if loc == nil {
		loc = time.UTC
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.jobs[job.Name()]; dup {
		return fmt.Errorf("scheduling %s: the outbox already has a %s export scheduled", job.Name(), job.Type)
	}
	gs, ok := s.scheds[loc.String()]
	if !ok {
		var err error
		gs, err = gocron.NewScheduler(append([]gocron.SchedulerOption{gocron.WithLocation(loc)}, s.opts.extra...)...)
		if err != nil {
			return fmt.Errorf("scheduling %s: creating the scheduler of time zone %s: %w", job.Name(), loc, err)
		}
		s.scheds[loc.String()] = gs
		if s.start {
			gs.Start()
		}
	}
	log := s.log.With("outbox", job.Outbox, "export", string(job.Type))
	task := func(ctx context.Context) {
		begin := time.Now()
		res, err := r.Run(ctx, job)
		took := time.Since(begin)
		next, _ := s.NextRun(job.Name())
		if err != nil {
			log.Error("export failed; it runs again at its next schedule", "error", err, "next_run", next, "took", took)
		} else {
			log.Info("export run", "rows", res.Rows, "file", res.File, "took", took, "next_run", next)
		}
		if s.opts.Observer != nil {
			s.opts.Observer.ExportRun(job, res, err, took)
		}
	}
	gj, err := gs.NewJob(
		gocron.CronJob(spec, s.opts.withSeconds),
		gocron.NewTask(task),
		gocron.WithName(job.Name()),
		gocron.WithSingletonMode(gocron.LimitModeReschedule),
		gocron.WithContext(s.ctx),
	)
	if err != nil {
		return fmt.Errorf("scheduling %s: schedule %q: %w", job.Name(), job.Schedule, err)
	}
	s.jobs[job.Name()] = gj
	s.order = append(s.order, job.Name())
	return nil
}

// Start starts running the scheduled jobs; it does not block.
func (s *Scheduler) Start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.start = true
	for _, gs := range s.scheds {
		gs.Start()
	}
}

// NextRun returns the next time the named job ("outbox/type") runs; zero
// before Start.
func (s *Scheduler) NextRun(name string) (time.Time, error) {
	s.mu.Lock()
	gj, ok := s.jobs[name]
	s.mu.Unlock()
	if !ok {
		return time.Time{}, fmt.Errorf("no export %s is scheduled", name)
	}
	return gj.NextRun()
}

// NextRuns returns the next n run times of the named job.
func (s *Scheduler) NextRuns(name string, n int) ([]time.Time, error) {
	s.mu.Lock()
	gj, ok := s.jobs[name]
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("no export %s is scheduled", name)
	}
	return gj.NextRuns(n)
}

// Jobs lists the names of the scheduled jobs in the order they were added.
func (s *Scheduler) Jobs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.order...)
}

// Shutdown stops scheduling, cancels the context of running exports and
// waits for them (gocron's stop timeout, 10 s by default).
func (s *Scheduler) Shutdown() error {
	s.mu.Lock()
	scheds := make(map[string]gocron.Scheduler, len(s.scheds))
	for zone, gs := range s.scheds {
		scheds[zone] = gs
	}
	s.mu.Unlock()
	// Without the lock: running tasks take it to log their next run.
	var errs []error
	for zone, gs := range scheds {
		if err := gs.Shutdown(); err != nil {
			errs = append(errs, fmt.Errorf("stopping the scheduler of time zone %s: %w", zone, err))
		}
	}
	return errors.Join(errs...)
}
