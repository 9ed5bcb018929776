package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Interchange is an inbound EDI interchange the journal has seen: a later
// one of the same sender and control number is a duplicate.
type Interchange struct {
	Sender, Control string // "ZZ:SHOPERP", ISA13 / UNB 0020
	FileID          int64
	Inbox, Name     string
	SeenAt          string
}

// SeenInterchange returns the first file that recorded the interchange of
// sender and control; false when none did.
func (d *DB) SeenInterchange(ctx context.Context, sender, control string) (Interchange, bool, error) {
	ic := Interchange{Sender: sender, Control: control}
	err := d.r.QueryRowContext(ctx, `SELECT file_id, inbox, name, seen_at FROM edi_interchanges WHERE sender = ? AND control = ?`,
		sender, control).Scan(&ic.FileID, &ic.Inbox, &ic.Name, &ic.SeenAt)
	if errors.Is(err, sql.ErrNoRows) {
		return Interchange{}, false, nil
	}
	if err != nil {
		return Interchange{}, false, fmt.Errorf("looking up interchange %s of %s: %w", control, sender, err)
	}
	return ic, true, nil
}

// RecordInterchange records that file fileID carried the interchange; a
// second record of the same sender and control keeps the first.
func (d *DB) RecordInterchange(ctx context.Context, ic Interchange) error {
	_, err := d.exec(ctx, `INSERT INTO edi_interchanges (sender, control, file_id, inbox, name, seen_at) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (sender, control) DO NOTHING`, ic.Sender, ic.Control, ic.FileID, ic.Inbox, ic.Name, formatTime(d.now()))
	if err != nil {
		return fmt.Errorf("recording interchange %s of %s: %w", ic.Control, ic.Sender, err)
	}
	return nil
}

// NextControl returns the next outbound control number for partner (1
// first): sequential and never reused, one counter per partner shared by
// every instance of the journal.
func (d *DB) NextControl(ctx context.Context, partner string) (int64, error) {
	var n int64
	err := d.write(ctx, func(tx *txn) (err error) {
		n, err = nextControl(ctx, tx, partner)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("numbering an interchange for %s: %w", partner, err)
	}
	return n, nil
}

// NumberRun gives export run runID the next interchange control number of
// partner, in the transaction that records it on the run: sequential,
// never reused, shared by every instance. A run that writes no file takes
// none (it is asked for once the run has rows).
func (d *DB) NumberRun(ctx context.Context, runID int64, partner string) (int64, error) {
	var n int64
	err := d.write(ctx, func(tx *txn) (err error) {
		if n, err = nextControl(ctx, tx, partner); err != nil {
			return err
		}
		return affectedOne(tx.ExecContext(ctx, `UPDATE export_runs SET edi_control = ? WHERE id = ?`, n, runID))
	})
	if err != nil {
		return 0, fmt.Errorf("numbering the interchange of export run %d for %s: %w", runID, partner, err)
	}
	return n, nil
}

// nextControl takes the next number of partner's counter in tx.
func nextControl(ctx context.Context, tx *txn, partner string) (n int64, err error) {
	err = tx.QueryRowContext(ctx, `INSERT INTO edi_controls (partner, last) VALUES (?, 1)
		ON CONFLICT (partner) DO UPDATE SET last = edi_controls.last + 1 RETURNING last`, partner).Scan(&n)
	return n, err
}
