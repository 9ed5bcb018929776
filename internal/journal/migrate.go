package journal

import (
	"context"
	"fmt"
)

// migration is one step of the schema. The schema version (SQLite's PRAGMA
// user_version, PostgreSQL's journal_schema) counts the steps applied; step
// i takes version i to i+1. Steps are written in SQLite's words and must
// translate with dialect.ddl (see dialect for what to avoid).
// Steps are only ever appended: a released step never changes.
type migration struct {
	name string
	sql  string
}

// migrations is the schema, oldest step first.
var migrations = []migration{
	{name: "initial schema", sql: `
CREATE TABLE files (
	id          INTEGER PRIMARY KEY,
	inbox       TEXT    NOT NULL,
	name        TEXT    NOT NULL,
	path        TEXT    NOT NULL DEFAULT '',
	size        INTEGER NOT NULL DEFAULT 0,
	sha256      TEXT    NOT NULL DEFAULT '',
	doc_type    TEXT    NOT NULL DEFAULT '',
	state       TEXT    NOT NULL CHECK (state IN ('claimed', 'submitting', 'done', 'failed', 'duplicate')),
	row_count   INTEGER NOT NULL DEFAULT 0,
	docs_total  INTEGER NOT NULL DEFAULT 0,
	docs_ok     INTEGER NOT NULL DEFAULT 0,
	docs_failed INTEGER NOT NULL DEFAULT 0,
	report_path TEXT    NOT NULL DEFAULT '',
	final_path  TEXT    NOT NULL DEFAULT '',
	message     TEXT    NOT NULL DEFAULT '',
	claimed_at  TEXT    NOT NULL,
	updated_at  TEXT    NOT NULL
);
CREATE INDEX files_inbox_state ON files (inbox, state);
CREATE INDEX files_inbox_sha256 ON files (inbox, sha256);

CREATE TABLE documents (
	id         INTEGER PRIMARY KEY,
	file_id    INTEGER NOT NULL REFERENCES files (id) ON DELETE CASCADE,
	key        TEXT    NOT NULL,
	src_rows   TEXT    NOT NULL DEFAULT '',
	result     TEXT    NOT NULL CHECK (result IN ('pending', 'sending', 'created', 'exists', 'invalid', 'conflict', 'failed', 'skipped')),
	portal_id  TEXT    NOT NULL DEFAULT '',
	message    TEXT    NOT NULL DEFAULT '',
	attempts   INTEGER NOT NULL DEFAULT 0,
	updated_at TEXT    NOT NULL,
	UNIQUE (file_id, key)
);
CREATE INDEX documents_key ON documents (key, result);

CREATE TABLE cursors (
	outbox     TEXT NOT NULL,
	export     TEXT NOT NULL,
	at         TEXT NOT NULL,
	keys       TEXT NOT NULL DEFAULT '[]',
	updated_at TEXT NOT NULL,
	PRIMARY KEY (outbox, export)
);

CREATE TABLE sequences (
	outbox TEXT    NOT NULL,
	export TEXT    NOT NULL,
	value  INTEGER NOT NULL,
	PRIMARY KEY (outbox, export)
);

CREATE TABLE export_runs (
	id          INTEGER PRIMARY KEY,
	outbox      TEXT    NOT NULL,
	export      TEXT    NOT NULL,
	started_at  TEXT    NOT NULL,
	finished_at TEXT    NOT NULL DEFAULT '',
	row_count   INTEGER NOT NULL DEFAULT 0,
	file_name   TEXT    NOT NULL DEFAULT '',
	error       TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX export_runs_export ON export_runs (outbox, export, id);
`},
	{name: "write probe", sql: `
CREATE TABLE probe (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	at TEXT NOT NULL
);
`},
	{name: "portal identity of files, holds for missing master data", sql: `
ALTER TABLE files ADD COLUMN portal TEXT NOT NULL DEFAULT '';
ALTER TABLE files ADD COLUMN held_since TEXT NOT NULL DEFAULT '';
ALTER TABLE files ADD COLUMN waiting_for TEXT NOT NULL DEFAULT '';
CREATE INDEX files_portal_sha256 ON files (portal, sha256);
`},
	{name: "replays", sql: `
CREATE TABLE replays (
	id           INTEGER PRIMARY KEY,
	inbox        TEXT    NOT NULL,
	name         TEXT    NOT NULL,
	original_id  INTEGER NOT NULL REFERENCES files (id) ON DELETE CASCADE,
	replay_id    INTEGER REFERENCES files (id) ON DELETE SET NULL,
	force        INTEGER NOT NULL DEFAULT 0,
	requested_by TEXT    NOT NULL DEFAULT '',
	requested_at TEXT    NOT NULL
);
CREATE INDEX replays_name ON replays (inbox, name, replay_id);
CREATE INDEX replays_original ON replays (original_id);
CREATE INDEX replays_replay ON replays (replay_id);
`},
	{name: "leases of claimed files (several instances)", sql: `
ALTER TABLE files ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE files ADD COLUMN lease_until TEXT NOT NULL DEFAULT '';
CREATE INDEX files_state_lease ON files (state, lease_until);
CREATE INDEX files_inbox_path ON files (inbox, path);
CREATE TABLE claim_locks (
	inbox TEXT    NOT NULL,
	path  TEXT    NOT NULL,
	n     INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (inbox, path)
);
`},
	{name: "export ticks and instances (several instances)", sql: `
CREATE TABLE export_ticks (
	outbox      TEXT    NOT NULL,
	export      TEXT    NOT NULL,
	tick        TEXT    NOT NULL,
	state       TEXT    NOT NULL CHECK (state IN ('running', 'done', 'failed', 'skipped', 'interrupted')),
	owner       TEXT    NOT NULL,
	lease_until TEXT    NOT NULL,
	claimed_at  TEXT    NOT NULL,
	finished_at TEXT    NOT NULL DEFAULT '',
	attempts    INTEGER NOT NULL DEFAULT 1,
	row_count   INTEGER NOT NULL DEFAULT 0,
	file_name   TEXT    NOT NULL DEFAULT '',
	message     TEXT    NOT NULL DEFAULT '',
	PRIMARY KEY (outbox, export, tick)
);
CREATE INDEX export_ticks_owner ON export_ticks (owner, state);
CREATE TABLE export_locks (
	outbox TEXT    NOT NULL,
	export TEXT    NOT NULL,
	n      INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (outbox, export)
);
CREATE TABLE instances (
	name       TEXT NOT NULL PRIMARY KEY,
	started_at TEXT NOT NULL,
	seen_at    TEXT NOT NULL
);
`},
	{name: "instance locks that survive a PostgreSQL restart", sql: `
ALTER TABLE instances ADD COLUMN token TEXT NOT NULL DEFAULT '';
ALTER TABLE instances ADD COLUMN epoch TEXT NOT NULL DEFAULT '';
`},
	{name: "copies of export files, re-sends", sql: `
CREATE TABLE export_copies (
	id      INTEGER PRIMARY KEY,
	run_id  INTEGER NOT NULL UNIQUE REFERENCES export_runs (id) ON DELETE CASCADE,
	size    INTEGER NOT NULL,
	content TEXT    NOT NULL
);
ALTER TABLE export_runs ADD COLUMN resent_from INTEGER NOT NULL DEFAULT 0;
`},
	{name: "failures as a work queue: resolution of failed files", sql: `
ALTER TABLE files ADD COLUMN fix_file INTEGER NOT NULL DEFAULT 0;
ALTER TABLE files ADD COLUMN resolved_at TEXT NOT NULL DEFAULT '';
ALTER TABLE files ADD COLUMN resolution TEXT NOT NULL DEFAULT '';
ALTER TABLE files ADD COLUMN resolved_file INTEGER NOT NULL DEFAULT 0;
ALTER TABLE files ADD COLUMN resolved_by TEXT NOT NULL DEFAULT '';
ALTER TABLE files ADD COLUMN resolved_note TEXT NOT NULL DEFAULT '';
CREATE INDEX files_state_resolved ON files (state, resolved_at);
`},
	{name: "files decoded once: documents' bodies and first rows, the file's summary", sql: `
ALTER TABLE documents ADD COLUMN body TEXT NOT NULL DEFAULT '';
ALTER TABLE documents ADD COLUMN first_row INTEGER NOT NULL DEFAULT 0;
CREATE INDEX documents_file_row ON documents (file_id, first_row, id);
ALTER TABLE files ADD COLUMN summary TEXT NOT NULL DEFAULT '';
`},
	{name: "EDI: interchanges received, control numbers sent", sql: `
CREATE TABLE edi_interchanges (
	sender  TEXT    NOT NULL,
	control TEXT    NOT NULL,
	file_id INTEGER NOT NULL,
	inbox   TEXT    NOT NULL,
	name    TEXT    NOT NULL,
	seen_at TEXT    NOT NULL,
	PRIMARY KEY (sender, control)
);
CREATE TABLE edi_controls (
	partner TEXT    NOT NULL PRIMARY KEY,
	last    INTEGER NOT NULL
);
ALTER TABLE export_runs ADD COLUMN edi_control INTEGER NOT NULL DEFAULT 0;
`},
	{name: "one history of export runs: the claims of scheduled times join export_runs", sql: `
ALTER TABLE export_runs ADD COLUMN tick TEXT NOT NULL DEFAULT '';
ALTER TABLE export_runs ADD COLUMN state TEXT NOT NULL DEFAULT 'running'
	CHECK (state IN ('running', 'done', 'failed', 'skipped', 'interrupted'));
ALTER TABLE export_runs ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE export_runs ADD COLUMN lease_until TEXT NOT NULL DEFAULT '';
ALTER TABLE export_runs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 1;
ALTER TABLE export_runs ADD COLUMN note TEXT NOT NULL DEFAULT '';
UPDATE export_runs SET state = CASE WHEN finished_at = '' THEN 'running' WHEN error != '' THEN 'failed' ELSE 'done' END;
-- A run of a claimed tick is the run of its export that started while
-- the tick was claimed (the newest, should there be several): it takes
-- the tick's record. The indexes keep each match a seek.
CREATE INDEX export_ticks_claimed ON export_ticks (outbox, export, claimed_at);
ANALYZE export_ticks;
UPDATE export_runs SET tick = coalesce((SELECT t.tick FROM export_ticks t
	WHERE t.outbox = export_runs.outbox AND t.export = export_runs.export AND t.state != 'skipped'
	AND t.claimed_at <= export_runs.started_at
	ORDER BY t.claimed_at DESC LIMIT 1), '')
WHERE resent_from = 0;
UPDATE export_runs SET tick = '' WHERE tick != '' AND EXISTS (SELECT 1 FROM export_ticks t
	WHERE t.outbox = export_runs.outbox AND t.export = export_runs.export AND t.tick = export_runs.tick
	AND t.finished_at != '' AND t.finished_at < export_runs.started_at);
CREATE INDEX export_runs_tick_match ON export_runs (outbox, export, tick);
ANALYZE export_runs;
UPDATE export_runs SET tick = '' WHERE tick != '' AND EXISTS (SELECT 1 FROM export_runs n
	WHERE n.outbox = export_runs.outbox AND n.export = export_runs.export AND n.tick = export_runs.tick AND n.id > export_runs.id);
UPDATE export_runs SET
	state = (SELECT t.state FROM export_ticks t WHERE t.outbox = export_runs.outbox AND t.export = export_runs.export AND t.tick = export_runs.tick),
	owner = (SELECT t.owner FROM export_ticks t WHERE t.outbox = export_runs.outbox AND t.export = export_runs.export AND t.tick = export_runs.tick),
	lease_until = (SELECT t.lease_until FROM export_ticks t WHERE t.outbox = export_runs.outbox AND t.export = export_runs.export AND t.tick = export_runs.tick),
	attempts = (SELECT t.attempts FROM export_ticks t WHERE t.outbox = export_runs.outbox AND t.export = export_runs.export AND t.tick = export_runs.tick),
	note = (SELECT CASE WHEN t.state = 'failed' THEN '' ELSE t.message END FROM export_ticks t
		WHERE t.outbox = export_runs.outbox AND t.export = export_runs.export AND t.tick = export_runs.tick),
	finished_at = CASE WHEN finished_at != '' THEN finished_at ELSE (SELECT t.finished_at FROM export_ticks t
		WHERE t.outbox = export_runs.outbox AND t.export = export_runs.export AND t.tick = export_runs.tick) END
WHERE tick != '';
INSERT INTO export_runs (outbox, export, started_at, finished_at, row_count, file_name, error,
	tick, state, owner, lease_until, attempts, note)
SELECT outbox, export, claimed_at, finished_at, row_count, file_name, CASE WHEN state = 'failed' THEN message ELSE '' END,
	tick, state, owner, lease_until, attempts, CASE WHEN state = 'failed' THEN '' ELSE message END
FROM export_ticks t WHERE NOT EXISTS (SELECT 1 FROM export_runs r
	WHERE r.outbox = t.outbox AND r.export = t.export AND r.tick = t.tick)
ORDER BY tick;
DROP TABLE export_ticks;
DROP INDEX export_runs_tick_match;
CREATE UNIQUE INDEX export_runs_tick ON export_runs (outbox, export, tick) WHERE tick != '';
CREATE INDEX export_runs_owner ON export_runs (owner, state);
`},
}

