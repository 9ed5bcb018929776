package inbox

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"slices"
	"strings"
	"sync"

	"filebridge/internal/config"
	"filebridge/internal/folder"
	"filebridge/internal/formats"
	"filebridge/internal/journal"
)

// finish writes the report (and the rejected rows) and moves the file to
// processed/YYYY/MM/DD/ when every document is in the portal, else to
// error/. The planned final path is recorded in the journal before
// anything is written, so a crash at any point resumes the same plan.
func (fr *fileRun) finish(ctx context.Context) (FileResult, error) {
	in, row := fr.in, &fr.row
	if err := fr.holds(ctx); err != nil {
		return FileResult{}, err
	}
	counts, err := in.j.DocumentCounts(ctx, row.ID)
	if err != nil {
		return FileResult{}, err
	}
	ok := counts[journal.ResultCreated] + counts[journal.ResultExists]
	failed := failedCount(counts)
	invalid := counts[journal.ResultInvalid]
	open := counts[journal.ResultPending] + counts[journal.ResultSending]
	if open > 0 {
		return FileResult{}, fmt.Errorf("finishing %s: %d documents still unsettled", row.Name, open)
	}
	fileErr := fr.fileErr()
	success := !fileErr && failed == 0

	if err := fr.plan(ctx, success); err != nil {
		return FileResult{}, err
	}
	rejected, err := fr.writeReports(ctx, failed)
	if err != nil {
		return FileResult{}, err
	}
	if err := fr.writeAck(ctx, ok); err != nil {
		return FileResult{}, err
	}
	if err := fr.move(ctx); err != nil {
		return FileResult{}, err
	}

	row.DocsOK, row.DocsFailed = ok, failed
	switch {
	case success:
		row.State = journal.FileDone
		row.Message = fmt.Sprintf("%d document(s) in the portal: %d created, %d already there", ok,
			counts[journal.ResultCreated], counts[journal.ResultExists])
	case len(fr.problems) > 0:
		row.State = journal.FileFailed
		row.Message = fr.problems[0]
	case fileErr:
		row.State = journal.FileFailed
		row.Message = fmt.Sprintf("the file has errors, nothing was submitted: see %s", row.ReportPath)
	default:
		row.State = journal.FileFailed
		row.Message = fmt.Sprintf("%d of %d document(s) failed (%d invalid, %d conflict, %d not submitted), %d in the portal: see %s; fix the rows of %s and drop it again",
			failed, ok+failed, invalid, counts[journal.ResultConflict], counts[journal.ResultSkipped], ok, row.ReportPath, rejectedOr(rejected, row.FinalPath))
		if missing := fr.missingText(); missing != "" && !fr.failedInItself(counts) {
			// What to do first: the reason columns show the message's start.
			row.Message = fmt.Sprintf("%s: add it to the portal and replay the file; %d of %d document(s) failed (%d invalid, %d conflict, %d not submitted), %d in the portal: see %s",
				missing, failed, ok+failed, invalid, counts[journal.ResultConflict], counts[journal.ResultSkipped], ok, row.ReportPath)
		}
	}
	row.FixFile = !success && fr.failedInItself(counts)
	if err := in.j.UpdateFile(ctx, *row); err != nil {
		return FileResult{}, err
	}
	fr.resolveOthers(ctx)
	if success {
		in.recovered()
	}
	in.metrics.file(in.cfg.Name, string(row.State))
	in.metrics.docs(in.cfg.Name, counts)
	if row.State == journal.FileFailed {
		in.onFailed(*row)
	}
	level := slog.LevelInfo
	if row.State == journal.FileFailed {
		level = slog.LevelWarn // an operator has to look at it
	}
	fr.log.Log(ctx, level, "file finished", "state", row.State, "final_path", row.FinalPath, "docs_ok", ok, "docs_failed", failed, "rows", row.Rows)
	res := fr.result()
	res.RejectedPath = rejected
	res.Invalid = invalid
	return res, nil
}

// failedInItself reports whether the finished file failed only because of
// what it holds (file errors, rows invalid in it): a replay of the same
// bytes fails the same way, only a corrected file helps. Refused,
// conflicting or failed documents and missing master data can go through
// a replay.
func (fr *fileRun) failedInItself(counts map[journal.Result]int) bool {
	if _, bad := firstError(fr.sum.FileIssues); bad {
		return true
	}
	bad := fr.sum.InvalidDocs
	if bad == 0 {
		return false
	}
	if fr.policy() != config.PolicyPartial {
		return true // nothing of the file was submitted for its invalid rows
	}
	others := counts[journal.ResultInvalid] - bad + counts[journal.ResultConflict] +
		counts[journal.ResultFailed] + counts[journal.ResultSkipped]
	return others == 0
}

