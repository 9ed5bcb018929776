package journal

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"
)

// Result is the outcome of one document of a file.
type Result string

const (
	ResultPending  Result = "pending"  // not attempted yet
	ResultSending  Result = "sending"  // an attempt started; its outcome is unknown
	ResultCreated  Result = "created"  // created by filebridge
	ResultExists   Result = "exists"   // already in the portal and equal
	ResultInvalid  Result = "invalid"  // rejected by validation or the API; never retried
	ResultConflict Result = "conflict" // the key exists in the portal with different content
	ResultFailed   Result = "failed"   // gave up after retries
	ResultSkipped  Result = "skipped"  // not submitted (reject policy, or a dependency failed)
)

// Valid reports whether r is one of the known results.
func (r Result) Valid() bool {
	switch r {
	case ResultPending, ResultSending, ResultCreated, ResultExists, ResultInvalid,
		ResultConflict, ResultFailed, ResultSkipped:
		return true
	}
	return false
}

// OK reports whether the document is in the portal (created or exists).
func (r Result) OK() bool { return r == ResultCreated || r == ResultExists }

// Final reports whether no further attempt will be made for the document.
func (r Result) Final() bool { return r != ResultPending && r != ResultSending }

// resultOrder is the order in which Summary lists results.
var resultOrder = []Result{ResultCreated, ResultExists, ResultInvalid,
	ResultConflict, ResultFailed, ResultSkipped, ResultPending, ResultSending}

// Summary says how many documents ended in each result, e.g.
// "3 created, 1 invalid"; "" when there are none.
func Summary(counts map[Result]int) string {
	var parts []string
	for _, r := range resultOrder {
		if n := counts[r]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, r))
		}
	}
	return strings.Join(parts, ", ")
}

// Document is one document of a file: an order, a SKU, a supplier...
type Document struct {
	FileID    int64
	Key       string // e.g. order number or SKU code, unique within the file
	Rows      string // source rows, e.g. "2-4"
	Result    Result
	PortalID  string
	Message   string
	Attempts  int
	UpdatedAt time.Time // set by the journal on every change
	// Body is the document as its file's decoding formed it (the inbox
	// encodes it), and FirstRow its first source row: a file is decoded
	// once, then submitted and reported from the journal. Only
	// FileDocuments reads them back.
	Body     string
	FirstRow int
}

const documentColumns = `file_id, key, src_rows, result, portal_id, message, attempts, updated_at`

func scanDocument(sc scanner) (Document, error) {
	var doc Document
	err := doc.scan(sc)
	return doc, err
}

// scan reads documentColumns, then the rest of the row into more.
func (doc *Document) scan(sc scanner, more ...any) error {
	return sc.Scan(append([]any{&doc.FileID, &doc.Key, &doc.Rows, &doc.Result, &doc.PortalID, &doc.Message,
		&doc.Attempts, timeCol{&doc.UpdatedAt}}, more...)...)
}

func (d *DB) queryDocuments(ctx context.Context, query string, args ...any) ([]Document, error) {
	return queryAll(ctx, d.r, scanDocument, query, args...)
}

// AddDocuments records the documents of a file in one transaction, as a
// reading of the file formed them: a document whose (file, key) is
// already recorded takes the given rows, body, result and message, and
// keeps its attempts and portal id (the inbox decides which documents of
// a file read again it records again). A document without a result is
// pending; FileID of the elements is ignored.
func (d *DB) AddDocuments(ctx context.Context, fileID int64, docs []Document) error {
	return d.addDocuments(ctx, nil, "", fileID, docs)
}

// EndDocuments stores f as UpdateFile does, the summary of its decoding
// (as SetSummary; "" keeps the one recorded) and its last documents (as
// AddDocuments), in one transaction: the end of a file's decoding is one
// journal write.
func (d *DB) EndDocuments(ctx context.Context, f File, summary string, docs []Document) error {
	return d.addDocuments(ctx, &f, summary, f.ID, docs)
}

