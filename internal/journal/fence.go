package journal

import (
	"context"
	"errors"
	"fmt"
)

// Fencing of export runs on a shared journal: a run of a claimed tick
// carries the tick in its context (WithTick); before its file goes in place
// the runner asks OwnsTick, and SaveCursor moves the cursor only while
// this instance still holds the tick under a live lease, in the same
// transaction. A run whose lease ran out (its instance could not renew it,
// and another may have taken the tick over) writes nothing and leaves the
// cursor where it was: the tick's new runner exports its rows.

// ErrTickLost is returned by OwnsTick and SaveCursor when this instance
// no longer holds the tick of the run (its lease ran out).
var ErrTickLost = errors.New("this instance's lease on the export's tick ran out (another instance may run it)")

type tickKey struct{}

// WithTick returns ctx for the run of tick t on this instance (see the
// fencing notes above).
func WithTick(ctx context.Context, t ExportRun) context.Context {
	return context.WithValue(ctx, tickKey{}, t)
}

func tickOf(ctx context.Context) (ExportRun, bool) {
	t, ok := ctx.Value(tickKey{}).(ExportRun)
	return t, ok
}

// OwnsTick returns nil when ctx carries no tick (WithTick) or this
// instance still holds it under a live lease, ErrTickLost when it does
// not.
func (d *DB) OwnsTick(ctx context.Context) error {
	t, ok := tickOf(ctx)
	if !ok {
		return nil
	}
	return ownsTick(ctx, d.r, d, t)
}

func ownsTick(ctx context.Context, q querier, d *DB, t ExportRun) error {
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM export_runs WHERE `+byTick+`
		AND owner = ? AND state = 'running' AND lease_until > ?`,
		t.Outbox, t.Export, formatTime(t.Tick), d.instance, formatTime(d.now())).Scan(&n)
	if err != nil {
		return fmt.Errorf("checking the lease of tick %s of export %s/%s: %w", formatTime(t.Tick), t.Outbox, t.Export, err)
	}
	if n != 1 {
		return fmt.Errorf("tick %s of export %s/%s: %w", formatTime(t.Tick), t.Outbox, t.Export, ErrTickLost)
	}
	return nil
}
