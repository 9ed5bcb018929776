package console

import (
	"context"
	"time"

	"filebridge/internal/journal"
	"filebridge/internal/server"
)

// heldRow is a file held in processing/ for master data not on the portal
// yet: since when, until when it waits (then it fails), and the codes.
type heldRow struct {
	ID         int64
	Inbox      string
	Name       string
	Since      time.Time
	Until      time.Time // zero when unknown (inbox no longer configured)
	WaitingFor []string
}

// heldKey identifies a held file in the daemon's live report.
func heldKey(inbox, name string) string { return inbox + "\x00" + name }

// liveUntil maps the held files the inboxes report to when they fail.
func liveUntil(h server.Health) map[string]time.Time {
	out := map[string]time.Time{}
	for name, ih := range h.Inboxes {
		for _, hh := range ih.Held {
			out[heldKey(name, hh.File)] = hh.Until
		}
	}
	return out
}

// heldRow describes held file f. It fails if its codes are still missing
// when the running inbox reports (live), else at its hold_missing from the
// config added to when it was first held.
func (c *Console) heldRow(f journal.File, live map[string]time.Time) heldRow {
	until, ok := live[heldKey(f.Inbox, f.Name)]
	if !ok || until.IsZero() {
		until = c.d.Config.HoldUntil(f.Inbox, f.Name, f.HeldSince)
	}
	return heldRow{ID: f.ID, Inbox: f.Inbox, Name: f.Name, Since: f.HeldSince, Until: until, WaitingFor: f.WaitingList()}
}

// maxHeldShown bounds the held files the dashboard lists per inbox (the
// oldest, nearest to failing); the held filter of the files table has them
// all.
const maxHeldShown = 20

// heldFiles reads an inbox's held files from the journal (the hold state
// the inbox records): how many, and the oldest maxHeldShown, oldest hold
// first.
func (c *Console) heldFiles(ctx context.Context, inbox string, live map[string]time.Time) (int, []heldRow, error) {
	ff := journal.FileFilter{Held: true, Inbox: inbox}
	n, err := c.d.Journal.CountFiles(ctx, ff)
	if err != nil || n == 0 {
		return 0, nil, err
	}
	ff.Limit, ff.Offset = maxHeldShown, max(n-maxHeldShown, 0) // Files is newest first
	files, err := c.d.Journal.Files(ctx, ff)
	if err != nil {
		return 0, nil, err
	}
	out := make([]heldRow, 0, len(files))
	for i := len(files) - 1; i >= 0; i-- {
		out = append(out, c.heldRow(files[i], live))
	}
	return n, out, nil
}

// maxCodesShown bounds the codes the dashboard names for one held file
// (its page names them all).
const maxCodesShown = 8

// Shown are the codes the dashboard names.
func (h heldRow) Shown() []string { return h.WaitingFor[:min(len(h.WaitingFor), maxCodesShown)] }

// More counts the codes the dashboard leaves out.
func (h heldRow) More() int { return max(len(h.WaitingFor)-maxCodesShown, 0) }