func (d *DB) addDocuments(ctx context.Context, f *File, summary string, fileID int64, docs []Document) error {
	for _, doc := range docs {
		if doc.Key == "" {
			return fmt.Errorf("adding documents of file %d: a document on rows %q has no key", fileID, doc.Rows)
		}
		if doc.Result != "" && !doc.Result.Valid() {
			return fmt.Errorf("adding document %s of file %d: unknown result %q", doc.Key, fileID, doc.Result)
		}
	}
	if f != nil && !f.State.Valid() {
		return fmt.Errorf("updating file %d: unknown file state %q", f.ID, f.State)
	}
	now := formatTime(d.now())
	err := d.write(ctx, func(tx *txn) error {
		if f != nil {
			args := d.updateFileArgs(*f, summary)
			n, err := affected(tx.ExecContext(ctx, updateAtPathQuery, slices.Concat(args[1:], []any{f.Path})...))
			if err == nil && n == 0 { // moved since: the path is set too
				err = affectedOne(tx.ExecContext(ctx, updateFileQuery, args...))
			}
			if err != nil {
				return err
			}
		} else {
			var one int
			if err := notFound(tx.QueryRowContext(ctx, `SELECT 1 FROM files WHERE id = ?`, fileID).Scan(&one)); err != nil {
				return err
			}
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO documents
			(file_id, key, src_rows, result, portal_id, message, attempts, updated_at, body, first_row)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (file_id, key) DO UPDATE SET src_rows = excluded.src_rows,
			result = excluded.result, message = excluded.message, updated_at = excluded.updated_at,
			body = excluded.body, first_row = excluded.first_row`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, doc := range docs {
			r := doc.Result
			if r == "" {
				r = ResultPending
			}
			if _, err := stmt.ExecContext(tx.unwatched(ctx), fileID, doc.Key, doc.Rows, r, doc.PortalID, doc.Message,
				doc.Attempts, now, doc.Body, doc.FirstRow); err != nil {
				return fmt.Errorf("document %s: %w", doc.Key, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("adding %d documents of file %d: %w", len(docs), fileID, err)
	}
	return nil
}

// docBatch is how many documents FileDocuments reads at once.
const docBatch = 256

// FileDocuments yields the documents of a file with their bodies in row
// order (by first row, then in the order they were added), reading them a
// batch at a time: memory stays the same whatever the size of the file.
// With open, only those pending or sending. The documents are read
// between batches, so fn may record results meanwhile.
func (d *DB) FileDocuments(ctx context.Context, fileID int64, open bool) iter.Seq2[Document, error] {
	where := ""
	if open {
		where = ` AND result IN ('pending', 'sending')`
	}
	q := `SELECT ` + documentColumns + `, body, first_row, id FROM documents
		WHERE file_id = ?` + where + ` AND (first_row, id) > (?, ?)
		ORDER BY first_row, id LIMIT ?`
	return func(yield func(Document, error) bool) {
		var lastRow int
		var lastID int64 = -1
		for {
			var page []Document
			err := eachRow(ctx, d.r, func(sc scanner) error {
				var doc Document
				err := doc.scan(sc, &doc.Body, &doc.FirstRow, &lastID)
				page = append(page, doc)
				return err
			}, q, fileID, lastRow, lastID, docBatch)
			if err != nil {
				yield(Document{}, fmt.Errorf("reading the documents of file %d: %w", fileID, err))
				return
			}
			for _, doc := range page {
				if !yield(doc, nil) {
					return
				}
			}
			if len(page) < docBatch {
				return
			}
			lastRow = page[len(page)-1].FirstRow
		}
	}
}

// Summary returns what EndDocuments recorded for a file ("" when its
// decoding did not finish).
func (d *DB) Summary(ctx context.Context, fileID int64) (string, error) {
	var s string
	err := notFound(d.r.QueryRowContext(ctx, `SELECT summary FROM files WHERE id = ?`, fileID).Scan(&s))
	if err != nil {
		return "", fmt.Errorf("reading the summary of file %d: %w", fileID, err)
	}
	return s, nil
}

// Documents lists a file's documents in the order they were added.
func (d *DB) Documents(ctx context.Context, fileID int64) ([]Document, error) {
	docs, err := d.queryDocuments(ctx, `SELECT `+documentColumns+` FROM documents
		WHERE file_id = ? ORDER BY id`, fileID)
	if err != nil {
		return nil, fmt.Errorf("listing documents of file %d: %w", fileID, err)
	}
	return docs, nil
}

// Document returns one document of a file, or ErrNotFound.
func (d *DB) Document(ctx context.Context, fileID int64, key string) (Document, error) {
	doc, err := scanDocument(d.r.QueryRowContext(ctx, `SELECT `+documentColumns+` FROM documents
		WHERE file_id = ? AND key = ?`, fileID, key))
	if err = notFound(err); err != nil {
		return Document{}, fmt.Errorf("reading document %s of file %d: %w", key, fileID, err)
	}
	return doc, nil
}

// StartAttempt marks the document as being sent (ResultSending) and counts
// the attempt. Call it, and let it return, before the request goes out: a
// document found "sending" after a restart may or may not exist in the
// portal and must be looked up by its key before it is sent again.
func (d *DB) StartAttempt(ctx context.Context, fileID int64, key string) error {
	err := affectedOne(d.exec(ctx, `UPDATE documents SET result = 'sending', attempts = attempts + 1,
		updated_at = ? WHERE file_id = ? AND key = ?`, formatTime(d.now()), fileID, key))
	if err != nil {
		return fmt.Errorf("starting an attempt for document %s of file %d: %w", key, fileID, err)
	}
	return nil
}

// SetResult records the outcome of a document.
func (d *DB) SetResult(ctx context.Context, fileID int64, key string, r Result, portalID, msg string) error {
	if !r.Valid() {
		return fmt.Errorf("recording the result of document %s of file %d: unknown result %q", key, fileID, r)
	}
	err := affectedOne(d.exec(ctx, `UPDATE documents SET result = ?, portal_id = ?, message = ?,
		updated_at = ? WHERE file_id = ? AND key = ?`, r, portalID, msg, formatTime(d.now()), fileID, key))
	if err != nil {
		return fmt.Errorf("recording the result of document %s of file %d: %w", key, fileID, err)
	}
	return nil
}

// SetResults records the Result, PortalID and Message of many documents of
// a file in one transaction (e.g. marking every document skipped or invalid).
// An unknown key fails the whole call with ErrNotFound.
func (d *DB) SetResults(ctx context.Context, fileID int64, docs []Document) error {
	for _, doc := range docs {
		if !doc.Result.Valid() {
			return fmt.Errorf("recording results of file %d: document %s has unknown result %q", fileID, doc.Key, doc.Result)
		}
	}
	now := formatTime(d.now())
	err := d.write(ctx, func(tx *txn) error {
		stmt, err := tx.PrepareContext(ctx, `UPDATE documents SET result = ?, portal_id = ?, message = ?,
			updated_at = ? WHERE file_id = ? AND key = ?`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, doc := range docs {
			if err := affectedOne(stmt.ExecContext(tx.unwatched(ctx), doc.Result, doc.PortalID, doc.Message, now, fileID, doc.Key)); err != nil {
				return fmt.Errorf("document %s: %w", doc.Key, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("recording results of %d documents of file %d: %w", len(docs), fileID, err)
	}
	return nil
}

// DocumentCounts counts a file's documents per result.
func (d *DB) DocumentCounts(ctx context.Context, fileID int64) (map[Result]int, error) {
	counts, err := d.ResultCounts(ctx, []int64{fileID})
	if err != nil {
		return nil, fmt.Errorf("counting documents of file %d: %w", fileID, err)
	}
	if counts[fileID] == nil {
		return map[Result]int{}, nil
	}
	return counts[fileID], nil
}

// prefixed qualifies each column of a comma-separated list.
func prefixed(prefix, columns string) string {
	cols := strings.Split(columns, ",")
	for i, c := range cols {
		cols[i] = prefix + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}
