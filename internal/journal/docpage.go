package journal

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Problems are the results of the documents a clerk has to look at: not
// in the portal after the file's run.
var Problems = []Result{ResultInvalid, ResultConflict, ResultFailed, ResultSkipped}

// DocPage selects a page of a file's documents in row order.
type DocPage struct {
	// Results keeps only documents with these results (empty: all).
	Results []Result
	// Limit is the page's size (<= 0: all); Offset skips that many.
	Limit, Offset int
}

// DocumentsPage returns a page of the documents of a file, in row order,
// and how many documents the filter selects in all: a file of 200,000
// documents is shown a page at a time.
func (d *DB) DocumentsPage(ctx context.Context, fileID int64, p DocPage) ([]Document, int, error) {
	where := "file_id = ?"
	args := []any{fileID}
	if len(p.Results) > 0 {
		where += " AND result IN " + inList(len(p.Results))
		args = append(args, anys(p.Results)...)
	}
	var total int
	if err := d.r.QueryRowContext(ctx, `SELECT count(*) FROM documents WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("counting documents of file %d: %w", fileID, err)
	}
	q := `SELECT ` + documentColumns + ` FROM documents WHERE ` + where + ` ORDER BY id`
	if p.Limit > 0 {
		q += fmt.Sprintf(" LIMIT %d OFFSET %d", p.Limit, max(p.Offset, 0))
	}
	docs, err := d.queryDocuments(ctx, q, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("listing documents of file %d: %w", fileID, err)
	}
	return docs, total, nil
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
	scan := func(sc scanner) (KeyHit, error) {
		var h KeyHit
		err := h.scan(sc, &h.Inbox, &h.FileName, &h.DocType, &h.FileState, timeCol{&h.ClaimedAt})
		return h, err
	}
	hits, err := queryAll(ctx, d.r, scan, `SELECT `+prefixed("d.", documentColumns)+`,
		f.inbox, f.name, f.doc_type, f.state, f.claimed_at
		FROM documents d JOIN files f ON f.id = d.file_id
		WHERE lower(d.key) LIKE ? ESCAPE '\'
		ORDER BY d.file_id DESC, d.id LIMIT ?`, containing(strings.ToLower(q)), d.dl.limitArg(limit+1))
	if err != nil {
		return nil, false, fmt.Errorf("searching documents for %q: %w", q, err)
	}
	more := limit > 0 && len(hits) > limit
	if more {
		hits = hits[:limit]
	}
	return hits, more, nil
}
