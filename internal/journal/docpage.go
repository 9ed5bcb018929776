package journal

import (
	"context"
	"fmt"
	"strings"
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
		ph := make([]string, len(p.Results))
		for i, r := range p.Results {
			ph[i] = "?"
			args = append(args, string(r))
		}
		where += " AND result IN (" + strings.Join(ph, ", ") + ")"
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
