package journal

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"time"
)

// The history of export runs is one table, export_runs: a row per run of
// an export, whether it ran at a scheduled time claimed on a shared
// journal (ticks.go: the row is the claim, and carries the tick, the
// owner and the lease), on its schedule or now on one instance, or wrote a
// kept file again (a re-send). A scheduled time skipped on a shared
// journal is a row too, with the reason in its note.

// RunState is where a run of an export stands.
type RunState string

const (
	// RunRunning: the run goes on (or its instance died doing it: on a
	// shared journal, once its lease ran out, see Abandoned).
	RunRunning RunState = "running"
	// RunDone: the run finished and its file (if any) is in place.
	RunDone RunState = "done"
	// RunFailed: the run failed; the next one exports the same rows (the
	// cursor did not move).
	RunFailed RunState = "failed"
	// RunSkipped: the scheduled time came while the previous run of the
	// export was still going on (one run of an export at a time, across
	// instances), or was claimed after a later one; nothing ran.
	RunSkipped RunState = "skipped"
	// RunInterrupted: the instance running it stopped during the run (its
	// lease ran out), and a later scheduled time ran before anyone redid
	// it: that run exported the rows (the cursor had not moved).
	RunInterrupted RunState = "interrupted"
)

// ExportRun is one run of an export.
type ExportRun struct {
	ID     int64
	Outbox string
	Export string
	// Tick is the scheduled time the run was claimed for on a shared
	// journal (ClaimTick; a run now claims now); zero otherwise.
	Tick  time.Time
	State RunState
	// Owner is the instance that ran it (or decided to skip it).
	Owner string
	// LeaseUntil, while a claimed run goes on, is the end of its owner's
	// lease.
	LeaseUntil time.Time
	// StartedAt is when the run started (for a claimed run: when its
	// owner claimed it, or took it over).
	StartedAt  time.Time
	FinishedAt time.Time // zero while running, or when the process died during the run
	Attempts   int       // 1, plus one per take-over of an abandoned run
	Rows       int
	FileName   string // the file written, relative to the outbox; empty when none was
	Error      string // the error of a failed run
	Note       string // why a scheduled time was skipped, a run taken over or interrupted
	// ResentFrom is the run whose file this one wrote again (a re-send
	// of its kept copy); 0 for a run of the export.
	ResentFrom int64
	// EDIControl is the interchange control number of an EDI file the run
	// wrote (NumberRun); 0 for other files.
	EDIControl int64
}

// Running reports whether the run has not been finished (it may also have
// been interrupted by a crash).
func (r ExportRun) Running() bool { return r.State == RunRunning }

// Abandoned reports whether the claimed run was left unfinished by an
// instance whose lease ran out at now.
func (r ExportRun) Abandoned(now time.Time) bool {
	return !r.Tick.IsZero() && r.State == RunRunning && !r.LeaseUntil.After(now)
}

// Message is the run's error, or else its note.
func (r ExportRun) Message() string {
	if r.Error != "" {
		return r.Error
	}
	return r.Note
}

const runColumns = `id, outbox, export, tick, state, owner, lease_until, started_at, finished_at, attempts,
	row_count, file_name, error, note, resent_from, edi_control`

func scanRun(sc scanner) (ExportRun, error) {
	var r ExportRun
	err := sc.Scan(&r.ID, &r.Outbox, &r.Export, timeCol{&r.Tick}, &r.State, &r.Owner, timeCol{&r.LeaseUntil},
		timeCol{&r.StartedAt}, timeCol{&r.FinishedAt}, &r.Attempts, &r.Rows, &r.FileName, &r.Error, &r.Note,
		&r.ResentFrom, &r.EDIControl)
	return r, err
}

func (d *DB) queryRuns(ctx context.Context, query string, args ...any) ([]ExportRun, error) {
	return queryAll(ctx, d.r, scanRun, query, args...)
}

