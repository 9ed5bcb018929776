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
	"time"

	"filebridge/internal/console"
	"filebridge/internal/folder"
	"filebridge/internal/inbox"
	"filebridge/internal/journal"
	"filebridge/internal/model"
)

// Console builds the web console of the daemon: it reads the daemon's
// journal and health, replays a file through its inbox and runs an export
// with the daemon's runner.
func (d *Daemon) Console() (*console.Console, error) {
	return console.New(console.Deps{
		Config: d.Config, Journal: d.Journal, Health: d.HealthReport, Logger: d.Log,
		Limits:     d.concurrencyLimits,
		Replay:     d.replay,
		RunExport:  d.exportNow,
		Resend:     d.resend,
		OpenExport: d.openExport,
		Open:       d.openInboxFile,
	})
}

// openInboxFile reads a file of an inbox folder (path relative to it).
func (d *Daemon) openInboxFile(ctx context.Context, name, p string) (io.ReadCloser, error) {
	in := d.inbox(name)
	if in == nil {
		return nil, fmt.Errorf("inbox %q is no longer configured", name)
	}
	f, err := in.Folder(ctx)
	if err != nil {
		return nil, err
	}
	return f.Open(ctx, p)
}

// concurrencyLimits are the limits the portal clients run at now.
func (d *Daemon) concurrencyLimits() map[string]int {
	out := make(map[string]int, len(d.Portals))
	for name, pc := range d.Portals {
		out[name] = pc.Limit()
	}
	return out
}

func (d *Daemon) inbox(name string) *inbox.Inbox {
	for _, in := range d.Inboxes {
		if in.Name() == name {
			return in
		}
	}
	return nil
}

// replay puts a journal file back into its inbox; the inbox's next poll
// picks it up.
func (d *Daemon) replay(ctx context.Context, id int64, force bool) (string, error) {
	f, err := d.Journal.File(ctx, id)
	if err != nil {
		return "", err
	}
	in, ic := d.inbox(f.Inbox), d.Config.Inbox(f.Inbox)
	if in == nil || ic == nil {
		return "", fmt.Errorf("#%d %s came from inbox %q, which is no longer configured", f.ID, f.Name, f.Inbox)
	}
	folder, err := in.Folder(ctx)
	if err != nil {
		return "", err
	}
	return inbox.Requeue(ctx, d.Journal, folder, ic, f, force, "console") // its claim forgets the portal's misses
}

// exportNow runs one export of an outbox now, as its schedule would (since
// not zero: everything from since on again, leaving the cursor alone).
func (d *Daemon) exportNow(ctx context.Context, outboxName, export string, since time.Time) (console.ExportDone, error) {
	if ob := d.outbox(outboxName); ob != nil {
		for _, job := range ob.Jobs {
			if job.Type != model.ExportType(export) {
				continue
			}
			res, err := d.runNow(ctx, ob, job, since)
			if err != nil {
				return console.ExportDone{}, err
			}
			return console.ExportDone{File: res.File, Rows: res.Rows, Folder: ob.Runner.Folder.String()}, nil
		}
	}
	return console.ExportDone{}, fmt.Errorf("outbox %s has no %s export: %w", outboxName, export, console.ErrNoSuchExport)
}

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
