package journal

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"sync/atomic"
)

// Prepared statements of the SQLite pools. modernc.org/sqlite parses a
// statement again at every call, and for the journal writes of many small
// files that parsing took about a fifth of the journal's CPU time, on the
// one connection every write waits for. A statement a write transaction
// ran is prepared on the writer's pool before the next transaction (the
// pool's single connection is busy while one runs), and later
// transactions run it prepared through Tx.StmtContext; a statement run on
// a pool outside a transaction is prepared at its first run. PostgreSQL
// (pgx) caches its statements itself.
type stmtCache struct {
	mu     sync.Mutex
	ready  map[string]*sql.Stmt
	wanted map[string]bool

	pooled atomic.Int64 // statements run on the pool, outside a transaction (tests count them)
}

// maxPrepared bounds the cache: the journal's queries are literals, but a
// few are built for a number of arguments.
const maxPrepared = 64

func newStmtCache() *stmtCache {
	return &stmtCache{ready: map[string]*sql.Stmt{}, wanted: map[string]bool{}}
}

// get returns q prepared, or nil (run it as it is) after noting it for
// prepare. A nil cache prepares nothing.
func (c *stmtCache) get(q string) *sql.Stmt {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.ready[q]; s != nil {
		return s
	}
	if len(c.ready)+len(c.wanted) < maxPrepared {
		c.wanted[q] = true
	}
	return nil
}

// now returns q prepared, preparing it now if it is not yet: for a
// statement run on the pool itself, outside a transaction (it waits for
// the pool's connection as the statement would). nil means run it as it
// is: no cache, a full cache, or a statement that does not prepare.
func (c *stmtCache) now(ctx context.Context, db *sql.DB, q string) *sql.Stmt {
	if c == nil {
		return nil
	}
	c.pooled.Add(1)
	c.mu.Lock()
	s, full := c.ready[q], len(c.ready) >= maxPrepared
	c.mu.Unlock()
	if s != nil || full {
		return s
	}
	s, err := db.PrepareContext(ctx, q)
	if err != nil {
		return nil
	}
	return c.keep(q, s)
}

// keep caches s, prepared for q, and returns the statement cached for q:
// s, or the one another caller prepared meanwhile (s is closed).
func (c *stmtCache) keep(q string, s *sql.Stmt) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.ready[q]; old != nil {
		_ = s.Close()
		return old
	}
	c.ready[q] = s
	return s
}

// prepare prepares the statements noted since the last call. The caller
// holds no transaction of db. A statement that does not prepare keeps
// running unprepared.
func (c *stmtCache) prepare(ctx context.Context, db *sql.DB) {
	if c == nil {
		return
	}
	c.mu.Lock()
	var qs []string
	for q := range c.wanted {
		qs = append(qs, q)
	}
	clear(c.wanted)
	c.mu.Unlock()
	for _, q := range qs {
		if s, err := db.PrepareContext(ctx, q); err == nil {
			c.keep(q, s)
		}
	}
}

// close closes the prepared statements.
func (c *stmtCache) close() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, s := range c.ready {
		errs = append(errs, s.Close())
	}
	clear(c.ready)
	return errors.Join(errs...)
}
