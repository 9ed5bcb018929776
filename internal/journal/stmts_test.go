package journal

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestPreparedStatements: a statement the SQLite writer ran is prepared
// before the next transaction, and later transactions run it prepared, with the
// same results; reads on the pool run prepared; a statement prepared twice (two commits at once) keeps one.
func TestPreparedStatements(t *testing.T) {
	d := openTarget(t, filepath.Join(t.TempDir(), "journal.db"))
	ctx := t.Context()
	id := claimTest(t, d, "erp", "ORDERS_1.csv", "orders")
	if err := d.AddDocuments(ctx, id, []Document{{Key: "SO-1"}, {Key: "SO-2"}}); err != nil {
		t.Fatal(err)
	}
	prepared := func() int {
		d.w.stmts.mu.Lock()
		defer d.w.stmts.mu.Unlock()
		n := 0
		for q := range d.w.stmts.ready {
			if strings.HasPrefix(q, "UPDATE documents SET result = ?") {
				n++
			}
		}
		return n
	}
	// The next write prepares what the last ones ran, before it runs.
	for i, key := range []string{"SO-1", "SO-2", "SO-1"} {
		if err := d.SetResult(ctx, id, key, ResultCreated, "/api/sales_orders/"+key, ""); err != nil {
			t.Fatal(err)
		}
		if got, want := prepared(), min(i, 1); got != want {
			t.Fatalf("after result %d: %d prepared SetResult statements, want %d", i+1, got, want)
		}
	}
	for _, key := range []string{"SO-1", "SO-2"} {
		doc, err := d.Document(ctx, id, key)
		if err != nil {
			t.Fatal(err)
		}
		if doc.Result != ResultCreated || doc.PortalID != "/api/sales_orders/"+key {
			t.Errorf("%s: result %q, portal id %q", key, doc.Result, doc.PortalID)
		}
	}
	// Reads outside a transaction run prepared too, on the reader pool:
	// the query above is one prepared statement, whatever the calls.
	readers := 0
	for q := range d.r.stmts.ready {
		if strings.Contains(q, "FROM documents") && strings.Contains(q, "key = ?") {
			readers++
		}
	}
	if readers != 1 {
		t.Errorf("%d prepared document reads on the reader pool, want 1", readers)
	}
	// A statement noted again while it was being prepared (two commits
	// at once) keeps its first preparation; the second is closed.
	q := "SELECT count(*) FROM documents WHERE file_id = ?"
	c := d.w.stmts
	c.get(q)
	c.prepare(ctx, d.w.db)
	first := c.ready[q]
	if first == nil {
		t.Fatal("statement not prepared")
	}
	c.mu.Lock()
	c.wanted[q] = true // as a transaction that ran it meanwhile would
	c.mu.Unlock()
	c.prepare(ctx, d.w.db)
	if c.ready[q] != first {
		t.Error("a second preparation replaced the first (and leaked it)")
	}
}
