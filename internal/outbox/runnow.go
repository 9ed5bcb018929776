package outbox

import (
	"context"
	"errors"
	"fmt"
	"time"
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
	tick, won, err := ticks.ClaimTick(ctx, job.Outbox, string(job.Type), now)
	if err != nil {
		return Result{}, fmt.Errorf("export %s not run: %w", job.Name(), err)
	}
	if !won {
		why := tick.Message
		if why == "" {
			why = "instance " + tick.Owner + " started a run at the same moment"
		}
		return Result{}, fmt.Errorf("export %s not run now: %w (%s); run it again once that run finished", job.Name(), ErrExportRunning, why)
	}
	res, err := run(ctx)
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if ferr := ticks.FinishTick(fctx, tick, res.Rows, res.File, err); ferr != nil && err == nil {
		// The file is written and the cursor saved; only the record of
		// the tick is missing or was taken over (a run longer than the
		// lease): say so rather than report success.
		return res, ferr
	}
	return res, err
}
