package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Scheduled exports on a shared journal: every instance runs the same
// schedules, and each scheduled time of an export (a tick) is one row of
// export_ticks, keyed by (outbox, export, tick). The instance whose INSERT
// creates the row runs the export for that tick; the others find the row
// and do nothing. The row carries the runner and a lease, renewed while the
// run goes on (RenewTicks); a run that is still "running" once its lease
// ran out was abandoned (the instance died), and one other instance redoes
// it (TakeOverTick). Every claim of an export's ticks first takes that
// export's row of export_locks (an upsert, locked until commit on
// PostgreSQL; SQLite has one writer at a time), so deciding and recording
// is atomic per export.
//
// "Each scheduled export ran once per tick" is then a query: one row per
// tick, its state, who ran it and how often it was attempted.

// TickState is where a tick of an export stands.
type TickState string

const (
	// TickRunning: an instance runs the export for the tick now (or died
	// doing it, when its lease ran out).
	TickRunning TickState = "running"
	// TickDone: the run finished and its file (if any) is in place.
	TickDone TickState = "done"
	// TickFailed: the run failed; the next tick exports the same rows
	// (the cursor did not move).
	TickFailed TickState = "failed"
	// TickSkipped: the previous tick's run was still going on at this
	// tick, so this one did not run (one run of an export at a time,
	// across instances).
	TickSkipped TickState = "skipped"
	// TickInterrupted: the instance running it stopped during the run
	// (its lease ran out), and a later tick ran before anyone redid it:
	// that tick exported the rows (the cursor had not moved).
	TickInterrupted TickState = "interrupted"
)

// Tick is one scheduled time of an export and what became of it.
type Tick struct {
	Outbox     string
	Export     string
	At         time.Time // the scheduled time
	State      TickState
	Owner      string    // the instance that ran it (or decided to skip it)
	LeaseUntil time.Time // while running: the runner's lease
	ClaimedAt  time.Time // when the owner claimed it (or took it over)
	FinishedAt time.Time // zero while running
	Attempts   int       // 1, plus one per take-over of an abandoned run
	Rows       int
	File       string // the file written, relative to the outbox
	Message    string // the error of a failed run, why a tick was skipped
}

// Abandoned reports whether the tick's run was left unfinished by an
// instance whose lease ran out at now.
func (t Tick) Abandoned(now time.Time) bool {
	return t.State == TickRunning && !t.LeaseUntil.After(now)
}

const tickColumns = `outbox, export, tick, state, owner, lease_until, claimed_at, finished_at, attempts,
	row_count, file_name, message`

func scanTick(sc scanner) (Tick, error) {
	var t Tick
	var at, until, claimed, finished string
	if err := sc.Scan(&t.Outbox, &t.Export, &at, &t.State, &t.Owner, &until, &claimed, &finished,
		&t.Attempts, &t.Rows, &t.File, &t.Message); err != nil {
		return Tick{}, err
	}
	for _, f := range []struct {
		s string
		t *time.Time
	}{{at, &t.At}, {until, &t.LeaseUntil}, {claimed, &t.ClaimedAt}, {finished, &t.FinishedAt}} {
		v, err := parseTime(f.s)
		if err != nil {
			return Tick{}, fmt.Errorf("tick of export %s/%s: %w", t.Outbox, t.Export, err)
		}
		*f.t = v
	}
	return t, nil
}

