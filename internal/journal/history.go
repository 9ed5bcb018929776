package journal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// OpenReadOnly opens an existing journal for reading only, for the
// operator's commands (files, show, exports) and the web console: it never
// creates, migrates or writes the file, takes no lock a running daemon
// holds, and reads alongside it (WAL readers see the last committed state).
// The write methods of the returned DB fail.
func OpenReadOnly(ctx context.Context, path string) (*DB, error) {
	if path == "" {
		return nil, errors.New("opening journal: no path given: set path in the [journal] table of the config")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("opening journal %s: %w", path, err)
	}
	if _, err := os.Stat(abs); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("opening journal %s: %w: filebridge has not run with this config yet (or [journal] path points elsewhere)", abs, err)
		}
		return nil, fmt.Errorf("opening journal %s: %w", abs, err)
	}
	r, err := openPool(abs, true)
	if err != nil {
		return nil, fmt.Errorf("opening journal %s for reading: %w", abs, err)
	}
	var v int
	if err := r.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		_ = r.Close()
		return nil, fmt.Errorf("opening journal %s for reading: %w", abs, err)
	}
	if v > SchemaVersion() {
		_ = r.Close()
		return nil, fmt.Errorf("opening journal %s: %w: the file has schema version %d, this filebridge knows up to %d", abs, ErrSchemaTooNew, v, SchemaVersion())
	}
	if v == 0 {
		_ = r.Close()
		return nil, fmt.Errorf("opening journal %s: it holds no journal yet: start filebridge run (or process) once", abs)
	}
	if v < SchemaVersion() {
		// Read-only: it cannot be migrated here, and the queries need the
		// current columns.
		_ = r.Close()
		return nil, fmt.Errorf("opening journal %s: %w: it has schema version %d, this filebridge reads %d: run `filebridge run` (or `filebridge process`) once to upgrade the journal",
			abs, ErrSchemaOld, v, SchemaVersion())
	}
	// Both pools are the read-only one: query_only makes every write fail.
	c := conn{db: r, dl: sqliteDialect}
	return &DB{path: abs, w: c, r: c, now: utcNow}, nil
}

// FileFilter selects files of the history. Zero fields match everything.
type FileFilter struct {
	Inbox   string
	States  []FileState
	DocType string
	Since   time.Time // claimed at or after
	Until   time.Time // claimed before
	Name    string    // part of the file name, case-insensitive
	// Held selects the files held in processing/ for master data not on
	// the portal yet (open, with held_since set).
	Held bool
	// Unresolved leaves out the failures resolved already (the work
	// queue: failed files still open).
	Unresolved bool
	Limit      int // at most this many (<= 0: all)
	Offset     int // skip this many of the newest first
}