// StartRun records the start of an export run and returns its id. The run
// of a claimed scheduled time (ctx from WithTick) is recorded by its
// claim: StartRun returns the claim's id.
func (d *DB) StartRun(ctx context.Context, outbox, export string) (int64, error) {
	if t, ok := tickOf(ctx); ok {
		return t.ID, nil
	}
	var id int64
	err := d.w.QueryRowContext(ctx, `INSERT INTO export_runs (outbox, export, started_at, state, owner) VALUES (?, ?, ?, ?, ?)
		RETURNING id`, outbox, export, formatTime(d.now()), string(RunRunning), d.instance).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("recording the start of export %s/%s: %w", outbox, export, err)
	}
	return id, nil
}

// FinishRun records the end of run r.ID: its Rows, FileName and Error (done
// or failed), and FinishedAt (now when zero). Outbox, Export and StartedAt
// are not changed. The end of a claimed run (ctx from WithTick) is
// recorded by whoever claimed it, with FinishTick: FinishRun leaves it.
func (d *DB) FinishRun(ctx context.Context, r ExportRun) error {
	if _, ok := tickOf(ctx); ok {
		return nil
	}
	if r.FinishedAt.IsZero() {
		r.FinishedAt = d.now()
	}
	state := RunDone
	if r.Error != "" {
		state = RunFailed
	}
	err := affectedOne(d.w.ExecContext(ctx, `UPDATE export_runs SET state = ?, finished_at = ?, row_count = ?, file_name = ?,
		error = ? WHERE id = ?`, string(state), formatTime(r.FinishedAt), r.Rows, r.FileName, r.Error, r.ID))
	if err != nil {
		return fmt.Errorf("recording the end of export run %d: %w", r.ID, err)
	}
	return nil
}

// RecentRuns lists the most recent runs, newest first, at most limit
// (limit <= 0: all). An empty outbox or export matches any.
func (d *DB) RecentRuns(ctx context.Context, outbox, export string, limit int) ([]ExportRun, error) {
	runs, _, err := d.RunsPage(ctx, RunFilter{Outbox: outbox, Export: export, Limit: limit})
	return runs, err
}

// RunFilter selects export runs for a page of their history: an empty
// Outbox or Export matches any; Limit <= 0 is no limit.
type RunFilter struct {
	Outbox, Export string
	Limit, Offset  int
}

// RunsPage lists the runs the filter selects, newest first, with their
// total.
func (d *DB) RunsPage(ctx context.Context, f RunFilter) ([]ExportRun, int, error) {
	const where = ` FROM export_runs WHERE (? = '' OR outbox = ?) AND (? = '' OR export = ?)`
	args := []any{f.Outbox, f.Outbox, f.Export, f.Export}
	var total int
	if err := d.r.QueryRowContext(ctx, `SELECT count(*)`+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("counting runs of export %s/%s: %w", f.Outbox, f.Export, err)
	}
	runs, err := d.queryRuns(ctx, `SELECT `+runColumns+where+` ORDER BY id DESC LIMIT ? OFFSET ?`,
		append(args, d.dl.limitArg(f.Limit), max(f.Offset, 0))...)
	if err != nil {
		return nil, 0, fmt.Errorf("listing runs of export %s/%s: %w", f.Outbox, f.Export, err)
	}
	return runs, total, nil
}

