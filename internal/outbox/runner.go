// Package outbox runs filebridge's scheduled exports: it lists documents from
// the portal from the export's cursor on, writes them as one CSV or XLSX file
// into the outbox folder under a temporary name, renames the file into
// place, and only then advances the cursor in the journal. A crash between
// the rename and the cursor commit exports the same rows again on the next
// run (into a new file); no row is ever lost.
//
// Scheduler runs the exports on their cron schedules.
package outbox

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"log/slog"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/jonboulle/clockwork"

	"filebridge/internal/edi/edifact"
	"filebridge/internal/folder"
	"filebridge/internal/formats/export"
	"filebridge/internal/journal"
	"filebridge/internal/model"
)

// Job is one configured export of an outbox.
type Job struct {
	Outbox  string
	Edition model.Edition
	Type    model.ExportType
	// Schedule is the cron expression (five fields or a descriptor) the
	// Scheduler runs the job on, in Location.
	Schedule string
	// Location is the time zone of the schedule, of the file name's
	// {date} {time} {datetime}, and of date-times written. Default UTC.
	Location *time.Location
	// Filename is the name template: {date} (20061121), {time} (150405),
	// {datetime} (20061121_150405), {seq} (000042, from the journal),
	// {type} (stock), {outbox} (the outbox name). Default
	// "<TYPE>_{datetime}.<format>".
	Filename string
	// Dir is the subfolder of the outbox the file goes to ("" the root).
	Dir string
	// WriteEmpty writes a header-only file when there are no rows.
	WriteEmpty bool
	// File says how the file is written; its Location is set from Location.
	File export.Options
}

// Name is "outbox/type", for logs and errors.
func (j Job) Name() string { return j.Outbox + "/" + string(j.Type) }

// Result is what a run did.
type Result struct {
	Rows int
	// File is the path written, relative to the outbox; "" when the run
	// wrote nothing (no rows and WriteEmpty false).
	File string
	copy *fileCopy // the file compressed, for the journal's copy
}

// Journal is what the runner needs of the journal; *journal.DB has it.
type Journal interface {
	Cursor(ctx context.Context, outbox, export string) (journal.Cursor, bool, error)
	SaveCursor(ctx context.Context, c journal.Cursor) error
	NextSequence(ctx context.Context, outbox, export string) (int64, error)
	StartRun(ctx context.Context, outbox, export string) (int64, error)
	FinishRun(ctx context.Context, r journal.ExportRun) error
	// OwnsTick fails when ctx is the run of a tick (journal.WithTick)
	// this instance no longer holds: the file must not go in place.
	OwnsTick(ctx context.Context) error
	// KeepCopy keeps a compressed copy of the file a run wrote, so that a
	// clerk can send it again once the other side took it away (kept
	// with the runs).
	KeepCopy(ctx context.Context, runID int64, size int64, gz []byte) error
	// NumberRun gives a run the next interchange control number of the
	// partner's counter, recorded on the run in the same transaction (a
	// number taken by a run that then fails is not used again: numbers
	// are sequential, never reused).
	NumberRun(ctx context.Context, runID int64, partner string) (int64, error)
}

var _ Journal = (*journal.DB)(nil)

// recordFor is how long a run tries to record its end in a journal that
// does not answer.
const recordFor = 30 * time.Second

// DefaultOverlapMargin is added to a run's duration to give the part of the
// listing read again on the next run (see Runner.OverlapMargin).
const DefaultOverlapMargin = time.Minute

// Runner runs the exports of one outbox: one portal, one folder.
type Runner struct {
	Source  Source
	Folder  folder.Folder
	Journal Journal
	Logger  *slog.Logger // default slog.Default()
	// Now is the clock of file names and run durations; default time.Now.
	Now func() time.Time
	// OverlapMargin, plus the run's own duration, is how far before the
	// newest timestamp seen the next run starts listing again, so that a
	// document updated while the pages were read, or committed late, is
	// still exported. Default DefaultOverlapMargin; negative: none.
	OverlapMargin time.Duration
	// CopyLimit is the largest compressed copy of a file kept for a
	// re-send; default MaxCopy.
	CopyLimit int

	// clock paces the retries of the run's record (tests); default the
	// real one.
	clock clockwork.Clock
}

// Run exports what changed since the job's cursor and advances the cursor
// once the file is in place. With no rows it writes nothing, unless
// job.WriteEmpty.
func (r *Runner) Run(ctx context.Context, job Job) (Result, error) {
	return r.run(ctx, job, time.Time{}, false)
}

