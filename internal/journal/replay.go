package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Replay links a file put back through the pipeline (`filebridge replay`,
// the console's replay button) to the run it repeats. It is requested
// before the file is put back into the inbox under Name; the claim of that
// name links it (ReplayID), so the journal keeps both runs.
type Replay struct {
	ID         int64
	Inbox      string
	Name       string // the name the file was put back under
	OriginalID int64  // the file replayed
	ReplayID   int64  // the new run; 0 until claimed
	Force      bool   // a processed or duplicate file: no duplicate check
	By         string // who asked: "cli", "console"
	At         time.Time
}

const replayColumns = `id, inbox, name, original_id, coalesce(replay_id, 0), (force <> 0), requested_by, requested_at`

func scanReplay(sc scanner) (Replay, error) {
	var r Replay
	err := sc.Scan(&r.ID, &r.Inbox, &r.Name, &r.OriginalID, &r.ReplayID, &r.Force, &r.By, timeCol{&r.At})
	return r, err
}

// RequestReplay records that the file r.OriginalID is put back into inbox
// r.Inbox under r.Name; the next claim of that name links to it.
func (d *DB) RequestReplay(ctx context.Context, r Replay) (int64, error) {
	force := 0
	if r.Force {
		force = 1
	}
	var id int64
	err := d.w.QueryRowContext(ctx, `INSERT INTO replays (inbox, name, original_id, force, requested_by, requested_at)
		VALUES (?, ?, ?, ?, ?, ?) RETURNING id`, r.Inbox, r.Name, r.OriginalID, force, r.By, formatTime(d.now())).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("recording the replay of file %d as %s: %w", r.OriginalID, r.Name, err)
	}
	return id, nil
}

// CancelReplay drops a replay request not claimed yet (the file could not
// be put back).
func (d *DB) CancelReplay(ctx context.Context, id int64) error {
	if _, err := d.w.ExecContext(ctx, `DELETE FROM replays WHERE id = ? AND replay_id IS NULL`, id); err != nil {
		return fmt.Errorf("cancelling replay %d: %w", id, err)
	}
	return nil
}

// LinkReplay is called when file f is processed: it returns the replay f
// is the new run of, linking the oldest open request for f's inbox and
// name to it the first time. The bool is false for an ordinary file.
func (d *DB) LinkReplay(ctx context.Context, f File) (Replay, bool, error) {
	// Most files are no replay: one read tells that without a write (a
	// request is recorded before its file is put back, so before any
	// claim of it): the replay f is linked to, else the open request of
	// its name, else none.
	out, err := scanReplay(d.r.QueryRowContext(ctx, `SELECT `+replayColumns+` FROM replays
		WHERE replay_id = ? OR (inbox = ? AND name = ? AND replay_id IS NULL AND original_id != ?)
		ORDER BY replay_id IS NULL, id LIMIT 1`, f.ID, f.Inbox, f.Name, f.ID))
	if errors.Is(err, sql.ErrNoRows) {
		return Replay{}, false, nil
	}
	if err != nil || out.ReplayID == f.ID {
		return out, err == nil, wrapLink(f, err)
	}
	found := false
	err = d.write(ctx, func(tx *txn) error {
		var err error
		if out, found, err = linkedReplay(ctx, tx, f); err != nil || found {
			return err
		}
		r, err := openReplay(ctx, tx, f)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE replays SET replay_id = ? WHERE id = ?`, f.ID, r.ID); err != nil {
			return err
		}
		r.ReplayID = f.ID
		out, found = r, true
		return nil
	})
	if err != nil {
		return Replay{}, false, wrapLink(f, err)
	}
	return out, found, nil
}

// linkedReplay returns the replay request file f answers, when linked.
func linkedReplay(ctx context.Context, q querier, f File) (Replay, bool, error) {
	r, err := scanReplay(q.QueryRowContext(ctx, `SELECT `+replayColumns+` FROM replays WHERE replay_id = ?`, f.ID))
	ok, err := found(err)
	return r, ok, err
}

// openReplay returns the oldest replay request for f's inbox and name not
// linked to a file yet (sql.ErrNoRows when there is none).
func openReplay(ctx context.Context, q querier, f File) (Replay, error) {
	return scanReplay(q.QueryRowContext(ctx, `SELECT `+replayColumns+` FROM replays
		WHERE inbox = ? AND name = ? AND replay_id IS NULL AND original_id != ? ORDER BY id LIMIT 1`, f.Inbox, f.Name, f.ID))
}

func wrapLink(f File, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("linking file %d (%s) to its replay request: %w", f.ID, f.Name, err)
}

// ReplayOf returns the replay file id is the new run of; false when it is
// not a replay.
func (d *DB) ReplayOf(ctx context.Context, id int64) (Replay, bool, error) {
	r, found, err := linkedReplay(ctx, d.r, File{ID: id})
	if err != nil {
		return Replay{}, false, fmt.Errorf("reading what file %d replays: %w", id, err)
	}
	return r, found, nil
}

// ReplaysOf lists the replays of file id, oldest first, claimed or still
// waiting in the inbox (ReplayID 0).
func (d *DB) ReplaysOf(ctx context.Context, id int64) ([]Replay, error) {
	out, err := queryAll(ctx, d.r, scanReplay, `SELECT `+replayColumns+` FROM replays WHERE original_id = ? ORDER BY id`, id)
	if err != nil {
		return nil, fmt.Errorf("listing the replays of file %d: %w", id, err)
	}
	return out, nil
}

// OpenForNotes opens an existing journal to add replay requests while
// another process (the daemon) owns it: it neither creates nor migrates
// the file and takes no lock; its writes wait for the daemon's through
// SQLite's busy timeout. Reads work as with OpenReadOnly.
func OpenForNotes(ctx context.Context, path string) (*DB, error) {
	d, err := OpenReadOnly(ctx, path)
	if err != nil {
		return nil, err
	}
	w, err := openPool(d.path, false)
	if err != nil {
		_ = d.r.db.Close()
		return nil, fmt.Errorf("opening journal %s: %w", d.path, err)
	}
	d.w = conn{db: w, dl: sqliteDialect}
	return d, nil
}
