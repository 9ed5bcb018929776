package inbox

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"slices"
	"strings"
	"time"

	"filebridge/internal/config"
	"filebridge/internal/folder"
	"filebridge/internal/formats"
	"filebridge/internal/journal"
	"filebridge/internal/portal"
)

// fileRun is the processing of one claimed file.
type fileRun struct {
	in *Inbox
	// stop ends the starting of new work: no document is sent after it
	// ended (the run's own context carries the requests in flight).
	stop context.Context

	f     folder.Folder
	row   journal.File
	log   *slog.Logger
	route *config.Route
	opts  formats.Options
	src   *source
	sum   formats.Summary
	// problems are file-level errors found outside the decoder: too big,
	// unreadable.
	problems []string
	// notes are file-level remarks of the report (no route matched).
	notes []string
	// force submits the file even when its content was processed before
	// (process --force).
	force bool
	// missing are the references of valid documents to codes not on the
	// portal, once the file's hold is over (or hold_missing is 0), with
	// their messages; heldFor is how long the file waited for them.
	missing map[portal.Ref]string
	heldFor time.Duration
	// lookFirst looks every document with a key up on the portal before
	// creating it (a replay, a forced re-submission).
	lookFirst bool
	// changed says the file changed after its claim and was read again
	// (changeNote says so in the report); keys are then the keys of the
	// documents its last reading found.
	changed    bool
	changeNote string
	keys       map[string]bool
	// claimedHere says this process claimed the file in this round: the
	// journal holds no decoding of it yet.
	claimedHere bool
	// tail are the last documents of the decoding and summary its
	// summary, journaled with the file's next state (one write for a
	// small file).
	tail    []journal.Document
	summary string
	// edi is the interchange of an X12 or EDIFACT file (nil for other
	// formats), and refused the rows its acknowledgement rejects.
	edi     formats.Interchange
	refused []formats.Refusal
}

// ProcessFile claims the named file of the inbox now (no settle, no done
// marker), processes it, writes its report and moves it. A name already
// claimed in processing/ and still open in the journal is resumed. An
// error matching IsRetry means the file stays in processing/ to be
// retried (the portal or the folder failed, or refused the token).
func (in *Inbox) ProcessFile(ctx context.Context, name string) (FileResult, error) {
	return in.ProcessFileWith(ctx, name, FileOptions{})
}

// FileOptions change how ProcessFileWith treats one file.
type FileOptions struct {
	// Force submits a file whose content was already processed on this
	// portal, instead of reporting it a duplicate: documents already on
	// the portal are looked up by key, never created twice.
	Force bool
}

