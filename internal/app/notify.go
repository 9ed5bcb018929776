package app

import (
	"context"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"time"

	"filebridge/internal/config"
	"filebridge/internal/journal"
	"filebridge/internal/notify"
	"filebridge/internal/outbox"
)

// heldLookEvery is how often the daemon looks for files held past their
// inbox's notify.held_after.
const heldLookEvery = time.Minute

// notifyGrace is how long a stop waits for the notifications under way.
const notifyGrace = 5 * time.Second

// newNotifier returns the notifier of cfg's [notify] tables, nil when no
// inbox or outbox has one.
func newNotifier(cfg *config.Config, d *Daemon) *notify.Notifier {
	if !slices.ContainsFunc(cfg.Inboxes, func(in config.Inbox) bool { return in.Notify.Enabled() }) &&
		!slices.ContainsFunc(cfg.Outboxes, func(ob config.Outbox) bool { return ob.Notify.Enabled() }) {
		return nil
	}
	return notify.New(notify.Options{SMTP: cfg.SMTP, Logger: d.Log})
}

// fileFailed is the OnFailed hook of inbox ic: its notify table hears of
// the file, the report attached to the mail.
func (d *Daemon) fileFailed(ic *config.Inbox) func(journal.File) {
	if d.notifier == nil || !ic.Notify.Enabled() {
		return nil
	}
	return func(f journal.File) {
		e := notify.Event{
			Kind: notify.FileFailed, Time: d.opts.Now().UTC(), Inbox: ic.Name,
			FileID: f.ID, File: f.Name, Message: f.Message, Report: f.ReportPath, Instance: d.Journal.Instance(),
		}
		var attach *notify.Attachment
		if f.ReportPath != "" {
			attach = &notify.Attachment{Name: path.Base(f.ReportPath), Open: func(ctx context.Context) (io.ReadCloser, error) {
				return d.openInboxFile(ctx, ic.Name, f.ReportPath)
			}}
		}
		d.notifier.Send(ic.Notify, e, attach)
	}
}

// observer hears of every export run: the metrics, and the outbox's
// notify table of a failed one.
func (d *Daemon) observer() outbox.Observer { return notifyingObserver{d.exports, d} }

// notifyingObserver counts export runs (ExportMetrics) and tells the
// outbox's notify table of a failed one.
type notifyingObserver struct {
	*ExportMetrics
	d *Daemon
}

func (o notifyingObserver) ExportRun(job outbox.Job, res outbox.Result, err error, took time.Duration) {
	o.ExportMetrics.ExportRun(job, res, err, took)
	if err == nil || o.d.notifier == nil {
		return
	}
	oc := o.d.Config.Outbox(job.Outbox)
	if oc == nil {
		return
	}
	o.d.notifier.Send(oc.Notify, notify.Event{
		Kind: notify.ExportFailed, Time: o.d.opts.Now().UTC(), Outbox: job.Outbox, Export: string(job.Type),
		Message:  fmt.Sprintf("the %s export of outbox %s failed: %v; it runs again at its next scheduled time (or: filebridge export)", job.Type, job.Outbox, err),
		Instance: o.d.Journal.Instance(),
	}, nil)
}

// watchHeld tells each inbox's notify table, once, of every file held
// for master data longer than its held_after, until ctx ends.
func (d *Daemon) watchHeld(ctx context.Context, every <-chan time.Time) {
	told := map[string]bool{} // inbox, name and since of each file told of
	for {
		select {
		case <-ctx.Done():
			return
		case <-every:
		}
		now := d.opts.Now()
		seen := map[string]bool{}
		for _, in := range d.Inboxes {
			ic := d.Config.Inbox(in.Name())
			if ic == nil || !ic.Notify.Enabled() || ic.Notify.HeldAfter.Duration <= 0 {
				continue
			}
			for _, h := range in.Status().Held {
				key := ic.Name + "\x00" + h.Name + "\x00" + h.Since.String()
				seen[key] = true
				if told[key] || now.Sub(h.Since) < ic.Notify.HeldAfter.Duration {
					continue
				}
				told[key] = true
				d.notifier.Send(ic.Notify, notify.Event{
					Kind: notify.FileHeld, Time: now.UTC(), Inbox: ic.Name, File: h.Name,
					Message: fmt.Sprintf("%s has waited since %s for master data not on the portal: %s; it fails at %s unless they are created",
						h.Name, h.Since.UTC().Format(time.RFC3339), strings.Join(h.WaitingFor, ", "), h.Until.UTC().Format(time.RFC3339)),
					Instance: d.Journal.Instance(),
				}, nil)
			}
		}
		for key := range told {
			if !seen[key] {
				delete(told, key) // went on or failed
			}
		}
	}
}
