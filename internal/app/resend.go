package app

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"

	"filebridge/internal/folder"
	"filebridge/internal/journal"
)

// resendTries bounds the names tried when another party takes each free
// name before the copy is renamed into place.
const resendTries = 5

func (d *Daemon) outbox(name string) *Outbox {
	for _, ob := range d.Outboxes {
		if ob.Config.Name == name {
			return ob
		}
	}
	return nil
}

// openExport reads a file of an outbox folder (path relative to it).
func (d *Daemon) openExport(ctx context.Context, name, p string) (io.ReadCloser, error) {
	ob := d.outbox(name)
	if ob == nil {
		return nil, fmt.Errorf("outbox %q is no longer configured", name)
	}
	return ob.Runner.Folder.Open(ctx, p)
}

// resend writes the file export run id wrote into its outbox again, from
// the copy the journal kept: under its name when that is free, else under
// a new one (NAME.1.csv...), never over a file already there. The re-send
// is recorded as a run of the export marked with the run it copies.
func (d *Daemon) resend(ctx context.Context, id int64) (string, error) {
	run, err := d.Journal.Run(ctx, id)
	if err != nil {
		return "", err
	}
	if run.FileName == "" {
		return "", fmt.Errorf("export run %d wrote no file: there is nothing to send again", id)
	}
	from := run
	if run.ResentFrom != 0 { // a re-send of a re-send: the copy is the original's
		if from, err = d.Journal.Run(ctx, run.ResentFrom); err != nil {
			return "", err
		}
	}
	ob := d.outbox(run.Outbox)
	if ob == nil {
		return "", fmt.Errorf("export run %d wrote into outbox %q, which is no longer configured", id, run.Outbox)
	}
	gz, _, err := d.Journal.Copy(ctx, from.ID)
	if errors.Is(err, journal.ErrNotFound) {
		return "", fmt.Errorf("%s cannot be sent again: no copy of it was kept (written before copies were kept, or too large); run the export again with --since", run.FileName)
	}
	if err != nil {
		return "", err
	}
	f := ob.Runner.Folder
	dir, base := path.Split(run.FileName)
	dir = path.Clean(dir)
	name := run.FileName
	for range resendTries {
		if _, serr := f.Stat(ctx, name); !errors.Is(serr, fs.ErrNotExist) {
			if name, err = folder.UniqueName(ctx, f, dir, base); err != nil {
				return "", fmt.Errorf("finding a free name for %s in %s: %w", base, f, err)
			}
		}
		err = f.CreateAtomic(ctx, name, func(w io.Writer) error {
			zr, err := gzip.NewReader(bytes.NewReader(gz))
			if err != nil {
				return err
			}
			_, err = io.Copy(w, zr)
			return err
		})
		if !errors.Is(err, fs.ErrExist) { // taken meanwhile: try the next free name
			break
		}
	}
	if err != nil {
		return "", fmt.Errorf("writing %s again as %s in %s: %w", run.FileName, name, f, err)
	}
	if _, err := d.Journal.RecordResend(ctx, from, name); err != nil {
		return name, err
	}
	d.Log.Info("export file sent again", "outbox", run.Outbox, "export", run.Export, "file", run.FileName, "as", name, "run", from.ID)
	return name, nil
}
