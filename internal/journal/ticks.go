package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Scheduled exports on a shared journal: every instance runs the same
// schedules, and each scheduled time of an export (a tick) is claimed as a
// row of export_runs keyed by (outbox, export, tick). The instance whose
// INSERT creates the row runs the export for that tick; the others find
// the row and do nothing. The row carries the runner and a lease, renewed
// while the run goes on (RenewTicks); a run that is still "running" once
// its lease ran out was abandoned (the instance died), and one other
// instance redoes it (TakeOverTick). Every claim of an export's ticks first
// takes that export's row of export_locks (an upsert, locked until commit
// on PostgreSQL; SQLite has one writer at a time), so deciding and
// recording is atomic per export.
//
// "Each scheduled export ran once per tick" is then a query: one row per
// tick, its state, who ran it and how often it was attempted.

// byTick selects the claim of an export's tick (outbox, export, tick):
// through the partial index export_runs_tick, which SQLite uses only when
// the query also says that tick is not empty.
const byTick = `outbox = ? AND export = ? AND tick != '' AND tick = ?`

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
func (d *DB) ClaimTick(ctx context.Context, outbox, export string, at time.Time) (got ExportRun, won bool, err error) {
	now := d.now()
	at = at.UTC()
	err = d.write(ctx, func(tx *txn) error {
		if err := lockExport(ctx, tx, outbox, export); err != nil {
			return err
		}
		got, err = scanRun(tx.QueryRowContext(ctx, `SELECT `+runColumns+` FROM export_runs WHERE `+byTick,
			outbox, export, formatTime(at)))
		if err == nil {
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		got = ExportRun{Outbox: outbox, Export: export, Tick: at, State: RunRunning, Owner: d.instance,
			LeaseUntil: now.Add(d.lease), StartedAt: now, Attempts: 1}
		later, err := scanRun(tx.QueryRowContext(ctx, `SELECT `+runColumns+` FROM export_runs
			WHERE outbox = ? AND export = ? AND tick != '' AND tick > ? ORDER BY tick LIMIT 1`, outbox, export, formatTime(at)))
		switch {
		case err == nil:
			// Claimed late (the journal could not be reached at the time):
			// a later tick is recorded, and its run exports the rows.
			got.State, got.FinishedAt = RunSkipped, now
			got.Note = fmt.Sprintf("claimed late, after the tick of %s (instance %s): that run exports its rows",
				formatTime(later.Tick), later.Owner)
		case !errors.Is(err, sql.ErrNoRows):
			return err
		default:
			busy, err := scanRun(tx.QueryRowContext(ctx, `SELECT `+runColumns+` FROM export_runs
				WHERE outbox = ? AND export = ? AND tick != '' AND state = 'running' AND lease_until > ? AND tick < ?
				ORDER BY tick DESC LIMIT 1`, outbox, export, formatTime(now), formatTime(at)))
			switch {
			case err == nil:
				got.State, got.FinishedAt = RunSkipped, now
				got.Note = fmt.Sprintf("the run of tick %s was still going on at instance %s",
					formatTime(busy.Tick), busy.Owner)
			case !errors.Is(err, sql.ErrNoRows):
				return err
			}
		}
		if err = tx.QueryRowContext(ctx, `INSERT INTO export_runs (outbox, export, tick, state, owner,
			lease_until, started_at, finished_at, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			outbox, export, formatTime(at), string(got.State), got.Owner, formatTime(got.LeaseUntil),
			formatTime(now), optTime(got.FinishedAt), got.Note).Scan(&got.ID); err != nil {
			return err
		}
		won = got.State == RunRunning
		if !won {
			return nil
		}
		// Earlier runs whose instance stopped are not redone now: this one
		// exports their rows.
		_, err = tx.ExecContext(ctx, `UPDATE export_runs SET state = 'interrupted', finished_at = ?,
			note = ? WHERE outbox = ? AND export = ? AND tick != '' AND state = 'running' AND lease_until <= ? AND tick < ?`,
			formatTime(now), "its instance stopped during the run; the tick of "+formatTime(at)+" exported its rows",
			outbox, export, formatTime(now), formatTime(at))
		return err
	})
	if err != nil {
		return ExportRun{}, false, fmt.Errorf("claiming tick %s of export %s/%s: %w", formatTime(at), outbox, export, err)
	}
	return got, won, nil
}

// TakeOverTick takes over the newest tick of an export when its run was
// abandoned (still running, lease run out) and reports whether it did: of
// several instances trying at once exactly one wins, and redoes the run.
// An abandoned tick that is not the export's newest is left alone: the
// newer tick's run exported its rows (the cursor had not moved).
func (d *DB) TakeOverTick(ctx context.Context, outbox, export string) (got ExportRun, won bool, err error) {
	now := d.now()
	err = d.write(ctx, func(tx *txn) error {
		if err := lockExport(ctx, tx, outbox, export); err != nil {
			return err
		}
		got, err = scanRun(tx.QueryRowContext(ctx, lastTick, outbox, export))
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil || !got.Abandoned(now) {
			return err
		}
		prev := got.Owner
		got.Owner, got.LeaseUntil, got.StartedAt, got.Attempts = d.instance, now.Add(d.lease), now, got.Attempts+1
		got.Note = "taken over from instance " + prev
		err = affectedOne(tx.ExecContext(ctx, `UPDATE export_runs SET owner = ?, lease_until = ?, started_at = ?,
			attempts = ?, note = ? WHERE id = ? AND state = 'running'`,
			got.Owner, formatTime(got.LeaseUntil), formatTime(now), got.Attempts, got.Note, got.ID))
		won = err == nil
		return err
	})
	if err != nil {
		return ExportRun{}, false, fmt.Errorf("taking over the last tick of export %s/%s: %w", outbox, export, err)
	}
	return got, won, nil
}

// FinishTick records the end of this instance's run of a tick: done, or
// failed with runErr. It fails with ErrNotFound when this instance no
// longer holds the tick (another took it over after the lease ran out).
func (d *DB) FinishTick(ctx context.Context, t ExportRun, rows int, file string, runErr error) error {
	state, msg := RunDone, ""
	if runErr != nil {
		state, msg = RunFailed, runErr.Error()
	}
	err := affectedOne(d.w.ExecContext(ctx, `UPDATE export_runs SET state = ?, finished_at = ?, row_count = ?,
		file_name = ?, error = ? WHERE `+byTick+` AND owner = ? AND state = 'running'`,
		string(state), formatTime(d.now()), rows, file, msg, t.Outbox, t.Export, formatTime(t.Tick), d.instance))
	if err != nil {
		return fmt.Errorf("recording the end of tick %s of export %s/%s: %w", formatTime(t.Tick), t.Outbox, t.Export, err)
	}
	return nil
}

// lastTick selects the newest tick of an export (outbox, export).
const lastTick = `SELECT ` + runColumns + ` FROM export_runs
	WHERE outbox = ? AND export = ? AND tick != '' ORDER BY tick DESC LIMIT 1`

// LastTick returns the newest tick of an export; false when it has none.
func (d *DB) LastTick(ctx context.Context, outbox, export string) (ExportRun, bool, error) {
	t, err := scanRun(d.r.QueryRowContext(ctx, lastTick, outbox, export))
	ok, err := found(err)
	if err != nil {
		return ExportRun{}, false, fmt.Errorf("reading the last tick of export %s/%s: %w", outbox, export, err)
	}
	return t, ok, nil
}

// ExpireTick ends the lease of t's run now, when its instance is known to
// be gone (InstanceAlive): the next tick is then not held back by it, and
// TakeOverTick may redo it at once. It reports whether the run was still
// t.Owner's.
func (d *DB) ExpireTick(ctx context.Context, t ExportRun) (bool, error) {
	now := formatTime(d.now())
	err := affectedOne(d.w.ExecContext(ctx, `UPDATE export_runs SET lease_until = ?
		WHERE `+byTick+` AND owner = ? AND state = 'running' AND lease_until > ?`,
		now, t.Outbox, t.Export, formatTime(t.Tick), t.Owner, now))
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("ending the lease of tick %s of export %s/%s: %w", formatTime(t.Tick), t.Outbox, t.Export, err)
	}
	return true, nil
}

// RenewTicks extends the lease of every tick this instance is running to
// Lease from now, and returns how many there are. A run whose lease has
// ended is not renewed: it was abandoned (another instance saw its process
// gone, or a new process of this name released it at start), and renewing
// it by the name would hold every later tick of its export back for ever.
func (d *DB) RenewTicks(ctx context.Context) (int64, error) {
	now := d.now()
	n, err := affected(d.w.ExecContext(ctx, `UPDATE export_runs SET lease_until = ?
		WHERE owner = ? AND state = 'running' AND tick != '' AND lease_until > ?`,
		formatTime(now.Add(d.lease)), d.instance, formatTime(now)))
	if err != nil {
		return 0, fmt.Errorf("renewing the export runs of instance %s: %w", d.instance, err)
	}
	return n, nil
}

// ReleaseTicks ends now the leases of the export runs this instance's
// name holds, and returns how many. It is for the start of a process,
// before it claims a tick: runs still recorded as its own were left by an
// earlier process of the same instance, which RenewTicks would otherwise
// keep alive for ever, so that neither a redo nor the next tick came.
func (d *DB) ReleaseTicks(ctx context.Context) (int64, error) {
	return d.setLeases(ctx, `UPDATE export_runs SET lease_until = ? WHERE owner = ? AND state = 'running' AND tick != ''`,
		d.now(), "releasing the export runs")
}

// Ticks lists the claimed ticks of an export, newest first, at most limit
// (limit <= 0: all). An empty outbox or export matches any.
func (d *DB) Ticks(ctx context.Context, outbox, export string, limit int) ([]ExportRun, error) {
	return d.queryTicks(ctx, `SELECT `+runColumns+` FROM export_runs
		WHERE tick != '' AND (? = '' OR outbox = ?) AND (? = '' OR export = ?)
		ORDER BY tick DESC, outbox, export LIMIT ?`, outbox, outbox, export, export, d.dl.limitArg(limit))
}

// LastTicks lists the newest tick of every export, by outbox and export.
func (d *DB) LastTicks(ctx context.Context) ([]ExportRun, error) {
	return d.queryTicks(ctx, `SELECT `+runColumns+` FROM export_runs t
		WHERE t.tick != '' AND t.tick = (SELECT max(tick) FROM export_runs n WHERE n.outbox = t.outbox AND n.export = t.export AND n.tick != '')
		ORDER BY outbox, export`)
}

func (d *DB) queryTicks(ctx context.Context, q string, args ...any) ([]ExportRun, error) {
	out, err := queryAll(ctx, d.r, scanRun, q, args...)
	if err != nil {
		return nil, fmt.Errorf("listing export ticks: %w", err)
	}
	return out, nil
}
