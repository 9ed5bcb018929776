package app

import (
	"context"
	"time"
)

// pruneEvery is how often the processed/ folders of inboxes with a
// retention are pruned (also once at start).
const pruneEvery = time.Hour

// pruneLoop deletes the dated processed/ folders past each inbox's
// retention until ctx ends; inboxes without one are left alone.
func (d *Daemon) pruneLoop(ctx context.Context) {
	on := false
	for i := range d.Config.Inboxes {
		if d.Config.Inboxes[i].Retention > 0 {
			on = true
		}
	}
	if !on {
		return
	}
	t := time.NewTicker(pruneEvery)
	defer t.Stop()
	for {
		for _, in := range d.Inboxes {
			if _, err := in.PruneProcessed(ctx, d.opts.Now()); err != nil && ctx.Err() == nil {
				d.Log.Warn("could not delete processed files past the retention; retried in an hour", "inbox", in.Name(), "error", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
