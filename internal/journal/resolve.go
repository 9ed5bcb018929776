package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// A failed file is open, a piece of work for the operator, until it is
// resolved: by a replay that succeeded, by later files that put in the
// portal every document it did not (a clerk's corrected re-drop, under
// any name), or acknowledged by hand. The resolution is recorded on the
// file; the file and its documents stay in the journal.

// How a failure was resolved (Resolution.Kind).
const (
	ResolvedByReplay = "replay"       // its replay, file FileID, succeeded
	ResolvedByFile   = "file"         // file FileID put its missing documents in the portal
	Acknowledged     = "acknowledged" // by hand: By, Note
)

// Resolution is how a failed file left the work queue; the zero value is
// an open failure.
type Resolution struct {
	Kind   string // ResolvedByReplay, ResolvedByFile or Acknowledged
	FileID int64  // the replay or the file that resolved it
	By     string // who: the replay's requester, the acknowledging user
	At     time.Time
	Note   string
}

// Open reports whether the failure is not resolved yet.
func (r Resolution) Open() bool { return r.At.IsZero() }

// What names what resolved the failure: "replay #18", "file #20",
// "acknowledged".
func (r Resolution) What() string {
	if r.Kind == Acknowledged || r.FileID == 0 {
		return r.Kind
	}
	return fmt.Sprintf("%s #%d", r.Kind, r.FileID)
}

// String says it in a sentence's words: "replay #18 (cli) at 2026-…",
// "acknowledged by ana at …: the order was entered by phone".
func (r Resolution) String() string {
	if r.Open() {
		return ""
	}
	var b strings.Builder
	b.WriteString(r.What())
	if r.By != "" {
		if r.Kind == Acknowledged {
			b.WriteString(" by " + r.By)
		} else {
			b.WriteString(" (" + r.By + ")")
		}
	}
	b.WriteString(" at " + r.At.Format(time.RFC3339))
	if r.Note != "" {
		b.WriteString(": " + r.Note)
	}
	return b.String()
}

// OpenFailure reports whether f is a failure still waiting for the operator.
func (f File) OpenFailure() bool { return f.State == FileFailed && f.Resolved.Open() }

// Replayable reports whether a replay can help the failed file: not when
// it failed in itself (FixFile), nor once resolved.
func (f File) Replayable() bool { return f.OpenFailure() && !f.FixFile }

var (
	// ErrNotFailed refuses to resolve a file that did not fail.
	ErrNotFailed = errors.New("the file did not fail")
	// ErrResolved refuses to resolve a failure twice.
	ErrResolved = errors.New("the failure is resolved already")
)

// Acknowledge resolves the failed file id by hand: who took care of it,
// and how (note). It returns the file as resolved; ErrNotFound, or
// ErrNotFailed / ErrResolved (with what resolved it) when there is nothing
// to acknowledge.
func (d *DB) Acknowledge(ctx context.Context, id int64, by, note string) (File, error) {
	r := Resolution{Kind: Acknowledged, By: by, Note: strings.TrimSpace(note)}
	var f File
	err := d.write(ctx, func(tx *txn) error {
		ok, err := resolve(ctx, tx, id, r, formatTime(d.now()))
		if err != nil {
			return err
		}
		if f, err = scanFile(tx.QueryRowContext(ctx, `SELECT `+fileColumns+` FROM files WHERE id = ?`, id)); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return ErrNotFound
			}
			return err
		}
		switch {
		case ok:
			return nil
		case f.State != FileFailed:
			return fmt.Errorf("%w (it is %s)", ErrNotFailed, f.State)
		default:
			return fmt.Errorf("%w: %s", ErrResolved, f.Resolved)
		}
	})
	if err != nil {
		return File{}, fmt.Errorf("acknowledging file %d: %w", id, err)
	}
	return f, nil
}

