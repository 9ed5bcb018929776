package inbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"time"

	"filebridge/internal/folder"
)

// PruneProcessed deletes the dated folders processed/YYYY/MM/DD of the
// inbox whose day ended more than the inbox's retention before now (in the
// zone of now, as the folders were named), then the month and year folders
// left empty. It logs each folder deleted and returns the number of files
// removed. Without a retention it does nothing.
func (in *Inbox) PruneProcessed(ctx context.Context, now time.Time) (int, error) {
	keep := in.cfg.Retention.Dur()
	if keep <= 0 {
		return 0, nil
	}
	f, err := in.folder(ctx)
	if err != nil {
		return 0, err
	}
	cutoff := now.Add(-keep)
	root := in.cfg.ProcessedDir
	total := 0
	years, err := dirs(ctx, f, root)
	if err != nil {
		return 0, err
	}
	for _, y := range years {
		yp := path.Join(root, y)
		months, err := dirs(ctx, f, yp)
		if err != nil {
			return total, err
		}
		for _, m := range months {
			mp := path.Join(yp, m)
			days, err := dirs(ctx, f, mp)
			if err != nil {
				return total, err
			}
			for _, d := range days {
				day, err := time.ParseInLocation("2006/01/02", path.Join(y, m, d), now.Location())
				if err != nil || day.AddDate(0, 0, 1).After(cutoff) {
					continue
				}
				dp := path.Join(mp, d)
				n, err := removeTree(ctx, f, dp)
				total += n
				if err != nil {
					return total, fmt.Errorf("deleting %s of inbox %s past its retention: %w", dp, in.cfg.Name, err)
				}
				in.log.Info("deleted processed files past the inbox's retention", "folder", dp, "files", n, "retention", in.cfg.Retention)
			}
			removeIfEmpty(ctx, f, mp)
		}
		removeIfEmpty(ctx, f, yp)
	}
	return total, nil
}

// dirs lists the subfolders of dir; a missing dir has none.
func dirs(ctx context.Context, f folder.Folder, dir string) ([]string, error) {
	entries, err := f.List(ctx, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.IsDir {
			out = append(out, e.Name)
		}
	}
	return out, nil
}

// removeTree removes dir and everything in it, returning the files removed.
func removeTree(ctx context.Context, f folder.Folder, dir string) (int, error) {
	entries, err := f.List(ctx, dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		p := path.Join(dir, e.Name)
		if e.IsDir {
			m, err := removeTree(ctx, f, p)
			n += m
			if err != nil {
				return n, err
			}
			continue
		}
		if err := f.Remove(ctx, p); err != nil {
			return n, err
		}
		n++
	}
	return n, f.Remove(ctx, dir)
}

func removeIfEmpty(ctx context.Context, f folder.Folder, dir string) {
	if entries, err := f.List(ctx, dir); err == nil && len(entries) == 0 {
		_ = f.Remove(ctx, dir)
	}
}
