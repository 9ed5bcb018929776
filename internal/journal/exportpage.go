package journal

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"
)

// RunFilter selects export runs for a page of their history: an empty
// Outbox or Export matches any; Limit <= 0 is no limit.
type RunFilter struct {
	Outbox, Export string
	Limit, Offset  int
}

// RunsPage lists the runs the filter selects, newest first, with their
// total.
func (d *DB) RunsPage(ctx context.Context, f RunFilter) ([]ExportRun, int, error) {
	const where = ` FROM export_runs WHERE (? = '' OR outbox = ?) AND (? = '' OR export = ?)`
	args := []any{f.Outbox, f.Outbox, f.Export, f.Export}
	var total int
	if err := d.r.QueryRowContext(ctx, `SELECT count(*)`+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("counting runs of export %s/%s: %w", f.Outbox, f.Export, err)
	}
	runs, err := d.queryRuns(ctx, `SELECT `+runColumns+where+` ORDER BY id DESC LIMIT ? OFFSET ?`,
		append(args, d.limitArg(f.Limit), max(f.Offset, 0))...)
	if err != nil {
		return nil, 0, fmt.Errorf("listing runs of export %s/%s: %w", f.Outbox, f.Export, err)
	}
	return runs, total, nil
}

// Run returns export run id (ErrNotFound when there is none).
func (d *DB) Run(ctx context.Context, id int64) (ExportRun, error) {
	r, err := scanRun(d.r.QueryRowContext(ctx, `SELECT `+runColumns+` FROM export_runs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return ExportRun{}, fmt.Errorf("export run %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return ExportRun{}, fmt.Errorf("reading export run %d: %w", id, err)
	}
	return r, nil
}

// KeyHit is a document of an input file found by its key.
type KeyHit struct {
	Document
	Inbox, FileName, DocType string
	FileState                FileState
	ClaimedAt                time.Time
}

// FindKeys lists the documents of input files whose key contains q (case
// insensitive: an order number, a SKU code, a reception number), newest
// file first, at most limit, and whether there were more.
func (d *DB) FindKeys(ctx context.Context, q string, limit int) ([]KeyHit, bool, error) {
	q = strings.TrimSpace(q)
	if q == "" {
		return nil, false, nil
	}
	esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(strings.ToLower(q))
	scan := func(sc scanner) (KeyHit, error) {
		var h KeyHit
		var updated, claimed string
		err := sc.Scan(&h.FileID, &h.Key, &h.Rows, &h.Result, &h.PortalID, &h.Message, &h.Attempts, &updated,
			&h.Inbox, &h.FileName, &h.DocType, &h.FileState, &claimed)
		if err == nil {
			h.UpdatedAt, err = parseTime(updated)
		}
		if err == nil {
			h.ClaimedAt, err = parseTime(claimed)
		}
		return h, err
	}
	hits, err := queryAll(ctx, d.r, scan, `SELECT d.file_id, d.key, d.src_rows, d.result, d.portal_id, d.message,
		d.attempts, d.updated_at, f.inbox, f.name, f.doc_type, f.state, f.claimed_at
		FROM documents d JOIN files f ON f.id = d.file_id
		WHERE lower(d.key) LIKE ? ESCAPE '\'
		ORDER BY d.file_id DESC, d.id LIMIT ?`, "%"+esc+"%", d.limitArg(limit+1))
	if err != nil {
		return nil, false, fmt.Errorf("searching documents for %q: %w", q, err)
	}
	more := limit > 0 && len(hits) > limit
	if more {
		hits = hits[:limit]
	}
	return hits, more, nil
}

// KeepCopy keeps the gzip-compressed content of the file run runID wrote,
// for a re-send; size is the file's size. A run keeps one copy.
func (d *DB) KeepCopy(ctx context.Context, runID int64, size int64, gz []byte) error {
	_, err := d.w.ExecContext(ctx, `INSERT INTO export_copies (run_id, size, content) VALUES (?, ?, ?)`,
		runID, size, base64.StdEncoding.EncodeToString(gz))
	if err != nil {
		return fmt.Errorf("keeping a copy of the file of export run %d: %w", runID, err)
	}
	return nil
}

// Copy returns the gzip-compressed copy of the file run runID wrote
// (ErrNotFound when none was kept) and the file's size.
func (d *DB) Copy(ctx context.Context, runID int64) ([]byte, int64, error) {
	var text string
	var size int64
	err := d.r.QueryRowContext(ctx, `SELECT content, size FROM export_copies WHERE run_id = ?`, runID).Scan(&text, &size)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, fmt.Errorf("no copy of the file of export run %d was kept: %w", runID, ErrNotFound)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("reading the copy of the file of export run %d: %w", runID, err)
	}
	gz, err := base64.StdEncoding.DecodeString(text)
	if err != nil {
		return nil, 0, fmt.Errorf("reading the copy of the file of export run %d: %w", runID, err)
	}
	return gz, size, nil
}

// HasCopies reports which of the runs have a kept copy.
func (d *DB) HasCopies(ctx context.Context, runIDs []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	for _, id := range runIDs {
		var n int
		if err := d.r.QueryRowContext(ctx, `SELECT count(*) FROM export_copies WHERE run_id = ?`, id).Scan(&n); err != nil {
			return nil, fmt.Errorf("looking for copies of export runs: %w", err)
		}
		out[id] = n > 0
	}
	return out, nil
}

// RecordResend records that run from's file was written again as name
// (a finished run of the same export, with its rows, marked as a re-send).
func (d *DB) RecordResend(ctx context.Context, from ExportRun, name string) (int64, error) {
	now := formatTime(d.now())
	var id int64
	err := d.w.QueryRowContext(ctx, `INSERT INTO export_runs (outbox, export, started_at, finished_at, row_count, file_name, resent_from)
		VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`, from.Outbox, from.Export, now, now, from.Rows, name, from.ID).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("recording the re-send of export run %d as %s: %w", from.ID, name, err)
	}
	return id, nil
}
