package journal

import (
	"context"
	"database/sql"
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
	return func() { _ = unlockSession(c, key) }, true, nil
}

// unlockSession releases the advisory lock key of c's session and closes
// c. A session that does not answer is dropped instead, which ends it and
// its locks.
func unlockSession(c *sql.Conn, key int64) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := c.ExecContext(ctx, `SELECT pg_advisory_unlock($1)`, key)
	if err != nil {
		dropSession(c)
	}
	_ = c.Close()
	return err
}

// dropSession makes the pool discard c's connection, ending its session.
func dropSession(c *sql.Conn) { _ = c.Raw(func(any) error { return errors.New("discard") }) }

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
