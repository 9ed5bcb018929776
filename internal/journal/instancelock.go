package journal

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Liveness of the instances sharing a PostgreSQL journal.
//
// A running instance holds a session advisory lock on its name, on one
// connection of its own: the server drops it the moment the process dies,
// so the others know at once (InstanceAlive) instead of waiting for its
// leases to run out. A restart of PostgreSQL drops it too, from instances
// that are still running. So the holder records, beside the lock, the
// server's start time at which it took it (instances.epoch) and a token
// of its process: a free lock with the current epoch means the instance is
// gone; a free lock taken under an earlier epoch means the server restarted
// since, and the instance counts as alive while its heartbeat (seen_at) is
// within its lease, time to take its lock again on a new session
// (KeepInstance, before any lease work). A second process under the same
// name is refused at start in both cases.

// ErrInstanceInUse is returned by HoldInstance when another running
// process uses this instance's name.
var ErrInstanceInUse = errors.New("the instance name is in use by another running instance")

// instanceLock is this process's lock on its instance name.
type instanceLock struct {
	mu    sync.Mutex
	key   int64
	token string    // this process, in instances.token
	conn  *sql.Conn // the session holding the lock; nil once it broke
}

// serverEpoch is the start time of the PostgreSQL server, as text: it
// changes with every restart, which ends every session and its locks.
const serverEpoch = `SELECT pg_postmaster_start_time()::text`

// HoldInstance marks this instance as running until release is called or
// the process ends (see the liveness notes above), and records it alive.
// It fails with ErrInstanceInUse when another process runs under the same
// name, also one that has not taken its lock again since PostgreSQL
// restarted. On SQLite it does nothing.
func (d *DB) HoldInstance(ctx context.Context) (release func(), err error) {
	if !d.Shared() {
		return func() {}, nil
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	h := &instanceLock{key: leadKey(instanceLead(d.instance)), token: hex.EncodeToString(b[:])}
	if err := d.takeInstance(ctx, h); err != nil {
		return nil, fmt.Errorf("marking instance %s as running: %w", d.instance, err)
	}
	d.instLock.Store(h)
	return func() {
		d.instLock.Store(nil)
		h.mu.Lock()
		defer h.mu.Unlock()
		// Stopped, not lost: the name is free at once, also before this
		// process took its lock again after a restart of PostgreSQL.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, _ = d.w.ExecContext(ctx, `UPDATE instances SET token = '' WHERE name = ? AND token = ?`, d.instance, h.token)
		h.drop(true)
	}, nil
}

// drop ends the session's lock: unlocked when unlock is set and the
// session answers, else the connection is discarded, which ends it.
func (h *instanceLock) drop(unlock bool) {
	if h.conn == nil {
		return
	}
	if unlock {
		_ = unlockSession(h.conn, h.key)
	} else {
		dropSession(h.conn)
		_ = h.conn.Close()
	}
	h.conn = nil
}

// KeepInstance checks that this process still holds its instance lock
// (HoldInstance) and, when its session broke (PostgreSQL restarted), takes
// it again on a new one. Call it before lease work: it fails while the
// lock cannot be held, and with ErrInstanceInUse when another process
// took the name meanwhile. Without HoldInstance (SQLite) it does nothing.
func (d *DB) KeepInstance(ctx context.Context) error {
	h := d.instLock.Load()
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.conn != nil {
		var one int
		if err := h.conn.QueryRowContext(ctx, `SELECT 1`).Scan(&one); err == nil {
			return nil
		} else if ctx.Err() != nil {
			return err
		}
		h.drop(false)
	}
	// The pool may hand out sessions that broke with the first: a few
	// tries, each on another connection.
	var err error
	for range poolSize + 1 {
		if err = d.takeInstance(ctx, h); err == nil || errors.Is(err, ErrInstanceInUse) || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("taking the lock of instance %s again on a new session: %w", d.instance, err)
	}
	return nil
}

// takeInstance takes h's lock on a new session and records h's token and
// the server's epoch in the instance's row, unless another process holds
// the name or may still hold it (see the liveness notes above).
func (d *DB) takeInstance(ctx context.Context, h *instanceLock) (err error) {
	c, err := d.w.db.Conn(ctx)
	if err != nil {
		return err
	}
	locked := false
	defer func() {
		if err == nil {
			h.conn = c
			return
		}
		if locked {
			_, _ = c.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, h.key)
		}
		_ = c.Close()
	}()
	if err := c.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1)`, h.key).Scan(&locked); err != nil {
		return err
	}
	if !locked {
		return fmt.Errorf("instance %s: %w: give every instance its own name (FILEBRIDGE_INSTANCE)", d.instance, ErrInstanceInUse)
	}
	var epoch string
	if err := c.QueryRowContext(ctx, serverEpoch).Scan(&epoch); err != nil {
		return err
	}
	var token, was, seen string
	err = c.QueryRowContext(ctx, `SELECT token, epoch, seen_at FROM instances WHERE name = $1`, d.instance).
		Scan(&token, &was, &seen)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return err
	case token != "" && token != h.token && (was == epoch || d.lost(was, epoch, seen)):
		// Under the current epoch the other process released its lock
		// or died: the name is free.
	case token != "" && token != h.token:
		return fmt.Errorf("instance %s: %w: a process of that name was seen at %s, before PostgreSQL restarted, and may still run; give every instance its own name (FILEBRIDGE_INSTANCE), or start it again once that process stopped (after %s)",
			d.instance, ErrInstanceInUse, seen, d.lease)
	}
	now := formatTime(d.now())
	_, err = c.ExecContext(ctx, `INSERT INTO instances (name, started_at, seen_at, token, epoch) VALUES ($1, $2, $2, $3, $4)
		ON CONFLICT (name) DO UPDATE SET seen_at = excluded.seen_at, token = excluded.token, epoch = excluded.epoch`,
		d.instance, now, h.token, epoch)
	return err
}

// lost reports whether an instance whose lock was taken under epoch was,
// now that the server runs under current, last seen longer than a lease
// ago: it did not come back after the restart.
func (d *DB) lost(epoch, current, seen string) bool {
	if epoch == current {
		return true
	}
	at, err := parseTime(seen)
	return err != nil || !at.Add(d.lease).After(d.now())
}

// InstanceAlive reports whether the named instance is running: it holds
// its HoldInstance lock, or the lock was dropped by a restart of
// PostgreSQL and the instance, not stopped (release), has a lease's time
// to take it again. On
// SQLite, which has one instance, it is always true: there, only leases
// tell.
func (d *DB) InstanceAlive(ctx context.Context, name string) (bool, error) {
	if !d.Shared() {
		return true, nil
	}
	release, free, err := d.TryLead(ctx, instanceLead(name))
	if err != nil {
		return false, fmt.Errorf("checking whether instance %s runs: %w", name, err)
	}
	if !free {
		return true, nil
	}
	defer release()
	var token, epoch, current, seen string
	err = d.r.QueryRowContext(ctx, `SELECT token, epoch, seen_at, (`+serverEpoch+`) FROM instances WHERE name = ?`, name).
		Scan(&token, &epoch, &seen, &current)
	ok, err := found(err)
	if err != nil {
		return false, fmt.Errorf("checking whether instance %s runs: %w", name, err)
	}
	return ok && token != "" && !d.lost(epoch, current, seen), nil
}

func instanceLead(name string) string { return "instance\x00" + name }