// missingText names the master data the file's documents lacked on the
// portal, the first three of it ("" when none).
func (fr *fileRun) missingText() string {
	codes := missingNames(fr.missing)
	if len(codes) == 0 {
		return ""
	}
	more := ""
	if len(codes) > 3 {
		more = fmt.Sprintf(" and %d more", len(codes)-3)
		codes = codes[:3]
	}
	return "not on the portal: " + strings.Join(codes, ", ") + more
}

// resolveOthers resolves the open failures the finished file settles (the
// file it replays, earlier files whose missing documents are now in the
// portal). A journal error is logged: the failures stay open, which an
// operator can acknowledge.
func (fr *fileRun) resolveOthers(ctx context.Context) {
	ids, err := fr.in.j.ResolveBy(ctx, fr.row)
	if err != nil {
		fr.log.Warn("could not mark the failures this file settles as resolved; acknowledge them by hand", "error", err)
		return
	}
	for _, id := range ids {
		fr.log.Info("resolved an earlier failed file", "resolved_file_id", id)
	}
}

func rejectedOr(rejected, file string) string {
	if rejected != "" {
		return rejected
	}
	return file
}

// firstError is the first of issues that is not a warning.
func firstError(issues []formats.Issue) (formats.Issue, bool) {
	i := slices.IndexFunc(issues, func(is formats.Issue) bool { return !is.Warning })
	if i < 0 {
		return formats.Issue{}, false
	}
	return issues[i], true
}

// fileErr reports whether the file has problems or file-level errors.
func (fr *fileRun) fileErr() bool {
	_, bad := firstError(fr.sum.FileIssues)
	return bad || len(fr.problems) > 0
}

// plan chooses the file's final path and its report's, unless a previous
// run chose them already, and records them.
func (fr *fileRun) plan(ctx context.Context, success bool) error {
	in, row := fr.in, &fr.row
	if row.FinalPath != "" && row.ReportPath != "" {
		return nil
	}
	dir := in.cfg.ErrorDir
	if success {
		dir = path.Join(in.cfg.ProcessedDir, in.now().Format("2006/01/02"))
	}
	final, report, err := freeNames(ctx, fr.f, dir, row.Name, !success)
	if err != nil {
		return err
	}
	row.FinalPath, row.ReportPath = final, report
	return in.j.UpdateFile(ctx, *row)
}

// freeNames finds in dir the first of base, base.1, base.2... (suffix
// before the extension) whose report name is free too, and its
// rejected-rows name when withRejected (a file that succeeded has no
// rejected rows: that name is not written). It asks for each candidate
// name rather than listing dir, which holds every file of the day: a
// listing per file made a day of small files quadratic.
func freeNames(ctx context.Context, f folder.Folder, dir, base string, withRejected bool) (final, report string, err error) {
	stem, ext := splitExt(base)
	for i := 0; i < 10000; i++ {
		cand := base
		if i > 0 {
			cand = fmt.Sprintf("%s.%d%s", stem, i, ext)
		}
		rep, rej := reportNames(cand)
		names := []string{cand, rep, rej}
		if !withRejected {
			names = names[:2]
		}
		// The names of a candidate are asked for at once: on SFTP the
		// requests share one round trip.
		taken := make([]bool, len(names))
		errs := make([]error, len(names))
		var wg sync.WaitGroup
		for k, name := range names {
			wg.Go(func() {
				_, err := f.Stat(ctx, path.Join(dir, name))
				taken[k], errs[k] = folder.Taken(err)
			})
		}
		wg.Wait()
		if err := cmp.Or(errs...); err != nil {
			// A refused permission or a server that does not answer
			// is not a name in use: say so now.
			return "", "", fmt.Errorf("choosing a name for %s in %s: %w", base, dir, err)
		}
		if !slices.Contains(taken, true) {
			return path.Join(dir, cand), path.Join(dir, rep), nil
		}
	}
	return "", "", fmt.Errorf("choosing a name for %s in %s: too many files of that name, clean the folder up: %w", base, dir, fs.ErrExist)
}

// move renames the file from processing/ to its final path (a new unique
// name if another file took it meanwhile), once it checked that this
// instance still holds the file.
func (fr *fileRun) move(ctx context.Context) error {
	in, row := fr.in, &fr.row
	if err := fr.holds(ctx); err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		err := fr.f.Rename(ctx, row.Path, row.FinalPath)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || attempt >= 5 {
			return fmt.Errorf("moving %s to %s: %w", row.Path, row.FinalPath, err)
		}
		final, err := folder.UniqueName(ctx, fr.f, path.Dir(row.FinalPath), row.Name)
		if err != nil {
			return err
		}
		row.FinalPath = final
		if err := in.j.UpdateFile(ctx, *row); err != nil {
			return err
		}
	}
	row.Path = row.FinalPath
	return nil
}
