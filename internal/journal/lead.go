package journal

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"time"
)

// TryLead tries to make this instance the leader for name (an export and
// its scheduled time, say), so that of several instances sharing a
// PostgreSQL journal exactly one does the work. It does not wait: ok is
// false when another instance leads. The leader keeps the lead until it
// calls release, or until its connection ends (a killed process loses it
// at once, and another instance can lead the next time).
//
// On PostgreSQL it is a session pg_advisory_lock on a connection taken
// from the pool and held until release. A SQLite journal has one owner
// (AcquireLock): it always leads.
func (d *DB) TryLead(ctx context.Context, name string) (release func(), ok bool, err error) {
	if d.dl != postgresDialect {
		return func() {}, true, nil
	}
	key := leadKey(name)
	c, err := d.w.db.Conn(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("electing the leader for %s: %w", name, err)
	}
	if err := c.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1)`, key).Scan(&ok); err != nil {
		_ = c.Close()
		return nil, false, fmt.Errorf("electing the leader for %s: %w", name, err)
	}
	if !ok {
		_ = c.Close()
		return nil, false, nil
	}
	release = func() {
		uctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := c.ExecContext(uctx, `SELECT pg_advisory_unlock($1)`, key); err != nil {
			// Drop the connection: its session, and the lock, end with it.
			_ = c.Raw(func(any) error { return errors.New("discard") })
		}
		_ = c.Close()
	}
	return release, true, nil
}

// leadKey maps a lead name to an advisory lock key, apart from the
// migration lock's.
func leadKey(name string) int64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte("filebridge lead\x00" + name))
	k := int64(h.Sum64())
	if k == migrateLockKey {
		k++
	}
	return k
}