// resolve records r on the open failure id (false: it is no open failure).
func resolve(ctx context.Context, tx *txn, id int64, r Resolution, at string) (bool, error) {
	n, err := affected(tx.ExecContext(ctx, `UPDATE files SET resolved_at = ?, resolution = ?, resolved_file = ?,
		resolved_by = ?, resolved_note = ? WHERE id = ? AND state = 'failed' AND resolved_at = ''`,
		at, r.Kind, r.FileID, r.By, r.Note, id))
	return n == 1, err
}

// ResolveBy resolves the open failures file f makes good now that it is
// finished: the file it replays when f is done (and the file that one
// replayed, up the chain of replays), and each earlier failed
// file of the same portal and document type whose documents that did not
// reach the portal all did since, through f or files between (f being one
// of them). It returns the ids resolved.
func (d *DB) ResolveBy(ctx context.Context, f File) ([]int64, error) {
	if f.State.Open() || f.State == FileDuplicate {
		return nil, nil
	}
	// Most files resolve nothing: reads tell that without a write.
	some, err := resolutions(ctx, d.r, f)
	if err != nil || len(some) == 0 {
		return nil, wrapResolve(f, err)
	}
	var out []int64
	err = d.write(ctx, func(tx *txn) error {
		out = out[:0]
		rs, err := resolutions(ctx, tx, f)
		if err != nil {
			return err
		}
		at := formatTime(d.now())
		for _, r := range rs {
			ok, err := resolve(ctx, tx, r.failed, r.by, at)
			if err != nil {
				return err
			}
			if ok {
				out = append(out, r.failed)
			}
		}
		return nil
	})
	if err != nil {
		return nil, wrapResolve(f, err)
	}
	return out, nil
}

// resolution is how the failed file failed is resolved.
type resolution struct {
	failed int64
	by     Resolution
}

// resolutions lists the open failures finished file f resolves, each with
// its resolution: the originals of the replays f ends when it is done,
// nearest first, then those failuresResolvedBy finds.
func resolutions(ctx context.Context, q querier, f File) ([]resolution, error) {
	var out []resolution
	if f.State == FileDone {
		chain, err := replayChain(ctx, q, f)
		if err != nil {
			return nil, err
		}
		for _, r := range chain {
			open, err := found(q.QueryRowContext(ctx, `SELECT id FROM files WHERE id = ? AND state = 'failed' AND resolved_at = ''`,
				r.OriginalID).Scan(new(int64)))
			if err != nil {
				return nil, err
			}
			if open {
				out = append(out, resolution{r.OriginalID, Resolution{Kind: ResolvedByReplay, FileID: f.ID, By: r.By}})
			}
		}
	}
	ids, err := failuresResolvedBy(ctx, q, f)
	for _, id := range ids {
		out = append(out, resolution{id, Resolution{Kind: ResolvedByFile, FileID: f.ID}})
	}
	return out, err
}

// replayChain lists the replays f ends: the one f is the run of, the one
// its original was the run of, and so on (a failed replay replayed
// again), nearest first.
func replayChain(ctx context.Context, q querier, f File) ([]Replay, error) {
	var chain []Replay
	seen := map[int64]bool{f.ID: true}
	for id := f.ID; ; {
		r, found, err := linkedReplay(ctx, q, File{ID: id})
		if err != nil || !found || seen[r.OriginalID] {
			return chain, err
		}
		chain = append(chain, r)
		seen[r.OriginalID] = true
		id = r.OriginalID
	}
}

func wrapResolve(f File, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("resolving the failures that file %d (%s) makes good: %w", f.ID, f.Name, err)
}

