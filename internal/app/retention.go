package app

import (
	"cmp"
	"context"
	"time"
)

// pruneEvery is how often the processed/ folders of inboxes with a
// retention are pruned and resolved failures past error_retention moved
// out of error/ (also once at start); a shorter error_retention is
// checked as often as it is long, once a second at most.
const pruneEvery = time.Hour

// pruneInterval is the loop's period for the configured inboxes; 0 when
// no inbox has anything to prune.
func (d *Daemon) pruneInterval() time.Duration {
	every := time.Duration(0)
	for i := range d.Config.Inboxes {
		ic := &d.Config.Inboxes[i]
		if ic.Retention > 0 {
			every = pruneEvery
		}
		if k := ic.ErrorRetention.Dur(); k > 0 {
			every = min(cmp.Or(every, pruneEvery), max(k, time.Second))
		}
	}
	return every
}

// pruneLoop deletes the dated processed/ folders past each inbox's
// retention and moves resolved failures past its error_retention out of
// error/ until ctx ends; inboxes without either are left alone.
func (d *Daemon) pruneLoop(ctx context.Context) {
	every := d.pruneInterval()
	if every == 0 {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		for _, in := range d.Inboxes {
			if _, err := in.PruneProcessed(ctx, d.opts.Now()); err != nil && ctx.Err() == nil {
				d.Log.Warn("could not delete processed files past the retention; retried later", "inbox", in.Name(), "error", err, "every", every)
			}
			if _, err := in.ArchiveResolved(ctx, d.opts.Now()); err != nil && ctx.Err() == nil {
				d.Log.Warn("could not move resolved failures out of the error folder; retried later", "inbox", in.Name(), "error", err, "every", every)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