// RunSince exports again everything from since on (inclusive), without
// reading or moving the cursor. A stock export ignores since.
func (r *Runner) RunSince(ctx context.Context, job Job, since time.Time) (Result, error) {
	return r.run(ctx, job, since, true)
}

func (r *Runner) run(ctx context.Context, job Job, since time.Time, rerun bool) (res Result, err error) {
	log := r.logger().With("outbox", job.Outbox, "export", string(job.Type))
	start := r.now()
	// The run's records are written even when its own context ends (a
	// stop in the middle): a start cut short by a stop could be written
	// without its end, a run forever "running" in the journal.
	recCtx := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	}
	sctx, cancel := recCtx()
	runID, err := r.Journal.StartRun(sctx, job.Outbox, string(job.Type))
	cancel()
	if err != nil {
		return Result{}, err
	}
	defer func() {
		rec := journal.ExportRun{ID: runID, Rows: res.Rows, FileName: res.File}
		if err != nil {
			rec.Error = err.Error()
		}
		// Tried again a while: a journal restarting a moment must not
		// leave the run "running" in the history for ever.
		clock := cmp.Or(r.clock, clockwork.NewRealClock())
		ferr := retryJournal(context.WithoutCancel(ctx), clock, log, "recording the export run",
			clock.Now().Add(recordFor), func() error {
				fctx, cancel := recCtx()
				defer cancel()
				return r.Journal.FinishRun(fctx, rec)
			})
		if ferr != nil {
			log.Warn("recording the export run", "error", ferr)
		}
	}()
	res, err = r.export(ctx, job, runID, since, rerun, start, log)
	if err != nil {
		return res, fmt.Errorf("exporting %s: %w", job.Name(), err)
	}
	if res.copy != nil {
		// A copy for a re-send; the file is in place whether it is kept or not.
		kctx, cancel := recCtx()
		if kerr := r.Journal.KeepCopy(kctx, runID, res.copy.size, res.copy.gz.Bytes()); kerr != nil {
			log.Warn("keeping a copy of the export file for a re-send", "file", res.File, "error", kerr)
		}
		cancel()
	}
	res.copy = nil
	return res, nil
}

func (r *Runner) export(ctx context.Context, job Job, runID int64, since time.Time, rerun bool, start time.Time, log *slog.Logger) (Result, error) {
	schema, err := export.For(job.Type, job.Edition)
	if err != nil {
		return Result{}, err
	}
	loc := cmp.Or(job.Location, time.UTC)
	opts := job.File
	opts.Location = loc

	var win *window // nil: no cursor (stock)
	switch {
	case !cursored(job.Type):
	case rerun:
		win = newWindow(since, nil)
	default:
		c, _, err := r.Journal.Cursor(ctx, job.Outbox, string(job.Type))
		if err != nil {
			return Result{}, err
		}
		win = newWindow(c.At, c.Keys)
	}
	var after time.Time
	if win != nil {
		after = win.at
	}
	queried := r.now() // the time of this query: the cursor of documents without timestamps
	all, err := docs(ctx, r.Source, job.Edition, job.Type, after)
	if err != nil {
		return Result{}, err
	}
	next, stop := iter.Pull2(admitted(all, win, queried))
	defer stop()

	// Look at the first document before creating anything: no rows, no file.
	first, err, ok := next()
	if ok && err != nil {
		return Result{}, fmt.Errorf("listing from the portal: %w", err)
	}
	var res Result
	if ok || job.WriteEmpty {
		name, err := r.fileName(ctx, job, start.In(loc))
		if err != nil {
			return Result{}, err
		}
		// The envelopes are numbered in copies: the job's stay unnumbered.
		if opts.X12 != nil {
			env := *opts.X12
			ctl, err := r.Journal.NumberRun(ctx, runID, "x12:"+env.Receiver.Qualifier+":"+env.Receiver.ID)
			if err != nil {
				return Result{}, err
			}
			env.Control, env.Time = ctl%1_000_000_000, start
			opts.X12 = &env
		}
		if opts.EDIFACT != nil {
			env := *opts.EDIFACT
			// The counter the CONTRLs to that partner use.
			ctl, err := r.Journal.NumberRun(ctx, runID, edifact.CounterKey(env.Header.Recipient))
			if err != nil {
				return Result{}, err
			}
			env.Header.Ref, env.Time = strconv.FormatInt(ctl, 10), start
			opts.EDIFACT = &env
		}
		err = r.Folder.CreateAtomic(ctx, name, func(w io.Writer) error {
			res.copy = newFileCopy(r.copyLimit())
			ew, err := export.NewWriter(io.MultiWriter(w, res.copy), schema, opts)
			if err != nil {
				return err
			}
			for d := first; ok; d, err, ok = next() {
				if err != nil {
					ew.Abort()
					return fmt.Errorf("listing from the portal: %w", err)
				}
				for _, row := range d.rows {
					if err := ew.Write(row); err != nil {
						ew.Abort()
						return err
					}
				}
			}
			res.Rows = ew.Rows()
			if err := ew.Close(); err != nil {
				return err
			}
			if res.copy != nil && !res.copy.close() {
				log.Info("export file too large to keep a copy for a re-send", "file", name, "limit_bytes", r.copyLimit())
				res.copy = nil
			}
			// The last moment before the file goes in place: a run whose
			// tick another instance may run now writes nothing.
			return r.Journal.OwnsTick(ctx)
		})
		if err != nil {
			if errors.Is(err, fs.ErrExist) {
				return Result{}, fmt.Errorf("writing %s in %s: the name was taken meanwhile; nothing was overwritten and the rows will be exported again next run: %w", name, r.Folder, err)
			}
			return Result{}, fmt.Errorf("writing %s in %s: %w", name, r.Folder, err)
		}
		res.File = name
		log.Info("export written", "file", name, "rows", res.Rows, "folder", r.Folder.String())
	} else {
		log.Debug("nothing to export")
	}
	if win == nil || rerun {
		return res, nil
	}
	// The file is durably in place: only now may the cursor move on.
	at, keys, changed := win.next(r.overlap(start))
	if changed {
		if err := r.Journal.SaveCursor(ctx, cursorOf(job, at, keys)); err != nil {
			return res, fmt.Errorf("the file %s is written but the cursor was not saved, so its rows will be exported again next run: %w", res.File, err)
		}
	}
	return res, nil
}