// ProcessFileWith is ProcessFile with options.
func (in *Inbox) ProcessFileWith(ctx context.Context, name string, opts FileOptions) (FileResult, error) {
	if name == "" || strings.ContainsAny(name, `/\`) {
		return FileResult{Name: name}, fmt.Errorf("processing %q: give the name of a file in the inbox folder, without folders", name)
	}
	f, err := in.folder(ctx)
	if err != nil {
		return FileResult{Name: name}, &retryError{err: err}
	}
	in.work.Lock()
	defer in.work.Unlock()
	row, err := in.claim(ctx, f, name)
	if errors.Is(err, fs.ErrNotExist) {
		open, oerr := in.j.OpenFiles(ctx, in.cfg.Name)
		if oerr == nil {
			open, oerr = in.mine(ctx, open)
		}
		if oerr != nil {
			return FileResult{Name: name}, oerr
		}
		i := slices.IndexFunc(open, func(o journal.File) bool { return o.Name == name })
		if i < 0 {
			return FileResult{Name: name}, fmt.Errorf("processing %s: no such file in inbox %q (%s): %w", name, in.cfg.Name, f, fs.ErrNotExist)
		}
		row = open[i]
	} else if err != nil {
		return FileResult{Name: name}, &retryError{err: err}
	}
	return in.process(ctx, ctx, f, row, opts)
}

// process runs a claimed file to its end: processed/ or error/, or back
// to the caller with a retry error while it stays in processing/. Once
// stop ended, no new document of the file is sent: the file stays in
// processing/ (those already sent finish under ctx and are journaled) and
// process returns stop's error, unless every document was settled by
// then (the file is then finished).
func (in *Inbox) process(stop, ctx context.Context, f folder.Folder, row journal.File, opts FileOptions) (FileResult, error) {
	start := in.now()
	fr := &fileRun{in: in, stop: stop, f: f, row: row, log: in.log.With("file", row.Name, "file_id", row.ID), force: opts.Force}
	fr.route = in.route(row.Name)
	fr.opts = FormatOptions(in.edition, fr.route, int64(in.cfg.MaxFileSize))
	if fr.route == nil {
		fr.notes = append(fr.notes, fmt.Sprintf("no route of inbox %q matches %s: its type was detected from the header row and it was read with the default options (policy reject); add a route to set them", in.cfg.Name, row.Name))
	}
	res, err := fr.run(ctx)
	in.releaseMemory(row.Size)
	if errors.Is(err, errLostFile) {
		// The row is the other instance's now: nothing more is written.
		fr.log.Warn("file taken over by another instance while this one worked on it: stopping here, the other one finishes it", "error", err)
		res = fr.result()
		res.Message = fmt.Sprintf("taken over by another instance (this one did not renew its lease in time): %v", err)
		return res, nil
	}
	if err != nil {
		stopping := stop.Err() != nil || ctx.Err() != nil
		res = fr.result()
		res.Message = fmt.Sprintf("left in %s to retry later: %v", in.cfg.ProcessingDir, err)
		if stopping {
			res.Message = fmt.Sprintf("left in %s while filebridge was stopping: it resumes at the next start", in.cfg.ProcessingDir)
			fr.log.Info("file left in processing/ to resume at the next start", "reason", context.Cause(stop))
		} else {
			in.metrics.file(in.cfg.Name, "retry")
		}
		if fr.row.ID != 0 && ctx.Err() == nil {
			row := fr.row
			row.Message = res.Message
			if uerr := in.j.UpdateFile(ctx, row); uerr != nil {
				fr.log.Warn("could not record why the file waits", "error", uerr)
			}
		}
		if stopping {
			return res, cmp.Or(stop.Err(), ctx.Err())
		}
		var re *retryError
		if !errors.As(err, &re) {
			err = &retryError{err: err}
		}
		return res, err
	}
	in.metrics.took(in.cfg.Name, in.now().Sub(start))
	return res, nil
}

func (fr *fileRun) run(ctx context.Context) (FileResult, error) {
	in, row := fr.in, &fr.row
	// What this process saw of the file when it claimed it (none at a
	// resume after a restart: the claim's hash tells a change then).
	claim, claimedHere := in.takeClaimLook(row.ID)
	fr.claimedHere = claimedHere
	// A source its claim in this round kept (a copy, or the local file
	// still open): the file is in processing/, as claimed moments ago.
	src := in.takeSpooled(row.ID)
	kept := src != nil
	if kept {
		defer src.Close() // on every return, a duplicate's too
	} else if _, err := fr.f.Stat(ctx, row.Path); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return FileResult{}, err
		}
		if row.FinalPath != "" {
			if _, ferr := fr.f.Stat(ctx, row.FinalPath); ferr == nil {
				return fr.moved(ctx) // crash between the move and the journal update
			}
		}
		return fr.lost(ctx)
	}
	if row.Size > int64(in.cfg.MaxFileSize) {
		fr.problems = append(fr.problems, fmt.Sprintf("the file is %d bytes, more than the %s max_file_size of inbox %q: it was not read; split it into smaller files or raise max_file_size",
			row.Size, in.cfg.MaxFileSize, in.cfg.Name))
		return fr.finish(ctx)
	}
	replay, forced := in.replayOf(ctx, *row)
	// A replay or a forced re-submission carries documents a run before
	// may have created: each is looked up by its key before it is sent.
	fr.lookFirst = replay || fr.force
	if !forced && row.State == journal.FileClaimed && row.SHA256 != "" {
		orig, found, err := in.j.ProcessedHash(ctx, in.cfg.Name, in.p.Identity(), row.SHA256)
		if err != nil {
			return FileResult{}, err
		}
		switch {
		case found && orig.ID != row.ID && fr.force:
			fr.log.Info("submitting a known duplicate on purpose (--force): documents already on the portal are looked up, not created again",
				"duplicate_of", orig.Name, "duplicate_of_id", orig.ID)
		case found && orig.ID != row.ID && fr.opts.Format != config.FormatX12 && fr.opts.Format != config.FormatEDIFACT:
			return fr.duplicate(ctx, orig, "")
		}
		// An EDI file sent again is found by its interchange (ediDuplicate),
		// which also acknowledges it.
	}
	if src == nil {
		var err error
		src, err = in.openSource(ctx, fr.f, row.Path, !claimedHere && row.SHA256 != "", 0)
		if errors.Is(err, folder.ErrNotRegular) {
			fr.problems = append(fr.problems, fmt.Sprintf("it was not read: %v; only regular files are taken", err))
			return fr.finish(ctx)
		}
		if err != nil {
			return FileResult{}, err
		}
		defer src.Close()
	}
	fr.src = src
	defer func() { _ = fr.src.Close() }() // a source read again (Close is idempotent)
	var err error
	if fr.edi, err = formats.OpenInterchange(src, src.size, row.Name, fr.opts); err != nil {
		return FileResult{}, err
	}
	if !replay && !fr.force { // a replay sends a known interchange again on purpose
		if res, dup, err := fr.ediDuplicate(ctx); dup || err != nil {
			return res, err
		}
	}

	// A file that changed since its claim (its writer was not done) is
	// read again whole once it settles, as often as it changes before
	// it is finished.
	// (A source read now is compared with the claim's look, and so is
	// the local file its claim kept open; the claim's own copy is
	// checked, like any reading, once it was submitted.)
	changed := src.sha != "" && src.sha != row.SHA256
	if claimedHere {
		now := look{size: src.size, mtime: src.mtime}
		if kept {
			if now, err = src.look(); err != nil {
				return FileResult{}, fmt.Errorf("checking whether %s changed since its claim: %w", row.Path, err)
			}
		}
		changed = now.size != claim.size || !now.mtime.Equal(claim.mtime)
	}
	notes := fr.notes
	for {
		if changed {
			if err := fr.reread(ctx); err != nil {
				return FileResult{}, err
			}
			fr.notes = append(notes[:len(notes):len(notes)], fr.changeNote)
		}
		if res, done, err := fr.read(ctx); done || err != nil {
			return res, err
		}
		var err error
		if changed, err = fr.changedSince(ctx, look{size: fr.src.size, mtime: fr.src.mtime}); err != nil {
			return FileResult{}, err
		}
		if !changed {
			break
		}
	}
	return fr.finish(ctx)
}

// read decodes fr.src once, journaling its documents as they are formed
// (a file decoded before and not changed since is taken from the journal
// instead), checks their references, and submits the valid ones from the
// journal. done says the file's run ends with res (held for master data,
// or quarantined).
func (fr *fileRun) read(ctx context.Context) (res FileResult, done bool, err error) {
	row := &fr.row
	fresh := row.State == journal.FileClaimed
	var refs refSet
	decoded := false
	if !fr.changed && !fr.claimedHere {
		if decoded, err = fr.loadSummary(ctx); err != nil {
			return FileResult{}, false, err
		}
	}
	if decoded && fresh {
		if refs, err = fr.journalRefs(ctx); err != nil {
			return FileResult{}, false, err
		}
	}
	if !decoded {
		if refs, err = fr.decode(ctx, fresh); err != nil {
			if errors.Is(err, errStoppedReading) {
				res, err := fr.quarantine(ctx, fr.src.size)
				return res, true, err
			}
			return FileResult{}, false, err
		}
	}
	sum := fr.sum
	if sum.Sheet != "" {
		// The clerk sees which sheet of the workbook was read.
		fr.notes = append(fr.notes, fmt.Sprintf("read the sheet %q of the workbook", sum.Sheet))
		fr.log = fr.log.With("sheet", sum.Sheet)
		fr.log.Info("reading a workbook sheet")
	}
	if hint := fr.typeHint(ctx); hint != "" {
		fr.notes = append(fr.notes, hint)
		fr.log.Info("file read as the wrong type?", "hint", hint)
	}
	if sum.Type.Name != "" {
		row.DocType = sum.Type.Name
	}
	if fresh && len(fr.problems) == 0 {
		// Every reference resolved before the first create: a file that
		// waits for master data is held, not failed.
		held, err := fr.checkRefs(ctx, refs)
		if err == nil && held != nil && fr.summary != "" {
			// Decoded in this round: a held file looked at again, from the
			// journal, costs no write.
			err = fr.endDecode(ctx)
		}
		if err != nil {
			return FileResult{}, false, err
		}
		if held != nil {
			return *held, true, nil
		}
	}
	row.Rows, row.DocsTotal, row.State = sum.Rows, sum.Docs, journal.FileSubmitting
	if err := fr.endDecode(ctx); err != nil {
		return FileResult{}, false, err
	}
	if err := fr.settleGone(ctx); err != nil {
		return FileResult{}, false, err
	}
	if err := fr.submit(ctx); err != nil {
		return FileResult{}, false, err
	}
	return FileResult{}, false, nil
}

// decode is the one decoding of fr.src: it journals every document as it
// is formed, a batch at a time (invalid ones with their messages, valid
// ones pending), then the file's summary, and returns the references of
// the valid documents of a fresh file. A reading that fails is a problem
// of the file (its documents are then settled unsent).
func (fr *fileRun) decode(ctx context.Context, fresh bool) (refSet, error) {
	in, row, src := fr.in, &fr.row, fr.src
	endRead, err := in.beginRead(row.Name, src.size)
	if err != nil {
		return nil, err
	}
	if fr.changed {
		fr.keys = map[string]bool{}
	}
	refs := refSet{}
	// The batches grow with the file (to batchSize): most files hold a
	// few rows, and two batches of batchSize cost 70 kB a file.
	var batch []journal.Document
	var docs []formats.Doc
	sum, err := formats.Decode(fr.stop, src, src.size, row.Name, fr.opts, func(d formats.Doc) error {
		if fresh && d.Valid() {
			for _, r := range in.docRefs(d) {
				refs[r] = struct{}{}
			}
		}
		jd, err := docRecord(d)
		if err != nil {
			return err
		}
		if fr.keys != nil {
			fr.keys[jd.Key] = true
		}
		batch, docs = append(batch, jd), append(docs, d)
		if len(batch) < batchSize {
			return fr.stop.Err()
		}
		keep, err := fr.keep(ctx, fresh, batch, docs)
		if err == nil {
			err = in.j.AddDocuments(ctx, row.ID, keep)
		}
		if err != nil {
			return &journalError{err}
		}
		batch, docs = batch[:0], docs[:0]
		return fr.stop.Err()
	})
	endRead()
	fr.sum = sum
	if err != nil {
		if fr.stop.Err() != nil || ctx.Err() != nil {
			return nil, cmp.Or(fr.stop.Err(), ctx.Err())
		}
		var je *journalError
		if errors.As(err, &je) {
			return nil, je.err
		}
		fr.problems = append(fr.problems, "the file cannot be read: "+err.Error())
	}
	b, err := json.Marshal(decoding{Summary: sum, Problems: fr.problems})
	if err != nil {
		return nil, fmt.Errorf("encoding the summary of %s: %w", row.Name, err)
	}
	fr.summary = string(b)
	if fr.tail, err = fr.keep(ctx, fresh, batch, docs); err != nil {
		return nil, err
	}
	return refs, nil
}

// endDecode journals the file's row with the last documents of its
// decoding and its summary.
func (fr *fileRun) endDecode(ctx context.Context) error {
	if err := fr.in.j.EndDocuments(ctx, fr.row, fr.summary, fr.tail); err != nil {
		return err
	}
	fr.tail, fr.summary = nil, ""
	return nil
}

// journalError is a failure to journal documents while the file is being
// decoded: the file is retried, it is not a problem of the file.
type journalError struct{ err error }

func (e *journalError) Error() string { return e.err.Error() }

// keep returns the documents of a batch the journal records. Those of a
// fresh file replace what an earlier reading recorded (nothing of it was
// sent). Of a file read again after it changed, a document already
// settled stays so unless it is reconsidered (it is then looked up before
// it is sent again), and one sent without an answer is looked up before
// it is sent.
func (fr *fileRun) keep(ctx context.Context, fresh bool, batch []journal.Document, docs []formats.Doc) ([]journal.Document, error) {
	if fresh {
		return slices.Clone(batch), nil
	}
	keep := make([]journal.Document, 0, len(batch))
	for i, jd := range batch {
		old, err := fr.in.j.Document(ctx, fr.row.ID, jd.Key)
		switch {
		case errors.Is(err, journal.ErrNotFound):
		case err != nil:
			return nil, err
		case !docs[i].Valid() && old.Result != journal.ResultPending:
			continue
		case old.Result == journal.ResultSending:
			jd.Result = journal.ResultSending
		case old.Result.Final() && !fr.reconsider(old, jd, docs[i]):
			continue
		case old.Result.Final():
			jd.Result = journal.ResultSending // looked up first
		}
		keep = append(keep, jd)
	}
	return keep, nil
}

// docRecord is the journal's record of a decoded document: invalid with
// its messages, else pending, with its decoded form.
func docRecord(d formats.Doc) (journal.Document, error) {
	body, err := json.Marshal(d)
	if err != nil {
		return journal.Document{}, fmt.Errorf("encoding document %s: %w", displayKey(d), err)
	}
	jd := journal.Document{Key: journalKey(d), Rows: rowsText(d.Rows), Body: string(body), Result: journal.ResultPending}
	if len(d.Rows) > 0 {
		jd.FirstRow = slices.Min(d.Rows)
	}
	if !d.Valid() {
		jd.Result, jd.Message = journal.ResultInvalid, issuesText(d.Issues, false)
	}
	return jd, nil
}

// docOf decodes a document's body as docRecord journaled it.
func docOf(jd journal.Document) (formats.Doc, error) {
	var d formats.Doc
	if err := json.Unmarshal([]byte(jd.Body), &d); err != nil {
		return formats.Doc{}, fmt.Errorf("reading document %s from the journal: %w", jd.Key, err)
	}
	return d, nil
}

// decoding is what the decoding of a file found, as the journal keeps it.
type decoding struct {
	Summary  formats.Summary
	Problems []string // the file cannot be read
}

// loadSummary takes what the decoding of the file found from the journal;
// false when its decoding did not finish.
func (fr *fileRun) loadSummary(ctx context.Context) (bool, error) {
	s, err := fr.in.j.Summary(ctx, fr.row.ID)
	if err != nil || s == "" {
		return false, err
	}
	var dec decoding
	if err := json.Unmarshal([]byte(s), &dec); err != nil {
		return false, fmt.Errorf("reading the summary of %s from the journal: %w", fr.row.Name, err)
	}
	fr.sum, fr.problems = dec.Summary, append(fr.problems, dec.Problems...)
	return true, nil
}

// journalRefs gathers the references of the pending documents of a file
// decoded before (a held file looked at again).
func (fr *fileRun) journalRefs(ctx context.Context) (refSet, error) {
	refs := refSet{}
	for jd, err := range fr.in.j.FileDocuments(ctx, fr.row.ID, true) {
		if err != nil {
			return nil, err
		}
		d, err := docOf(jd)
		if err != nil {
			return nil, err
		}
		for _, r := range fr.in.docRefs(d) {
			refs[r] = struct{}{}
		}
	}
	return refs, nil
}

// quarantine sends a file that stopped filebridge while it was being read
// to error/ unread, with a report saying so; once it is there, its reading
// ledger is cleared.
func (fr *fileRun) quarantine(ctx context.Context, size int64) (FileResult, error) {
	fr.problems = append(fr.problems, errStoppedReading.Error())
	fr.log.Error("file stopped filebridge while it was being read, twice: moving it to error/ unread", "size", size)
	// Documents an earlier run recorded and did not settle are settled
	// unsent: the file is not read again to send them.
	docs, err := fr.in.j.Documents(ctx, fr.row.ID)
	if err != nil {
		return FileResult{}, err
	}
	var open []journal.Document
	for _, d := range docs {
		switch d.Result {
		case journal.ResultPending:
			d.Result, d.Message = journal.ResultSkipped, "not submitted: the file stopped filebridge while it was being read"
		case journal.ResultSending:
			d.Result, d.Message = journal.ResultFailed, "its create was sent before the file stopped filebridge, and not checked since: look it up on the portal before dropping the file again"
		default:
			continue
		}
		open = append(open, d)
	}
	if len(open) > 0 {
		if err := fr.in.j.SetResults(ctx, fr.row.ID, open); err != nil {
			return FileResult{}, err
		}
	}
	res, err := fr.finish(ctx)
	if err == nil {
		fr.in.clearRead(fr.row.Name, size)
	}
	return res, err
}

// typeHint is a note for a file whose route names one type while its
// header row is clearly another type's ("" when it is not).
func (fr *fileRun) typeHint(ctx context.Context) string {
	if _, bad := firstError(fr.sum.FileIssues); fr.route == nil || fr.route.Type == "" || fr.src == nil || !bad {
		return ""
	}
	opts := fr.opts
	opts.Type = ""
	dt, err := formats.FileType(ctx, fr.src, fr.src.size, fr.row.Name, opts)
	if err != nil || dt.Name == "" || dt.Name == fr.route.DocType.Name || dt.Name == fr.route.Type {
		return ""
	}
	return fmt.Sprintf("the file was read as %q because its name matches the route %q, but its header row is that of a %q file: rename the file or fix the route's match", fr.route.Type, fr.route.Match, dt.Name)
}

// lost closes the journal entry of a file that vanished from processing/.
func (fr *fileRun) lost(ctx context.Context) (FileResult, error) {
	row := &fr.row
	row.State = journal.FileFailed
	row.Message = fmt.Sprintf("the file disappeared from %s before it was finished (removed by hand?): drop it again if it still needs processing", path.Dir(row.Path))
	if err := fr.in.j.UpdateFile(ctx, *row); err != nil {
		return FileResult{}, err
	}
	fr.log.Warn("file vanished from processing/", "path", row.Path)
	fr.in.metrics.file(fr.in.cfg.Name, "failed")
	fr.in.onFailed(*row)
	return fr.result(), nil
}

// moved closes the journal entry of a file the last run moved but could
// not record (a crash between the move and the journal update).
func (fr *fileRun) moved(ctx context.Context) (FileResult, error) {
	in, row := fr.in, &fr.row
	counts, err := in.j.DocumentCounts(ctx, row.ID)
	if err != nil {
		return FileResult{}, err
	}
	row.Path = row.FinalPath
	row.DocsOK = counts[journal.ResultCreated] + counts[journal.ResultExists]
	row.DocsFailed = failedCount(counts)
	switch {
	case strings.HasPrefix(row.FinalPath, in.cfg.ErrorDir+"/"):
		row.State = journal.FileFailed
	case len(counts) == 0 && row.SHA256 != "":
		row.State = journal.FileDone
		if orig, found, err := in.j.ProcessedHash(ctx, in.cfg.Name, in.p.Identity(), row.SHA256); err == nil && found && orig.ID != row.ID {
			row.State = journal.FileDuplicate
		}
	default:
		row.State = journal.FileDone
	}
	if row.Message == "" {
		row.Message = "moved to " + row.FinalPath
	}
	if err := in.j.UpdateFile(ctx, *row); err != nil {
		return FileResult{}, err
	}
	fr.log.Info("recorded the move of a file finished before a restart", "final_path", row.FinalPath)
	in.metrics.file(in.cfg.Name, string(row.State))
	if row.State == journal.FileFailed {
		in.onFailed(*row) // the stop may have come before its notification
	}
	return fr.result(), nil
}

func (fr *fileRun) result() FileResult {
	row := fr.row
	res := FileResult{
		Name: row.Name, DocType: row.DocType, State: row.State, Rows: row.Rows,
		DocsOK: row.DocsOK, DocsFailed: row.DocsFailed, Message: row.Message,
		Duplicate: row.State == journal.FileDuplicate,
	}
	if row.State == journal.FileDone || row.State == journal.FileFailed || row.State == journal.FileDuplicate {
		res.FinalPath = row.FinalPath
		res.ReportPath = row.ReportPath
	}
	return res
}

// failedCount counts documents that ended without reaching the portal.
func failedCount(counts map[journal.Result]int) int {
	return counts[journal.ResultInvalid] + counts[journal.ResultConflict] + counts[journal.ResultFailed] + counts[journal.ResultSkipped]
}