// SchemaVersion is the schema version this code writes.
func SchemaVersion() int { return len(migrations) }

// beginFunc begins a transaction on the connection the migration runs on.
type beginFunc func(ctx context.Context) (*txn, error)

// migrate applies the missing steps, each in its own transaction together
// with the new version. The version is read inside the transaction, which
// on SQLite is IMMEDIATE (two processes opening a new file at once do not
// both apply a step); on PostgreSQL the caller holds an advisory lock.
// Steps are written for SQLite and translated by dialect.ddl.
func migrate(ctx context.Context, begin beginFunc, steps []migration) error {
	for {
		done, err := migrateStep(ctx, begin, steps)
		if err != nil || done {
			return err
		}
	}
}

func migrateStep(ctx context.Context, begin beginFunc, steps []migration) (done bool, err error) {
	tx, err := begin(ctx)
	if err != nil {
		return false, fmt.Errorf("beginning migration: %w", err)
	}
	defer func() {
		if err != nil || done {
			_ = tx.Rollback()
		}
	}()
	v, err := schemaVersion(ctx, tx)
	if err != nil {
		return false, fmt.Errorf("reading schema version: %w", err)
	}
	switch {
	case v > len(steps):
		return false, fmt.Errorf("%w: the journal has schema version %d, this filebridge knows up to %d: upgrade filebridge or point it at another journal", ErrSchemaTooNew, v, len(steps))
	case v == len(steps):
		return true, nil
	}
	step := steps[v]
	if _, err := tx.ExecContext(ctx, tx.dl.ddl(step.sql)); err != nil {
		return false, fmt.Errorf("applying schema step %d (%s): %w", v+1, step.name, err)
	}
	if err := setSchemaVersion(ctx, tx, v+1); err != nil {
		return false, fmt.Errorf("setting schema version %d: %w", v+1, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("committing schema step %d (%s): %w", v+1, step.name, err)
	}
	return false, nil
}

// schemaVersion reads the number of steps applied: SQLite's user_version,
// PostgreSQL's one-row table journal_schema.
func schemaVersion(ctx context.Context, tx *txn) (int, error) {
	var v int
	q := "PRAGMA user_version"
	if tx.dl == postgresDialect {
		q = "SELECT version FROM journal_schema WHERE id = 1"
	}
	_, err := found(tx.QueryRowContext(ctx, q).Scan(&v))
	return v, err
}

func setSchemaVersion(ctx context.Context, tx *txn, v int) error {
	if tx.dl == postgresDialect {
		_, err := tx.ExecContext(ctx, `INSERT INTO journal_schema (id, version) VALUES (1, ?)
			ON CONFLICT (id) DO UPDATE SET version = excluded.version`, v)
		return err
	}
	_, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v))
	return err
}
