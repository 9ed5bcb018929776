package journal

import (
	"context"
	"errors"
	"maps"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestGroupCommit: writes that arrive while a commit is under way are
// committed together, without a savepoint each: one that fails is rolled
// back alone (the transaction is rolled back, and the others committed
// again without it), one whose caller gave up is not written, the others
// are, and every caller gets its own outcome.
func TestGroupCommit(t *testing.T) {
	ctx := t.Context()
	d := openTarget(t, filepath.Join(t.TempDir(), "journal.db")) // SQLite: the group commit
	insert := func(name string) func(tx *txn) error {
		return func(tx *txn) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO instances (name, started_at, seen_at) VALUES (?, '', '')`, name)
			return err
		}
	}
	boom := errors.New("boom")
	gone, cancel := context.WithCancel(ctx)
	cancel()

	// The first write holds the commit while the others queue.
	release := make(chan struct{})
	inFirst := make(chan struct{})
	var wg sync.WaitGroup
	var first error
	wg.Go(func() {
		first = d.write(ctx, func(tx *txn) error {
			close(inFirst)
			<-release
			return insert("first")(tx)
		})
	})
	<-inFirst
	writes := []struct {
		name string
		ctx  context.Context
		fn   func(tx *txn) error
		want error
	}{
		{"a", ctx, insert("a"), nil},
		{"b", ctx, func(tx *txn) error { _ = insert("b")(tx); return boom }, boom},
		{"c", gone, insert("c"), context.Canceled},
		{"d", ctx, insert("d"), nil},
	}
	got := make([]error, len(writes))
	for i, w := range writes {
		wg.Go(func() { got[i] = d.write(w.ctx, w.fn) })
		waitQueued(d, i+1) // queued in this order
	}
	close(release)
	wg.Wait()
	// The batch runs a and b; b fails, and a and d are committed in a
	// second transaction; c, cancelled, runs no statement.
	if got, want := d.WriteStats(), (WriteStats{Writes: 5, Queued: 4, Commits: 2, Statements: 5}); got != want {
		t.Errorf("WriteStats = %+v, want %+v (the queued writes share one commit)", got, want)
	}
	ran := slices.Concat(slices.Collect(maps.Keys(d.w.stmts.wanted)), slices.Collect(maps.Keys(d.w.stmts.ready)))
	for _, q := range ran { // every statement a transaction ran is noted to be prepared
		if strings.Contains(q, "SAVEPOINT") || strings.Contains(q, "RELEASE") {
			t.Errorf("the batch ran %q: its writes need no savepoint", q)
		}
	}

	if first != nil {
		t.Errorf("first write: %v", first)
	}
	for i, w := range writes {
		if !errors.Is(got[i], w.want) || (w.want == nil && got[i] != nil) {
			t.Errorf("write %s: %v, want %v", w.name, got[i], w.want)
		}
	}
	rows, err := d.r.QueryContext(ctx, `SELECT name FROM instances ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	if want := []string{"a", "d", "first"}; len(names) != len(want) || names[0] != "a" || names[1] != "d" || names[2] != "first" {
		t.Errorf("written: %q, want %q", names, want)
	}
}

// TestGroupCommitHandsOver: a caller whose write is committed returns at
// once; the writes that queued meanwhile are committed by one of their own
// callers, not by it.
func TestGroupCommitHandsOver(t *testing.T) {
	ctx := t.Context()
	d := openTarget(t, filepath.Join(t.TempDir(), "journal.db")) // SQLite: the group commit
	release, inFirst, firstDone := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(firstDone)
		if err := d.write(ctx, func(tx *txn) error { close(inFirst); <-release; return nil }); err != nil {
			t.Errorf("first write: %v", err)
		}
	})
	<-inFirst
	// Each queued write commits only once the first caller returned: were
	// that caller committing them, it could not return.
	const queued = 3
	errs := make([]error, queued)
	for i := range queued {
		wg.Go(func() {
			errs[i] = d.write(ctx, func(tx *txn) error {
				select {
				case <-firstDone:
					return nil
				case <-time.After(10 * time.Second):
					return errors.New("the first caller is still committing others' writes")
				}
			})
		})
	}
	waitQueued(d, queued)
	close(release)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("queued write %d: %v", i, err)
		}
	}
	if d.group.committing || len(d.group.pending) != 0 {
		t.Errorf("after all writes: committing %v, %d pending", d.group.committing, len(d.group.pending))
	}
}

// waitQueued returns once n writes wait for the commit under way.
func waitQueued(d *DB, n int) {
	for {
		d.group.mu.Lock()
		queued := len(d.group.pending)
		d.group.mu.Unlock()
		if queued >= n {
			return
		}
		runtime.Gosched()
	}
}

// TestGroupCommitLoneWrite: a write that finds no commit under way is
// committed at once in a transaction of its own, without queueing as a
// batch of one (WriteStats.Queued stays), and counts one write, one
// commit and its statement.
func TestGroupCommitLoneWrite(t *testing.T) {
	ctx := t.Context()
	d := openTarget(t, filepath.Join(t.TempDir(), "journal.db")) // SQLite: the group commit
	touch := func(tx *txn) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO probe (id, at) VALUES (1, '') ON CONFLICT (id) DO UPDATE SET at = excluded.at`)
		return err
	}
	for range 2 { // the second write prepares the statement the first ran
		if err := d.write(ctx, touch); err != nil {
			t.Fatal(err)
		}
	}
	before := d.WriteStats()
	if err := d.write(ctx, touch); err != nil {
		t.Fatal(err)
	}
	if got, want := d.WriteStats(), before; got.Writes-want.Writes != 1 || got.Queued != want.Queued ||
		got.Commits-want.Commits != 1 || got.Statements-want.Statements != 1 {
		t.Errorf("WriteStats went from %+v to %+v, want one write, commit and statement more, none queued", want, got)
	}
}

// doneCounter counts how often a context is asked for its Done channel.
type doneCounter struct {
	context.Context
	n atomic.Int64
}

func (c *doneCounter) Done() <-chan struct{} {
	c.n.Add(1)
	return c.Context.Done()
}

// TestWriteStatementsUnwatched: the statements of a SQLite write
// transaction, which holds the write lock, do not watch the caller's
// context (modernc.org/sqlite starts a goroutine a statement to watch
// it): a write of ten statements asks the context whether it is done no
// more often than a write of one (database/sql's watch of the
// transaction may ask once more, at its own pace).
func TestWriteStatementsUnwatched(t *testing.T) {
	d := openTarget(t, filepath.Join(t.TempDir(), "journal.db")) // SQLite
	watches := func(stmts int) int64 {
		ctx := &doneCounter{Context: t.Context()}
		err := d.write(ctx, func(tx *txn) error {
			for range stmts {
				if _, err := tx.ExecContext(ctx, `INSERT INTO probe (id, at) VALUES (1, '') ON CONFLICT (id) DO UPDATE SET at = excluded.at`); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return ctx.n.Load()
	}
	watches(1) // the statement is prepared for the writes after
	one, ten := watches(1), watches(10)
	if ten > one+1 {
		t.Errorf("a write of ten statements asked its context %d times whether it is done, one of one statement %d times", ten, one)
	}
}
