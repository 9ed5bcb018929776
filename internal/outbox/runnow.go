package outbox

import (
	"context"
	"errors"
	"fmt"
	"time"

	"filebridge/internal/journal"
)

// ErrExportRunning is returned by RunNow when a run of the same export is
// going on, on this instance or another one sharing the journal.
var ErrExportRunning = errors.New("a run of this export is going on")

// RunNow runs job once, outside its schedule (the export command, the
// console's "Run now"). With ticks (a journal shared by several instances)
// the run is recorded as a tick of its own at now, claimed like a
// scheduled one, so that it never overlaps a run of the same export on any
// instance: while one goes on it is refused with ErrExportRunning, and a
// scheduled time that comes while it runs is skipped. Without ticks it
// just runs.
func RunNow(ctx context.Context, ticks Ticks, now time.Time, job Job, run func(context.Context) (Result, error)) (Result, error) {
	if ticks == nil {
		return run(ctx)
	}
	claim, won, err := claimTick(ctx, ticks, job, now)
	if err != nil {
		return Result{}, fmt.Errorf("export %s not run: %w", job.Name(), err)
	}
	if !won {
		why := claim.Message()
		if why == "" {
			why = "instance " + claim.Owner + " started a run at the same moment"
		}
		return Result{}, fmt.Errorf("export %s not run now: %w (%s); run it again once that run finished", job.Name(), ErrExportRunning, why)
	}
	// The run is the claim's: fenced like a scheduled one, and recorded in
	// the claim's row of the history.
	res, err := run(journal.WithTick(ctx, claim))
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if ferr := ticks.FinishTick(fctx, claim, res.Rows, res.File, err); ferr != nil && err == nil {
		// The file is written and the cursor saved; only the record of
		// the tick is missing or was taken over (a run longer than the
		// lease): say so rather than report success.
		return res, ferr
	}
	return res, err
}

// claimFully runs claim (a claim or a takeover of a tick), unless ctx is
// already done. A claim once sent is let finish: a stop that cut it short
// could leave the tick claimed by this instance in the journal (a commit
// cancelled midway may still be made) without its knowing, running for
// nobody. A tick won as the stop comes is then recorded as a run the stop
// cut.
func claimFully(ctx context.Context, claim func(context.Context) (journal.ExportRun, bool, error)) (journal.ExportRun, bool, error) {
	if err := ctx.Err(); err != nil {
		return journal.ExportRun{}, false, err
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	return claim(cctx)
}

// claimTick claims the tick at of job (claimFully).
func claimTick(ctx context.Context, ticks Ticks, job Job, at time.Time) (journal.ExportRun, bool, error) {
	return claimFully(ctx, func(ctx context.Context) (journal.ExportRun, bool, error) {
		return ticks.ClaimTick(ctx, job.Outbox, string(job.Type), at)
	})
}

// RunNow runs job once, now, outside its schedule, as the package's
// RunNow does, and never beside a run of the same export by this
// scheduler: while one goes on here it is refused with ErrExportRunning.
// (Holding the export's run lock also tells TakeOverAbandoned that the
// export's running tick is this process's own.)
func (s *Scheduler) RunNow(ctx context.Context, job Job, run func(context.Context) (Result, error)) (Result, error) {
	s.mu.Lock()
	sj, ok := s.jobs[job.Name()]
	s.mu.Unlock()
	if ok {
		if !sj.runMu.TryLock() {
			return Result{}, fmt.Errorf("export %s not run now: %w on this instance; run it again once that run finished", job.Name(), ErrExportRunning)
		}
		defer sj.runMu.Unlock()
	}
	return RunNow(ctx, s.opts.Ticks, s.clock.Now(), job, run)
}