func (f FileFilter) where() (string, []any) {
	var conds []string
	var args []any
	if f.Inbox != "" {
		conds = append(conds, "inbox = ?")
		args = append(args, f.Inbox)
	}
	if len(f.States) > 0 {
		conds = append(conds, "state IN "+inList(len(f.States)))
		args = append(args, anys(f.States)...)
	}
	if f.Held {
		conds = append(conds, "held_since != '' AND state IN ('claimed', 'submitting')")
	}
	if f.Unresolved {
		conds = append(conds, "resolved_at = ''")
	}
	if f.DocType != "" {
		conds = append(conds, "doc_type = ?")
		args = append(args, f.DocType)
	}
	if !f.Since.IsZero() {
		conds = append(conds, "claimed_at >= ?")
		args = append(args, formatTime(f.Since))
	}
	if !f.Until.IsZero() {
		conds = append(conds, "claimed_at < ?")
		args = append(args, formatTime(f.Until))
	}
	if f.Name != "" {
		// LIKE with the pattern's own % and _ escaped: portable, unlike instr.
		conds = append(conds, `lower(name) LIKE ? ESCAPE '\'`)
		args = append(args, containing(strings.ToLower(f.Name)))
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// Files lists the files the filter selects, newest first (by claim order).
func (d *DB) Files(ctx context.Context, f FileFilter) ([]File, error) {
	where, args := f.where()
	args = append(args, d.dl.limitArg(f.Limit), max(f.Offset, 0))
	fs, err := d.queryFiles(ctx, `SELECT `+fileColumns+` FROM files`+where+` ORDER BY id DESC LIMIT ? OFFSET ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("listing files: %w", err)
	}
	return fs, nil
}

// CountFiles counts the files the filter selects (Limit and Offset ignored).
func (d *DB) CountFiles(ctx context.Context, f FileFilter) (int, error) {
	where, args := f.where()
	var n int
	if err := d.r.QueryRowContext(ctx, `SELECT count(*) FROM files`+where, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("counting files: %w", err)
	}
	return n, nil
}

// FindFiles resolves an operator's reference to files: a journal id
// ("42" or "#42") gives that file, anything else the files of that name,
// newest first. None found is ErrNotFound.
func (d *DB) FindFiles(ctx context.Context, ref string) ([]File, error) {
	ref = strings.TrimSpace(ref)
	if id, err := strconv.ParseInt(strings.TrimPrefix(ref, "#"), 10, 64); err == nil {
		f, err := d.File(ctx, id)
		if err == nil {
			return []File{f}, nil
		}
		if !errors.Is(err, ErrNotFound) {
			return nil, err
		}
	}
	fs, err := d.queryFiles(ctx, `SELECT `+fileColumns+` FROM files WHERE name = ? ORDER BY id DESC`, ref)
	if err != nil {
		return nil, fmt.Errorf("looking up file %q: %w", ref, err)
	}
	if len(fs) == 0 {
		return nil, fmt.Errorf("file %q: %w: give a journal id or a file name as `filebridge files` lists them", ref, ErrNotFound)
	}
	return fs, nil
}

// ResultCounts counts the documents of each file by result.
func (d *DB) ResultCounts(ctx context.Context, fileIDs []int64) (map[int64]map[Result]int, error) {
	if len(fileIDs) == 0 {
		return map[int64]map[Result]int{}, nil
	}
	out, err := queryCounts[int64, Result](ctx, d.r, `SELECT file_id, result, count(*) FROM documents
		WHERE file_id IN `+inList(len(fileIDs))+` GROUP BY file_id, result`, anys(fileIDs)...)
	if err != nil {
		return nil, fmt.Errorf("counting documents: %w", err)
	}
	return out, nil
}

// queryCounts runs q, whose rows are (group, subgroup, count), into
// out[group][subgroup] = count.
func queryCounts[G, S comparable](ctx context.Context, c conn, q string, args ...any) (map[G]map[S]int, error) {
	out := map[G]map[S]int{}
	err := eachRow(ctx, c, func(sc scanner) error {
		var g G
		var s S
		var n int
		if err := sc.Scan(&g, &s, &n); err != nil {
			return err
		}
		if out[g] == nil {
			out[g] = map[S]int{}
		}
		out[g][s] = n
		return nil
	}, q, args...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// InboxDay counts an inbox's files by state among those claimed at or
// after since (e.g. the start of today), for the console's dashboard;
// resolved failures no longer count.
func (d *DB) InboxDay(ctx context.Context, since time.Time) (map[string]map[FileState]int, error) {
	out, err := queryCounts[string, FileState](ctx, d.r, `SELECT inbox, state, count(*) FROM files
		WHERE (claimed_at >= ? OR state IN ('claimed', 'submitting')) AND resolved_at = '' GROUP BY inbox, state`, formatTime(since))
	if err != nil {
		return nil, fmt.Errorf("counting today's files: %w", err)
	}
	return out, nil
}

// RejectedPath is where NAME.rejected.csv lies beside the file's report;
// "" when none was written: without a report, or when no document failed
// (a failed file whose header or content could not be read has none).
func (f File) RejectedPath() string {
	stem, ok := strings.CutSuffix(f.ReportPath, ".report.csv")
	if !ok || f.DocsFailed == 0 {
		return ""
	}
	return stem + ".rejected.csv"
}

// Held reports whether the file waits in processing/ for master data not
// on the portal yet; WaitingFor names the codes, HeldSince since when.
func (f File) Held() bool { return !f.HeldSince.IsZero() && f.State.Open() }

// WaitingList splits WaitingFor into its codes (nil when not held).
func (f File) WaitingList() []string {
	if f.WaitingFor == "" {
		return nil
	}
	return strings.Split(f.WaitingFor, "; ")
}

// FinishedAt is when the file reached its final state; zero while open.
func (f File) FinishedAt() time.Time {
	if f.State.Open() {
		return time.Time{}
	}
	return f.UpdatedAt
}
