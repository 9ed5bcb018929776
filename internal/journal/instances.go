package journal

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// InstanceSeen is an instance that used the journal, and when it last
// said it was alive (Heartbeat).
type InstanceSeen struct {
	Name      string
	StartedAt time.Time
	SeenAt    time.Time
}

// Heartbeat records that this instance is alive now; the first call of a
// process also records its start.
func (d *DB) Heartbeat(ctx context.Context) error {
	now := formatTime(d.now())
	_, err := d.w.ExecContext(ctx, `INSERT INTO instances (name, started_at, seen_at) VALUES (?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET seen_at = excluded.seen_at`, d.instance, now, now)
	if err != nil {
		return fmt.Errorf("recording that instance %s is alive: %w", d.instance, err)
	}
	return nil
}

// Instances lists the instances seen since the given time, most recently
// seen first.
func (d *DB) Instances(ctx context.Context, since time.Time) ([]InstanceSeen, error) {
	out, err := queryAll(ctx, d.r, func(sc scanner) (InstanceSeen, error) {
		var in InstanceSeen
		err := sc.Scan(&in.Name, timeCol{&in.StartedAt}, timeCol{&in.SeenAt})
		return in, err
	}, `SELECT name, started_at, seen_at FROM instances
		WHERE seen_at >= ? ORDER BY seen_at DESC, name`, formatTime(since))
	if err != nil {
		return nil, fmt.Errorf("listing the instances of the journal: %w", err)
	}
	return out, nil
}

// KeepAlive, at every beat of the channel until ctx ends, keeps this
// instance's lock (KeepInstance), records it as alive (Heartbeat) and
// renews the leases of the export runs it is doing (RenewTicks); give it a
// ticker of Lease/3. A failure is logged and tried again at the next beat.
func (d *DB) KeepAlive(ctx context.Context, every <-chan time.Time, log *slog.Logger) {
	beat := func() {
		// No lease work without the instance lock: a new session (after
		// PostgreSQL restarted) takes it again first (KeepInstance).
		err := d.KeepInstance(ctx)
		if err == nil {
			err = d.Heartbeat(ctx)
		}
		if err == nil {
			_, err = d.RenewTicks(ctx)
		}
		if err != nil && ctx.Err() == nil {
			log.Warn("renewing this instance's export runs failed; retrying at the next beat",
				"instance", d.instance, "journal", d.path, "lease", d.lease, "error", err)
		}
	}
	beat()
	onBeats(ctx, every, beat)
}
