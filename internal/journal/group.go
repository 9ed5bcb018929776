package journal

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

// Group commit. SQLite has one writer and every commit waits for an fsync
// (synchronous=FULL), so files processed at once each waited for their own
// commits one after the other. write instead commits the writes that
// arrive while a commit is under way together: the first caller commits
// its own write and hands the writes that came meanwhile to one of their
// callers, who commits them as the next batch. The writes of a batch run
// in one transaction (a write that fails is rolled back alone: see
// commitBatch), with one fsync for all. Every caller returns only once its
// write is durable or has failed, so a crash loses nothing a caller was
// told is written, and no caller commits others' writes after its own.
// PostgreSQL commits each write on its own: its writers run in parallel
// on the pool.

// groupWrite is one write waiting to be committed.
type groupWrite struct {
	ctx  context.Context
	fn   func(tx *txn) error
	done chan error
}

// group queues the writes of a SQLite journal, and counts the writes of
// either journal and the transactions that committed them.
type group struct {
	mu         sync.Mutex
	pending    []*groupWrite
	committing bool

	writes, queued, commits, statements atomic.Int64
}

// WriteStats counts the journal's writes (the records of each step of a
// file and a document) since it was opened, the transactions that
// committed them (on SQLite, writes that arrive together share one) and
// the statements the writes ran (a statement a write prepares counts
// once, however many rows it then runs for). Queued counts the writes
// that arrived while a commit was under way and waited for a batch.
type WriteStats struct {
	Writes, Queued, Commits, Statements int64
}

// WriteStats returns the journal's write counts.
func (d *DB) WriteStats() WriteStats {
	g := &d.group
	return WriteStats{Writes: g.writes.Load(), Queued: g.queued.Load(), Commits: g.commits.Load(), Statements: g.statements.Load()}
}

// Reads counts the statements run on a SQLite journal's read-only pool
// since it was opened (tests count them; PostgreSQL counts none).
func (d *DB) Reads() int64 {
	if d.r.stmts == nil {
		return 0
	}
	return d.r.stmts.pooled.Load()
}

// write runs fn in a write transaction and returns once it is committed.
// fn may run more than once (commitBatch): it sets what it returns.
func (d *DB) write(ctx context.Context, fn func(tx *txn) error) error {
	d.group.writes.Add(1)
	if d.dl != sqliteDialect {
		return d.writeAlone(ctx, fn)
	}
	g := &d.group
	g.mu.Lock()
	if !g.committing {
		// No commit under way: this write is a batch of one, committed
		// at once in a transaction of its own.
		g.committing = true
		g.mu.Unlock()
		d.w.stmts.prepare(ctx, d.w.db) // what earlier transactions ran, for this one
		err := d.writeAlone(ctx, fn)
		d.handOver()
		return err
	}
	w := &groupWrite{ctx: ctx, fn: fn, done: make(chan error, 1)}
	g.pending = append(g.pending, w)
	g.queued.Add(1)
	g.mu.Unlock()
	// The caller committing now commits this write in its batch, or
	// hands the commit of the next batch, this one among them, over.
	if err := <-w.done; err != errLead {
		return err
	}
	g.mu.Lock()
	batch := g.pending
	g.pending = nil
	g.mu.Unlock()
	d.w.stmts.prepare(ctx, d.w.db)
	d.commit(batch)
	d.handOver()
	return <-w.done
}

// handOver ends the commit of a caller whose write is durable: the writes
// that queued meanwhile are committed by one of their writers, so no
// caller waits for others' writes once its own is done.
func (d *DB) handOver() {
	g := &d.group
	g.mu.Lock()
	if len(g.pending) > 0 {
		g.pending[0].done <- errLead
	} else {
		g.committing = false
	}
	g.mu.Unlock()
}

// errLead tells a waiting write that its caller commits the next batch.
var errLead = errors.New("commit the next batch")

// writeAlone runs fn in a transaction of its own and commits it.
func (d *DB) writeAlone(ctx context.Context, fn func(tx *txn) error) error {
	d.group.commits.Add(1)
	tx, err := d.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	tx.ran = &d.group.statements
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// commit commits a batch of writes in one transaction and tells each its
// outcome.
func (d *DB) commit(batch []*groupWrite) {
	for len(batch) > 1 {
		batch = d.commitBatch(batch)
	}
	if len(batch) == 1 {
		w := batch[0]
		w.done <- d.writeAlone(w.ctx, w.fn)
	}
}

// commitBatch runs the writes of batch one after the other in one
// transaction and commits it, telling each its outcome. The writes run
// without savepoints, which cost each two statements more and SQLite a
// copy of every page the write changed: instead, when a write fails, it is
// told its error, the transaction is rolled back and the other writes not
// told yet are returned, to be committed again without it (those before it
// run again, on the same state, so they do what they did; a write's
// function sets what it returns and touches nothing outside its
// transaction). The transaction outlives any one caller's context: a
// caller that gives up loses its own write only.
func (d *DB) commitBatch(batch []*groupWrite) (again []*groupWrite) {
	tx, err := d.w.BeginTx(context.Background(), nil)
	if err != nil {
		for _, w := range batch {
			w.done <- err
		}
		return nil
	}
	tx.ran = &d.group.statements
	ran := make([]*groupWrite, 0, len(batch))
	for i, w := range batch {
		if err := w.ctx.Err(); err != nil {
			w.done <- err // not run: nothing to roll back
			continue
		}
		if err := w.fn(tx); err != nil {
			_ = tx.Rollback()
			w.done <- err
			return append(ran, batch[i+1:]...)
		}
		ran = append(ran, w)
	}
	d.group.commits.Add(1)
	err = tx.Commit()
	for _, w := range ran {
		w.done <- err
	}
	return nil
}