// Run returns export run id (ErrNotFound when there is none).
func (d *DB) Run(ctx context.Context, id int64) (ExportRun, error) {
	r, err := scanRun(d.r.QueryRowContext(ctx, `SELECT `+runColumns+` FROM export_runs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return ExportRun{}, fmt.Errorf("export run %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return ExportRun{}, fmt.Errorf("reading export run %d: %w", id, err)
	}
	return r, nil
}

// KeepCopy keeps the gzip-compressed content of the file run runID wrote,
// for a re-send; size is the file's size. A run keeps one copy.
func (d *DB) KeepCopy(ctx context.Context, runID int64, size int64, gz []byte) error {
	_, err := d.w.ExecContext(ctx, `INSERT INTO export_copies (run_id, size, content) VALUES (?, ?, ?)`,
		runID, size, base64.StdEncoding.EncodeToString(gz))
	if err != nil {
		return fmt.Errorf("keeping a copy of the file of export run %d: %w", runID, err)
	}
	return nil
}

// Copy returns the gzip-compressed copy of the file run runID wrote
// (ErrNotFound when none was kept) and the file's size.
func (d *DB) Copy(ctx context.Context, runID int64) ([]byte, int64, error) {
	var text string
	var size int64
	err := d.r.QueryRowContext(ctx, `SELECT content, size FROM export_copies WHERE run_id = ?`, runID).Scan(&text, &size)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, fmt.Errorf("no copy of the file of export run %d was kept: %w", runID, ErrNotFound)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("reading the copy of the file of export run %d: %w", runID, err)
	}
	gz, err := base64.StdEncoding.DecodeString(text)
	if err != nil {
		return nil, 0, fmt.Errorf("reading the copy of the file of export run %d: %w", runID, err)
	}
	return gz, size, nil
}

// HasCopies reports which of the runs have a kept copy.
func (d *DB) HasCopies(ctx context.Context, runIDs []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	for _, id := range runIDs {
		var n int
		if err := d.r.QueryRowContext(ctx, `SELECT count(*) FROM export_copies WHERE run_id = ?`, id).Scan(&n); err != nil {
			return nil, fmt.Errorf("looking for copies of export runs: %w", err)
		}
		out[id] = n > 0
	}
	return out, nil
}

// RecordResend records that run from's file was written again as name
// (a finished run of the same export, with its rows, marked as a re-send).
func (d *DB) RecordResend(ctx context.Context, from ExportRun, name string) (int64, error) {
	now := formatTime(d.now())
	var id int64
	err := d.w.QueryRowContext(ctx, `INSERT INTO export_runs (outbox, export, state, owner, started_at, finished_at, row_count,
		file_name, resent_from) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		from.Outbox, from.Export, string(RunDone), d.instance, now, now, from.Rows, name, from.ID).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("recording the re-send of export run %d as %s: %w", from.ID, name, err)
	}
	return id, nil
}

// ExportSummary is what the journal knows of one export: its last run
// (a scheduled time skipped is no run), its last successful run, its last
// failed run and its cursor.
type ExportSummary struct {
	Outbox, Export string
	Last           ExportRun // zero when it never ran
	LastSuccess    ExportRun // zero when no run succeeded
	LastError      ExportRun // zero when no run failed
	Cursor         Cursor
	HasCursor      bool
}

// ExportSummary sums up an export's runs and cursor.
func (d *DB) ExportSummary(ctx context.Context, outbox, export string) (ExportSummary, error) {
	s := ExportSummary{Outbox: outbox, Export: export}
	one := func(cond string) (ExportRun, error) {
		runs, err := d.queryRuns(ctx, `SELECT `+runColumns+` FROM export_runs
			WHERE outbox = ? AND export = ? AND resent_from = 0 AND state != 'skipped' `+cond+` ORDER BY id DESC LIMIT 1`, outbox, export)
		if err != nil || len(runs) == 0 {
			return ExportRun{}, err
		}
		return runs[0], nil
	}
	for run, cond := range map[*ExportRun]string{&s.Last: "", &s.LastSuccess: "AND state = 'done'", &s.LastError: "AND state = 'failed'"} {
		var err error
		if *run, err = one(cond); err != nil {
			return s, fmt.Errorf("summing up export %s/%s: %w", outbox, export, err)
		}
	}
	var err error
	if s.Cursor, s.HasCursor, err = d.Cursor(ctx, outbox, export); err != nil {
		return s, err
	}
	return s, nil
}
