package app

import (
	"context"
	"fmt"
	"io"
	"time"

	"filebridge/internal/console"
	"filebridge/internal/inbox"
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