// ResolvedFailures lists the inbox's failures resolved before the cutoff
// whose file still lies directly in errorDir (error/), oldest first: the
// files that error_retention moves out of it.
func (d *DB) ResolvedFailures(ctx context.Context, inbox, errorDir string, before time.Time) ([]File, error) {
	esc := likeEscaper.Replace(errorDir)
	fs, err := d.queryFiles(ctx, `SELECT `+fileColumns+` FROM files
		WHERE state = 'failed' AND resolved_at != '' AND resolved_at < ? AND inbox = ?
		AND final_path LIKE ? ESCAPE '\' AND final_path NOT LIKE ? ESCAPE '\' ORDER BY id`,
		formatTime(before), inbox, esc+"/%", esc+"/%/%")
	if err != nil {
		return nil, fmt.Errorf("listing the resolved failures of inbox %q: %w", inbox, err)
	}
	return fs, nil
}

// failuresResolvedBy lists the open failures before f, of its portal and
// document type, that miss a document f put in the portal and miss none
// that is not in the portal through a file after them. An invalid
// document's journal key carries its line ("KEY (line 7)"): it is
// matched by its KEY.
func failuresResolvedBy(ctx context.Context, tx querier, f File) ([]int64, error) {
	missing := map[int64][]string{} // open failure -> keys not in the portal
	var ids []int64
	err := eachRow(ctx, tx, func(sc scanner) error {
		var id int64
		var key string
		if err := sc.Scan(&id, &key); err != nil {
			return err
		}
		if len(missing[id]) == 0 {
			ids = append(ids, id)
		}
		missing[id] = append(missing[id], baseKey(key))
		return nil
	}, `SELECT m.file_id, m.key FROM documents m JOIN files o ON o.id = m.file_id
		WHERE o.state = 'failed' AND o.resolved_at = '' AND o.portal = ? AND o.doc_type = ? AND o.id < ?
		AND m.result NOT IN ('created', 'exists') ORDER BY m.file_id`, f.Portal, f.DocType, f.ID)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	var out []int64
	for _, id := range ids {
		// Every key in the portal through a file after the failure, and
		// one of them through f.
		in, err := okKeys(ctx, tx, f, id, missing[id])
		if err != nil {
			return nil, err
		}
		if len(in) == len(uniq(missing[id])) && slices.Contains(slices.Collect(maps.Values(in)), f.ID) {
			out = append(out, id)
		}
	}
	return out, nil
}

// okKeys finds, among keys, those in the portal (created or exists)
// through a file after the failure id of f's portal and document type,
// each with the newest such file.
func okKeys(ctx context.Context, tx querier, f File, id int64, keys []string) (map[string]int64, error) {
	out := map[string]int64{}
	err := inChunks(keys, func(part []string) error {
		return eachRow(ctx, tx, func(sc scanner) error {
			var k string
			var by int64
			err := sc.Scan(&k, &by)
			out[k] = by
			return err
		}, `SELECT g.key, l.id FROM documents g JOIN files l ON l.id = g.file_id
			WHERE l.id > ? AND l.id <= ? AND l.portal = ? AND l.doc_type = ? AND g.result IN ('created', 'exists')
			AND g.key IN `+inList(len(part))+` ORDER BY l.id`, append([]any{id, f.ID, f.Portal, f.DocType}, anys(part)...)...)
	})
	return out, err
}

// baseKey is the document key of a journal key: "SUP-1 (line 7)", the
// key of an invalid document, is SUP-1.
func baseKey(k string) string {
	if i := strings.LastIndex(k, " (line "); i >= 0 && strings.HasSuffix(k, ")") {
		return k[:i]
	}
	return k
}

func uniq(keys []string) []string {
	s := slices.Clone(keys)
	slices.Sort(s)
	return slices.Compact(s)
}

// SetFiledPaths records where a finished file and its report lie after they
// moved (error_retention): unlike UpdateFile it leaves UpdatedAt, the
// time the file finished, alone.
func (d *DB) SetFiledPaths(ctx context.Context, id int64, final, report string) error {
	err := affectedOne(d.exec(ctx, `UPDATE files SET path = ?, final_path = ?, report_path = ? WHERE id = ?`, final, final, report, id))
	if err != nil {
		return fmt.Errorf("recording that file %d moved to %s: %w", id, final, err)
	}
	return nil
}
