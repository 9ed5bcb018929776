package journal

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// FileState is where an inbound file is in its lifecycle.
type FileState string

const (
	// FileClaimed: moved into processing/ and recorded; nothing submitted yet.
	FileClaimed FileState = "claimed"
	// FileSubmitting: documents are being submitted.
	FileSubmitting FileState = "submitting"
	// FileDone: every document has its outcome; the file went to processed/.
	FileDone FileState = "done"
	// FileFailed: the file went to error/.
	FileFailed FileState = "failed"
	// FileDuplicate: the same content was already processed; nothing submitted.
	FileDuplicate FileState = "duplicate"
)

// Valid reports whether s is one of the known states.
func (s FileState) Valid() bool {
	switch s {
	case FileClaimed, FileSubmitting, FileDone, FileFailed, FileDuplicate:
		return true
	}
	return false
}

// Open reports whether a file in state s still needs work after a restart.
func (s FileState) Open() bool { return s == FileClaimed || s == FileSubmitting }

// File is one claimed inbound file.
type File struct {
	ID         int64
	Inbox      string // inbox name from the config
	Name       string // original file name
	Path       string // current path inside the inbox folder, e.g. processing/NAME
	Size       int64
	SHA256     string // hex
	DocType    string // canonical document type, e.g. "sales_orders"
	State      FileState
	Rows       int // data rows read
	DocsTotal  int
	DocsOK     int // created or already existing
	DocsFailed int
	ReportPath string
	FinalPath  string // path in processed/ or error/
	Message    string // why it failed, for the operator
	// Portal is the identity of the portal the file is submitted to (base
	// URL and company): duplicates are found per portal.
	Portal string
	// HeldSince is when the file started waiting for master data that is
	// not on the portal yet (zero: not held); WaitingFor lists the codes.
	HeldSince  time.Time
	WaitingFor string
	ClaimedAt  time.Time
	UpdatedAt  time.Time // set by the journal on every change
	// FixFile says that a failed file failed in itself (rows invalid in
	// it, or file errors): only a corrected file helps, not a replay.
	FixFile bool
	// Resolved says how a failed file left the work queue (zero: open).
	// Only Acknowledge and ResolveBy write it.
	Resolved Resolution
}

const fileColumns = `id, inbox, name, path, size, sha256, doc_type, state, row_count,
	docs_total, docs_ok, docs_failed, report_path, final_path, message, portal, held_since, waiting_for,
	claimed_at, updated_at, fix_file, resolved_at, resolution, resolved_file, resolved_by, resolved_note`

func scanFile(sc scanner) (File, error) {
	var f File
	var fixFile int
	err := sc.Scan(&f.ID, &f.Inbox, &f.Name, &f.Path, &f.Size, &f.SHA256, &f.DocType, &f.State, &f.Rows,
		&f.DocsTotal, &f.DocsOK, &f.DocsFailed, &f.ReportPath, &f.FinalPath, &f.Message, &f.Portal, timeCol{&f.HeldSince},
		&f.WaitingFor, timeCol{&f.ClaimedAt}, timeCol{&f.UpdatedAt}, &fixFile, timeCol{&f.Resolved.At}, &f.Resolved.Kind,
		&f.Resolved.FileID, &f.Resolved.By, &f.Resolved.Note)
	if err != nil {
		return File{}, err
	}
	f.FixFile = fixFile != 0
	return f, nil
}

func (d *DB) queryFiles(ctx context.Context, query string, args ...any) ([]File, error) {
	return queryAll(ctx, d.r, scanFile, query, args...)
}

// ClaimFile records a newly claimed file and returns its id. The claim is
// leased to this instance (lease.go) for Lease from now. The state is
// FileClaimed unless f.State says otherwise; ClaimedAt defaults to now.
// f.ID and f.UpdatedAt are ignored.
func (d *DB) ClaimFile(ctx context.Context, f File) (int64, error) {
	if err := checkClaim(&f, false, "inbox and name"); err != nil {
		return 0, err
	}
	id, err := d.insertFile(ctx, d.w, f)
	if err != nil {
		return 0, fmt.Errorf("claiming %s in the journal: %w", f.Name, err)
	}
	return id, nil
}

// checkClaim checks a file to claim, which needs an inbox, a name and,
// when noPath counts, a path (required names them), and defaults its
// state to FileClaimed.
func checkClaim(f *File, noPath bool, required string) error {
	if f.Inbox == "" || f.Name == "" || noPath {
		return fmt.Errorf("claiming file %q of inbox %q: %s are required", f.Name, f.Inbox, required)
	}
	if f.State == "" {
		f.State = FileClaimed
	}
	if !f.State.Valid() {
		return fmt.Errorf("claiming %s: unknown file state %q", f.Name, f.State)
	}
	return nil
}

