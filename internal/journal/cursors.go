package journal

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Cursor is how far an export has read: the greatest updatedAt (or
// createdAt) seen, and the keys already exported at exactly that instant.
// The API's "after" filter is inclusive, so the next poll asks from At and
// drops the rows whose key is in Keys: nothing is skipped or repeated.
type Cursor struct {
	Outbox    string
	Export    string
	At        time.Time
	Keys      []string
	UpdatedAt time.Time // set by the journal when saved
}

func scanCursor(sc scanner) (Cursor, error) {
	var c Cursor
	var keys string
	if err := sc.Scan(&c.Outbox, &c.Export, timeCol{&c.At}, &keys, timeCol{&c.UpdatedAt}); err != nil {
		return Cursor{}, err
	}
	if err := json.Unmarshal([]byte(keys), &c.Keys); err != nil {
		return Cursor{}, fmt.Errorf("reading stored cursor keys: %w", err)
	}
	if len(c.Keys) == 0 {
		c.Keys = nil
	}
	return c, nil
}

// Cursor returns the export's cursor; the bool is false before the first
// save.
func (d *DB) Cursor(ctx context.Context, outbox, export string) (Cursor, bool, error) {
	c, err := scanCursor(d.r.QueryRowContext(ctx, `SELECT outbox, export, at, keys, updated_at
		FROM cursors WHERE outbox = ? AND export = ?`, outbox, export))
	ok, err := found(err)
	if err != nil {
		return Cursor{}, false, fmt.Errorf("reading the cursor of export %s/%s: %w", outbox, export, err)
	}
	return c, ok, nil
}

// SaveCursor stores the export's cursor, replacing the previous one. Call
// it only once the export file is durably in place.
//
// In the run of a tick (WithTick) it saves only while this instance holds
// the tick under a live lease, and fails with ErrTickLost otherwise.
func (d *DB) SaveCursor(ctx context.Context, c Cursor) error {
	if c.Outbox == "" || c.Export == "" {
		return fmt.Errorf("saving cursor %q/%q: outbox and export are required", c.Outbox, c.Export)
	}
	keys := c.Keys
	if keys == nil {
		keys = []string{}
	}
	b, err := json.Marshal(keys)
	if err != nil {
		return fmt.Errorf("saving the cursor of export %s/%s: %w", c.Outbox, c.Export, err)
	}
	const save = `INSERT INTO cursors (outbox, export, at, keys, updated_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (outbox, export) DO UPDATE
		SET at = excluded.at, keys = excluded.keys, updated_at = excluded.updated_at`
	args := []any{c.Outbox, c.Export, formatTime(c.At), string(b), formatTime(d.now())}
	if t, ok := tickOf(ctx); ok {
		// Fenced (fence.go): only while this instance holds the tick, the
		// export's claims waiting meanwhile (lockExport).
		err = d.write(ctx, func(tx *txn) error {
			if err := lockExport(ctx, tx, t.Outbox, t.Export); err != nil {
				return err
			}
			if err := ownsTick(ctx, tx, d, t); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, save, args...)
			return err
		})
	} else {
		_, err = d.w.ExecContext(ctx, save, args...)
	}
	if err != nil {
		return fmt.Errorf("saving the cursor of export %s/%s: %w", c.Outbox, c.Export, err)
	}
	return nil
}

// NextSequence returns the export's next sequence number, starting at 1,
// for {seq} in file names. Numbers are durable and strictly increasing; one
// taken by a run that then failed is not reused.
func (d *DB) NextSequence(ctx context.Context, outbox, export string) (int64, error) {
	var n int64
	err := d.write(ctx, func(tx *txn) error {
		return tx.QueryRowContext(ctx, `INSERT INTO sequences (outbox, export, value) VALUES (?, ?, 1)
			ON CONFLICT (outbox, export) DO UPDATE SET value = sequences.value + 1
			RETURNING value`, outbox, export).Scan(&n)
	})
	if err != nil {
		return 0, fmt.Errorf("taking the next sequence number of export %s/%s: %w", outbox, export, err)
	}
	return n, nil
}