// lockExport takes the export's row of export_locks until the transaction
// ends, so that claims of its ticks are decided one at a time.
func lockExport(ctx context.Context, tx *txn, outbox, export string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO export_locks (outbox, export) VALUES (?, ?)
		ON CONFLICT (outbox, export) DO UPDATE SET n = export_locks.n + 1`, outbox, export)
	return err
}

// ClaimTick claims the tick at of an export for this instance and reports
// whether it won: of any number of instances claiming one tick exactly one
// does. A tick already recorded is not claimed again (got is that record).
// A tick claimed after a later one was recorded (late: the journal could
// not be reached at its time) is recorded as skipped and not won: the
// later tick's run exports its rows. When an earlier tick of the export is
// still running under a live lease, the tick is recorded as skipped and not
// won, as the scheduler's run lock does within one process: two runs of one
// export never overlap, whichever instances run them.
func (d *DB) ClaimTick(ctx context.Context, outbox, export string, at time.Time) (got Tick, won bool, err error) {
	now := d.now()
	at = at.UTC()
	err = d.write(ctx, func(tx *txn) error {
		if err := lockExport(ctx, tx, outbox, export); err != nil {
			return err
		}
		got, err = scanTick(tx.QueryRowContext(ctx, `SELECT `+tickColumns+` FROM export_ticks
			WHERE outbox = ? AND export = ? AND tick = ?`, outbox, export, formatTime(at)))
		if err == nil {
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		got = Tick{Outbox: outbox, Export: export, At: at, State: TickRunning, Owner: d.instance,
			LeaseUntil: now.Add(d.lease), ClaimedAt: now, Attempts: 1}
		later, err := scanTick(tx.QueryRowContext(ctx, `SELECT `+tickColumns+` FROM export_ticks
			WHERE outbox = ? AND export = ? AND tick > ? ORDER BY tick LIMIT 1`, outbox, export, formatTime(at)))
		switch {
		case err == nil:
			// Claimed late (the journal could not be reached at the time):
			// a later tick is recorded, and its run exports the rows.
			got.State, got.FinishedAt = TickSkipped, now
			got.Message = fmt.Sprintf("claimed late, after the tick of %s (instance %s): that run exports its rows",
				formatTime(later.At), later.Owner)
		case !errors.Is(err, sql.ErrNoRows):
			return err
		default:
			busy, err := scanTick(tx.QueryRowContext(ctx, `SELECT `+tickColumns+` FROM export_ticks
				WHERE outbox = ? AND export = ? AND state = 'running' AND lease_until > ? AND tick < ?
				ORDER BY tick DESC LIMIT 1`, outbox, export, formatTime(now), formatTime(at)))
			switch {
			case err == nil:
				got.State, got.FinishedAt = TickSkipped, now
				got.Message = fmt.Sprintf("the run of tick %s was still going on at instance %s",
					formatTime(busy.At), busy.Owner)
			case !errors.Is(err, sql.ErrNoRows):
				return err
			}
		}
		if _, err = tx.ExecContext(ctx, `INSERT INTO export_ticks (outbox, export, tick, state, owner,
			lease_until, claimed_at, finished_at, message) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			outbox, export, formatTime(at), string(got.State), got.Owner, formatTime(got.LeaseUntil),
			formatTime(now), optTime(got.FinishedAt), got.Message); err != nil {
			return err
		}
		won = got.State == TickRunning
		if !won {
			return nil
		}
		// Earlier runs whose instance stopped are not redone now: this one
		// exports their rows.
		_, err = tx.ExecContext(ctx, `UPDATE export_ticks SET state = 'interrupted', finished_at = ?,
			message = ? WHERE outbox = ? AND export = ? AND state = 'running' AND lease_until <= ? AND tick < ?`,
			formatTime(now), "its instance stopped during the run; the tick of "+formatTime(at)+" exported its rows",
			outbox, export, formatTime(now), formatTime(at))
		return err
	})
	if err != nil {
		return Tick{}, false, fmt.Errorf("claiming tick %s of export %s/%s: %w", formatTime(at), outbox, export, err)
	}
	return got, won, nil
}

// TakeOverTick takes over the newest tick of an export when its run was
// abandoned (still running, lease run out) and reports whether it did: of
// several instances trying at once exactly one wins, and redoes the run.
// An abandoned tick that is not the export's newest is left alone: the
// newer tick's run exported its rows (the cursor had not moved).
func (d *DB) TakeOverTick(ctx context.Context, outbox, export string) (got Tick, won bool, err error) {
	now := d.now()
	err = d.write(ctx, func(tx *txn) error {
		if err := lockExport(ctx, tx, outbox, export); err != nil {
			return err
		}
		got, err = scanTick(tx.QueryRowContext(ctx, `SELECT `+tickColumns+` FROM export_ticks
			WHERE outbox = ? AND export = ? ORDER BY tick DESC LIMIT 1`, outbox, export))
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil || !got.Abandoned(now) {
			return err
		}
		prev := got.Owner
		got.Owner, got.LeaseUntil, got.ClaimedAt, got.Attempts = d.instance, now.Add(d.lease), now, got.Attempts+1
		got.Message = "taken over from instance " + prev
		res, err := tx.ExecContext(ctx, `UPDATE export_ticks SET owner = ?, lease_until = ?, claimed_at = ?,
			attempts = ?, message = ? WHERE outbox = ? AND export = ? AND tick = ? AND state = 'running'`,
			got.Owner, formatTime(got.LeaseUntil), formatTime(now), got.Attempts, got.Message,
			outbox, export, formatTime(got.At))
		if err == nil {
			err = affectedOne(res)
		}
		won = err == nil
		return err
	})
	if err != nil {
		return Tick{}, false, fmt.Errorf("taking over the last tick of export %s/%s: %w", outbox, export, err)
	}
	return got, won, nil
}