// admitted passes the documents the window admits (all of them without a
// window); it reports a listing error and stops. A document without the
// timestamp its export follows (the documents list none on receptions,
// orders, purchase and sales orders, variants) is admitted by its key and
// the digest of its rows, stamped with the time of the query (see
// window.admitTimeless).
func admitted(all iter.Seq2[doc, error], win *window, queried time.Time) iter.Seq2[doc, error] {
	return filterMap(all, func(d doc) (doc, bool, error) {
		switch {
		case win == nil:
		case d.ts.IsZero():
			if !win.admitTimeless(d.key+keyDigestSep+rowsDigest(d.rows), queried) {
				return d, false, nil
			}
		case !win.admit(d.key, d.ts):
			return d, false, nil
		}
		return d, len(d.rows) > 0, nil
	})
}

// fileName expands the job's template and makes sure it names no existing
// file (suffix ".1", ".2"... before the extension), in Dir, which is
// created when missing.
func (r *Runner) fileName(ctx context.Context, job Job, now time.Time) (string, error) {
	var seq int64
	if usesSeq(job.Filename) {
		var err error
		if seq, err = r.Journal.NextSequence(ctx, job.Outbox, string(job.Type)); err != nil {
			return "", err
		}
	}
	tmpl := job.Filename
	if tmpl == "" {
		format := string(job.File.Format)
		if format == "" {
			format = string(export.CSV)
		}
		tmpl = strings.ToUpper(string(job.Type)) + "_{datetime}." + format
	}
	base := expand(tmpl, job, now, seq)
	dir := job.Dir
	if dir == "" {
		dir = "."
	}
	if err := r.Folder.MkdirAll(ctx, dir); err != nil {
		return "", fmt.Errorf("creating folder %s in %s: %w", dir, r.Folder, err)
	}
	name := path.Join(dir, base)
	if _, err := r.Folder.Stat(ctx, name); errors.Is(err, fs.ErrNotExist) {
		return name, nil
	}
	return folder.UniqueName(ctx, r.Folder, dir, base)
}

func (r *Runner) overlap(start time.Time) time.Duration {
	m := r.OverlapMargin
	if m == 0 {
		m = DefaultOverlapMargin
	}
	if m < 0 {
		return 0
	}
	return m + r.now().Sub(start)
}

func (r *Runner) copyLimit() int {
	if r.CopyLimit > 0 {
		return r.CopyLimit
	}
	return MaxCopy
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Runner) logger() *slog.Logger { return cmp.Or(r.Logger, slog.Default()) }