// insertFile inserts the checked f, leased to this instance.
func (d *DB) insertFile(ctx context.Context, q querier, f File) (int64, error) {
	var id int64
	err := q.QueryRowContext(ctx, fileInsert+` VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		d.fileInsertArgs(f)...).Scan(&id)
	return id, err
}

// fileInsert names the columns insertFile and ClaimExclusive set, in the
// order of fileInsertArgs.
const fileInsert = `INSERT INTO files (inbox, name, path, size, sha256, doc_type, state,
		row_count, docs_total, docs_ok, docs_failed, report_path, final_path, message, portal, held_since, waiting_for,
		claimed_at, updated_at, owner, lease_until)`

// fileInsertArgs are the values of fileInsert for f, claimed now (unless
// f.ClaimedAt says when) and leased to this instance.
func (d *DB) fileInsertArgs(f File) []any {
	now := d.now()
	if f.ClaimedAt.IsZero() {
		f.ClaimedAt = now
	}
	return []any{f.Inbox, f.Name, f.Path, f.Size, f.SHA256, f.DocType, f.State,
		f.Rows, f.DocsTotal, f.DocsOK, f.DocsFailed, f.ReportPath, f.FinalPath, f.Message, f.Portal, optTime(f.HeldSince), f.WaitingFor,
		formatTime(f.ClaimedAt), formatTime(now), d.instance, formatTime(now.Add(d.lease))}
}

// File returns the file with the id, or ErrNotFound.
func (d *DB) File(ctx context.Context, id int64) (File, error) {
	f, err := scanFile(d.r.QueryRowContext(ctx, `SELECT `+fileColumns+` FROM files WHERE id = ?`, id))
	if err = notFound(err); err != nil {
		return File{}, fmt.Errorf("reading file %d: %w", id, err)
	}
	return f, nil
}

// byInbox is the WHERE clause of the files of one inbox ("": every
// inbox), with inboxArgs its argument: a condition on inbox alone, which
// the indexes starting with inbox serve (a thousand inboxes each asking for
// theirs do not each read the files of all).
func byInbox(inbox string) string {
	if inbox == "" {
		return ` WHERE 1 = 1`
	}
	return ` WHERE inbox = ?`
}

func inboxArgs(inbox string) []any {
	if inbox == "" {
		return nil
	}
	return []any{inbox}
}

// OpenFiles lists the inbox's files still claimed or submitting, oldest
// first: after a crash these are resumed. An empty inbox lists every inbox.
func (d *DB) OpenFiles(ctx context.Context, inbox string) ([]File, error) {
	fs, err := d.queryFiles(ctx, `SELECT `+fileColumns+` FROM files`+byInbox(inbox)+` AND state IN ('claimed', 'submitting') ORDER BY id`,
		inboxArgs(inbox)...)
	if err != nil {
		return nil, fmt.Errorf("listing open files of inbox %q: %w", inbox, err)
	}
	return fs, nil
}

// BackfillPortal gives the files of the inbox recorded before portals were
// told apart (by a filebridge older than the portal column: no portal) the
// identity of the inbox's portal, so that a file processed before the
// upgrade is still found by ProcessedHash (a duplicate dropped again is
// not submitted again). Writers call it at start for every inbox; it
// returns how many files it changed (none after the first time).
func (d *DB) BackfillPortal(ctx context.Context, inbox, portal string) (int64, error) {
	n, err := affected(d.exec(ctx, `UPDATE files SET portal = ? WHERE inbox = ? AND portal = ''`, portal, inbox))
	if err == nil {
		return n, nil
	}
	return 0, fmt.Errorf("giving the files of inbox %s recorded before the upgrade their portal: %w", inbox, err)
}

// ProcessedHash finds the most recent file of the inbox with this content
// that ended FileDone on the same portal (identity as in File.Portal;
// files recorded before portals were told apart have none until
// BackfillPortal gives them their inbox's). The bool is false when there
// is none.
func (d *DB) ProcessedHash(ctx context.Context, inbox, portal, sha256 string) (File, bool, error) {
	f, err := scanFile(d.r.QueryRowContext(ctx, `SELECT `+fileColumns+` FROM files
		WHERE inbox = ? AND portal = ? AND sha256 = ? AND state = 'done' ORDER BY id DESC LIMIT 1`, inbox, portal, sha256))
	ok, err := found(err)
	if err != nil {
		return File{}, false, fmt.Errorf("looking up content %s in inbox %q: %w", sha256, inbox, err)
	}
	return f, ok, nil
}

// UpdateFile stores f's path, document type, state, counts, report and
// final paths, message, hold and FixFile (not its resolution); Inbox, Name, Portal, ClaimedAt and the
// Size and SHA256 its claim read never change (leaving out the hash
// spares two indexes a write: a third of the pages an update writes).
// UpdatedAt is set to now. It returns ErrNotFound for an unknown id.
// An open file whose state and path are those stored is updated without
// them (updateInPlaceQuery), else with them: the same outcome either way.
// A file that ends (done, failed, duplicate) drops the summary and the
// documents' bodies of its decoding: they served to submit and report it,
// and the journal of a daemon that runs for years keeps its results only.
func (d *DB) UpdateFile(ctx context.Context, f File) error {
	if !f.State.Valid() {
		return fmt.Errorf("updating file %d: unknown file state %q", f.ID, f.State)
	}
	var err error
	if f.State.Open() {
		err = d.write(ctx, func(tx *txn) error {
			// Most updates of an open file record a step of it (its plan,
			// why it waits), in the state and at the path stored.
			args := d.updateFileArgs(f, "")
			n, err := affected(tx.ExecContext(ctx, updateInPlaceQuery, slices.Concat(args[2:], []any{f.State, f.Path})...))
			if err != nil || n == 1 {
				return err
			}
			return affectedOne(tx.ExecContext(ctx, updateFileQuery, args...))
		})
	} else {
		err = d.write(ctx, func(tx *txn) error {
			err := affectedOne(tx.ExecContext(ctx, endFileQuery, d.updateFileArgs(f, "")...))
			if err == nil {
				_, err = tx.ExecContext(ctx, `UPDATE documents SET body = '' WHERE file_id = ? AND body <> ''`, f.ID)
			}
			return err
		})
	}
	if err != nil {
		return fmt.Errorf("updating file %d (%s): %w", f.ID, f.Name, err)
	}
	return nil
}

// The updates of a file store what UpdateFile stores, with
// updateFileArgs, and its summary in the same statement: updateFileQuery
// the summary of its decoding ("" keeps the one recorded), endFileQuery
// the summary given as it is (UpdateFile clears it with "").
// updateInPlaceQuery is updateFileQuery for a file whose state and path
// are those stored (updateFileArgs without its first two, then the state
// and the path): it leaves them out, as setting them rewrites the four
// indexes on them even to the same values (four of the five pages such an
// update writes, and three quarters of its time).
const (
	updateFileDetails = `doc_type = ?, row_count = ?, docs_total = ?, docs_ok = ?, docs_failed = ?, report_path = ?,
	final_path = ?, message = ?, held_since = ?, waiting_for = ?, fix_file = ?, updated_at = ?`
	updateFileSet      = `UPDATE files SET path = ?, state = ?, ` + updateFileDetails
	updateFileQuery    = updateFileSet + `, summary = coalesce(nullif(?, ''), summary) WHERE id = ?`
	endFileQuery       = updateFileSet + `, summary = ? WHERE id = ?`
	updateInPlaceQuery = `UPDATE files SET ` + updateFileDetails +
		`, summary = coalesce(nullif(?, ''), summary) WHERE id = ? AND state = ? AND path = ?`
	// updateAtPathQuery is updateFileQuery for a file whose path is the
	// one stored (updateFileArgs without the first, then the path), as
	// when its decoding is recorded: it spares the index on the path.
	updateAtPathQuery = `UPDATE files SET state = ?, ` + updateFileDetails +
		`, summary = coalesce(nullif(?, ''), summary) WHERE id = ? AND path = ?`
)

// updateFileArgs are the arguments of updateFileQuery and endFileQuery.
func (d *DB) updateFileArgs(f File, summary string) []any {
	fixFile := 0
	if f.FixFile {
		fixFile = 1
	}
	return []any{f.Path, f.State, f.DocType, f.Rows, f.DocsTotal, f.DocsOK, f.DocsFailed,
		f.ReportPath, f.FinalPath, f.Message, optTime(f.HeldSince), f.WaitingFor, fixFile, formatTime(d.now()), summary, f.ID}
}

// RecentFiles lists the inbox's most recently claimed files, newest first,
// at most limit of them (limit <= 0: all). An empty inbox lists every inbox.
func (d *DB) RecentFiles(ctx context.Context, inbox string, limit int) ([]File, error) {
	return d.Files(ctx, FileFilter{Inbox: inbox, Limit: limit})
}

// FileStates counts the inbox's files per state (empty inbox: every inbox),
// for `status` and metrics.
func (d *DB) FileStates(ctx context.Context, inbox string) (map[FileState]int, error) {
	out := map[FileState]int{}
	err := eachRow(ctx, d.r, func(sc scanner) error {
		var s FileState
		var n int
		if err := sc.Scan(&s, &n); err != nil {
			return err
		}
		out[s] = n
		return nil
	}, `SELECT state, count(*) FROM files`+byInbox(inbox)+` GROUP BY state`, inboxArgs(inbox)...)
	if err != nil {
		return nil, fmt.Errorf("counting files of inbox %q: %w", inbox, err)
	}
	return out, nil
}

// Prune deletes the history older than the cutoff: the files finished
// before it (updated, and resolved when failed, before it) with their
// documents, and the export runs finished before it with the copies of
// their files. It keeps what is still worked on: files claimed or being
// submitted, open failures (the failures work queue), and a replayed file
// while its replay is requested or kept (the replay's link to it goes with
// the original, by cascade; a pruned replay's link goes with it, so that
// it never reads as a request still waiting). Cursors and sequences are
// kept. Pruned files no longer count for ProcessedHash. It deletes
// pruneBatch files or runs a transaction, so that other writes wait for
// one batch, not for the whole history. It returns the number of files
// deleted.
func (d *DB) Prune(ctx context.Context, before time.Time) (int64, error) {
	cutoff := formatTime(before)
	var total int64
	for after := int64(0); ; {
		var ids []int64
		var n int64
		err := d.write(ctx, func(tx *txn) error {
			var err error
			ids, err = queryAll(ctx, tx, scanID, prunable, cutoff, cutoff, cutoff, cutoff, after, pruneBatch)
			if err != nil || len(ids) == 0 {
				return err
			}
			in, args := inList(len(ids)), anys(ids)
			if _, err := tx.ExecContext(ctx, `DELETE FROM replays WHERE replay_id IN `+in, args...); err != nil {
				return err
			}
			n, err = affected(tx.ExecContext(ctx, `DELETE FROM files WHERE id IN `+in, args...))
			return err
		})
		if err != nil {
			return total, fmt.Errorf("pruning the files finished before %s: %w", cutoff, err)
		}
		total += n
		if len(ids) < pruneBatch {
			break
		}
		after = ids[len(ids)-1]
	}
	for {
		n, err := affected(d.exec(ctx, `DELETE FROM export_runs WHERE id IN (SELECT id FROM export_runs
			WHERE finished_at != '' AND finished_at < ? ORDER BY id LIMIT ?)`, cutoff, pruneBatch))
		if err != nil {
			return total, fmt.Errorf("pruning the export runs finished before %s: %w", cutoff, err)
		}
		if n < int64(pruneBatch) {
			return total, nil
		}
	}
}

// scanID reads a row of one id.
func scanID(sc scanner) (int64, error) {
	var id int64
	err := sc.Scan(&id)
	return id, err
}

// pruneBatch is how many files or export runs one transaction of Prune
// deletes (a variable for the tests).
var pruneBatch = 1000

// finishedFile is the condition on a file f of the files table that Prune
// may delete, given the cutoff twice: nobody works on it, and it was
// updated (and resolved, when it failed) before the cutoff.
const finishedFile = `f.state IN ('done', 'duplicate', 'failed') AND NOT (f.state = 'failed' AND f.resolved_at = '')
	AND f.updated_at < ? AND f.resolved_at < ?`

// prunable selects the ids of the next files Prune deletes, given the
// cutoff four times, the last id deleted and the batch size: finished
// files, except a replayed file while a replay of it is only requested
// (replay_id NULL) or is kept, up the chain of replays.
const prunable = `WITH RECURSIVE kept (id) AS (
		SELECT r.original_id FROM replays r WHERE r.replay_id IS NULL
			OR NOT EXISTS (SELECT 1 FROM files f WHERE f.id = r.replay_id AND ` + finishedFile + `)
		UNION
		SELECT r.original_id FROM replays r JOIN kept k ON r.replay_id = k.id
	)
	SELECT f.id FROM files f WHERE ` + finishedFile + `
		AND f.id > ? AND f.id NOT IN (SELECT id FROM kept) ORDER BY f.id LIMIT ?`

// optTime formats t, or "" for the zero time.
func optTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return formatTime(t)
}
