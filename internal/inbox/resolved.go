package inbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"time"

	"filebridge/internal/folder"
	"filebridge/internal/journal"
)

// ResolvedDir is the folder, inside error/, that resolved failures move to
// after error_retention, by month of their resolution: resolved/YYYY/MM.
const ResolvedDir = "resolved"

// ArchiveResolved moves the files (original, report, rejected rows) of the
// inbox's failures resolved more than error_retention before now out of
// error/ into error/resolved/YYYY/MM/ (named ID-NAME), and records their
// new place in the journal. They are moved, not deleted: error/ keeps only the open work,
// while what a clerk or an auditor may ask for later stays at hand (and
// replays of resolved files never need it). It returns the number of
// failures moved; a zero error_retention does nothing.
func (in *Inbox) ArchiveResolved(ctx context.Context, now time.Time) (int, error) {
	keep := in.cfg.ErrorRetention.Dur()
	if keep <= 0 {
		return 0, nil
	}
	files, err := in.j.ResolvedFailures(ctx, in.cfg.Name, in.cfg.ErrorDir, now.Add(-keep))
	if err != nil || len(files) == 0 {
		return 0, err
	}
	f, err := in.folder(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, file := range files {
		if err := in.archive(ctx, f, file, now.Location()); err != nil {
			return n, fmt.Errorf("moving resolved failure #%d %s of inbox %s out of %s: %w", file.ID, file.Name, in.cfg.Name, in.cfg.ErrorDir, err)
		}
		n++
	}
	return n, nil
}

// archive moves one resolved failure's files into
// error/resolved/YYYY/MM/, each named after its journal id ("3-NAME"):
// unique there whatever the names, and a move cut short (a crash before
// the journal recorded it) is finished by the next one, which finds the
// files already at their new names.
func (in *Inbox) archive(ctx context.Context, f folder.Folder, file journal.File, loc *time.Location) error {
	dir := path.Join(in.cfg.ErrorDir, ResolvedDir, file.Resolved.At.In(loc).Format("2006/01"))
	if err := f.MkdirAll(ctx, dir); err != nil {
		return err
	}
	to := func(p string) string {
		if p == "" {
			return ""
		}
		return path.Join(dir, fmt.Sprintf("%d-%s", file.ID, path.Base(p)))
	}
	final, report := to(file.FinalPath), to(file.ReportPath)
	for _, p := range []string{file.FinalPath, file.ReportPath, file.RejectedPath()} {
		if p == "" {
			continue
		}
		// Gone already: moved by a run cut short, or a rejected-rows file
		// never written, or removed by hand.
		if err := f.Rename(ctx, p, to(p)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if err := in.j.SetFiledPaths(ctx, file.ID, final, report); err != nil {
		return err
	}
	in.log.Info("moved a resolved failure out of the error folder (error_retention)", "file", file.Name, "file_id", file.ID,
		"resolved", file.Resolved.What(), "to", final, "error_retention", in.cfg.ErrorRetention)
	return nil
}