// FinishTick records the end of this instance's run of a tick: done, or
// failed with runErr. It fails with ErrNotFound when this instance no
// longer holds the tick (another took it over after the lease ran out).
func (d *DB) FinishTick(ctx context.Context, t Tick, rows int, file string, runErr error) error {
	state, msg := TickDone, ""
	if runErr != nil {
		state, msg = TickFailed, runErr.Error()
	}
	res, err := d.w.ExecContext(ctx, `UPDATE export_ticks SET state = ?, finished_at = ?, row_count = ?,
		file_name = ?, message = ? WHERE outbox = ? AND export = ? AND tick = ? AND owner = ? AND state = 'running'`,
		string(state), formatTime(d.now()), rows, file, msg, t.Outbox, t.Export, formatTime(t.At), d.instance)
	if err == nil {
		err = affectedOne(res)
	}
	if err != nil {
		return fmt.Errorf("recording the end of tick %s of export %s/%s: %w", formatTime(t.At), t.Outbox, t.Export, err)
	}
	return nil
}

// LastTick returns the newest tick of an export; false when it has none.
func (d *DB) LastTick(ctx context.Context, outbox, export string) (Tick, bool, error) {
	t, err := scanTick(d.r.QueryRowContext(ctx, `SELECT `+tickColumns+` FROM export_ticks
		WHERE outbox = ? AND export = ? ORDER BY tick DESC LIMIT 1`, outbox, export))
	if errors.Is(err, sql.ErrNoRows) {
		return Tick{}, false, nil
	}
	if err != nil {
		return Tick{}, false, fmt.Errorf("reading the last tick of export %s/%s: %w", outbox, export, err)
	}
	return t, true, nil
}

// ExpireTick ends the lease of t's run now, when its instance is known to
// be gone (InstanceAlive): the next tick is then not held back by it, and
// TakeOverTick may redo it at once. It reports whether the run was still
// t.Owner's.
func (d *DB) ExpireTick(ctx context.Context, t Tick) (bool, error) {
	now := formatTime(d.now())
	res, err := d.w.ExecContext(ctx, `UPDATE export_ticks SET lease_until = ?
		WHERE outbox = ? AND export = ? AND tick = ? AND owner = ? AND state = 'running' AND lease_until > ?`,
		now, t.Outbox, t.Export, formatTime(t.At), t.Owner, now)
	if err == nil {
		err = affectedOne(res)
	}
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("ending the lease of tick %s of export %s/%s: %w", formatTime(t.At), t.Outbox, t.Export, err)
	}
	return true, nil
}

// RenewTicks extends the lease of every tick this instance is running to
// Lease from now, and returns how many there are.
func (d *DB) RenewTicks(ctx context.Context) (int64, error) {
	res, err := d.w.ExecContext(ctx, `UPDATE export_ticks SET lease_until = ? WHERE owner = ? AND state = 'running'`,
		formatTime(d.now().Add(d.lease)), d.instance)
	if err != nil {
		return 0, fmt.Errorf("renewing the export runs of instance %s: %w", d.instance, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("renewing the export runs of instance %s: %w", d.instance, err)
	}
	return n, nil
}

// Ticks lists the ticks of an export, newest first, at most limit (limit
// <= 0: all). An empty outbox or export matches any.
func (d *DB) Ticks(ctx context.Context, outbox, export string, limit int) ([]Tick, error) {
	return d.queryTicks(ctx, `SELECT `+tickColumns+` FROM export_ticks
		WHERE (? = '' OR outbox = ?) AND (? = '' OR export = ?)
		ORDER BY tick DESC, outbox, export LIMIT ?`, outbox, outbox, export, export, d.limitArg(limit))
}

// LastTicks lists the newest tick of every export, by outbox and export.
func (d *DB) LastTicks(ctx context.Context) ([]Tick, error) {
	return d.queryTicks(ctx, `SELECT `+tickColumns+` FROM export_ticks t
		WHERE tick = (SELECT max(tick) FROM export_ticks n WHERE n.outbox = t.outbox AND n.export = t.export)
		ORDER BY outbox, export`)
}

func (d *DB) queryTicks(ctx context.Context, q string, args ...any) ([]Tick, error) {
	out, err := queryAll(ctx, d.r, scanTick, q, args...)
	if err != nil {
		return nil, fmt.Errorf("listing export ticks: %w", err)
	}
	return out, nil
}
