package console

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"filebridge/internal/journal"
	"filebridge/internal/server"
)

// inboxRow is one inbox on the dashboard.
type inboxRow struct {
	Name, Portal        string
	Waiting, Processing int
	// HeldCount counts the files waiting in processing/ for master data,
	// from the journal's hold state (not counted in Processing nor
	// Retrying); Held lists the oldest of them.
	HeldCount   int
	Held        []heldRow
	Retrying    int
	NextRetry   *time.Time
	DoneToday   int
	FailedToday int
	LastError   string
	// Status and Reason: the inbox's trouble (degraded, with why: a host
	// key that does not match, a folder that cannot be reached, a full
	// disk); "" while it is fine.
	Status, Reason string
	// Ignored are the entries of the inbox folder not taken, with why.
	Ignored []server.IgnoredHealth
}

// portalRow is one portal on the dashboard.
type portalRow struct {
	Name, Edition, Status, Reason string
	Since                         *time.Time
	// Concurrency is the configured ceiling; Limit the adaptive limit the
	// client runs at now (0: not known, the console runs without clients).
	Concurrency, Limit int
}

func (c *Console) dashboard(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	now := c.d.Now()
	lt := now.In(c.d.Location)
	midnight := time.Date(lt.Year(), lt.Month(), lt.Day(), 0, 0, 0, 0, c.d.Location)
	today, err := c.d.Journal.InboxDay(ctx, midnight)
	if err != nil {
		return err
	}
	h := c.health(ctx)
	cfg := c.d.Config
	var inboxes []inboxRow
	for _, ic := range cfg.Inboxes {
		day := today[ic.Name]
		row := inboxRow{Name: ic.Name, Portal: ic.Portal,
			DoneToday: day[journal.FileDone] + day[journal.FileDuplicate], FailedToday: day[journal.FileFailed]}
		if row.HeldCount, row.Held, err = c.heldFiles(ctx, ic.Name, h.Inboxes[ic.Name].Held); err != nil {
			return err
		}
		open := day[journal.FileClaimed] + day[journal.FileSubmitting]
		row.Processing = max(open-row.HeldCount, 0)
		if ih, ok := h.Inboxes[ic.Name]; ok {
			// Between rounds the queue leaves the held files out.
			row.Waiting = max(ih.Queue-row.Processing, 0)
			row.Retrying, row.NextRetry, row.LastError = ih.Retrying, ih.NextRetry, ih.LastError
			if ih.Status != "" && ih.Status != server.StatusOK {
				row.Status, row.Reason = ih.Status, ih.Reason
			}
			row.Ignored = ih.Ignored
		}
		inboxes = append(inboxes, row)
	}
	var limits map[string]int
	if c.d.Limits != nil {
		limits = c.d.Limits()
	}
	var portals []portalRow
	for _, name := range cfg.PortalNames() {
		p := cfg.Portals[name]
		row := portalRow{Name: name, Edition: string(p.Edition), Status: server.StatusOK, Concurrency: p.Concurrency, Limit: limits[name]}
		if ph, ok := h.Portals[name]; ok {
			row.Status, row.Reason, row.Since = ph.Status, ph.Reason, ph.Since
		}
		portals = append(portals, row)
	}
	exports, err := Exports(ctx, cfg, c.d.Journal, "", now)
	if err != nil {
		return err
	}
	inFlight, err := c.inFlight(ctx, now)
	if err != nil {
		return err
	}
	instances, _, err := c.instances(ctx, now)
	if err != nil {
		return err
	}
	totals, inboxes, inboxPages, exports, exportPages := summarise(r.URL.Query(), inboxes, exports)
	// The held and ignored entries of the inboxes listed.
	anyHeld := slices.ContainsFunc(inboxes, func(r inboxRow) bool { return r.HeldCount > 0 })
	anyIgnored := slices.ContainsFunc(inboxes, func(r inboxRow) bool { return len(r.Ignored) > 0 })
	c.render(w, r, http.StatusOK, "dashboard", map[string]any{
		"Title": "Dashboard", "Inboxes": inboxes, "Portals": portals, "Exports": exports, "InFlight": inFlight,
		"Totals": totals, "InboxPages": inboxPages, "ExportPages": exportPages,
		"Shared": c.d.Journal.Shared(), "Instances": instances,
		"AnyHeld": anyHeld, "AnyIgnored": anyIgnored, "ShowLimit": c.d.Limits != nil,
		"CanExport": c.d.RunExport != nil, "Exported": r.URL.Query().Get("exported"), "ExportError": r.URL.Query().Get("export_error"),
	})
	return nil
}

// health is the daemon's live report (empty without one).
func (c *Console) health(ctx context.Context) server.Health {
	if c.d.Health == nil {
		return server.Health{}
	}
	return c.d.Health(ctx)
}

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

// heldRow describes held file f. It fails if its codes are still missing
// when its running inbox reports (live: the inbox's held files), else at
// its hold_missing from the config added to when it was first held.
func (c *Console) heldRow(f journal.File, live []server.HeldHealth) heldRow {
	var until time.Time
	if i := slices.IndexFunc(live, func(h server.HeldHealth) bool { return h.File == f.Name }); i >= 0 {
		until = live[i].Until
	}
	if until.IsZero() {
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
func (c *Console) heldFiles(ctx context.Context, inbox string, live []server.HeldHealth) (int, []heldRow, error) {
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
	for _, f := range slices.Backward(files) {
		out = append(out, c.heldRow(f, live))
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

// maxInFlight bounds the files in flight the dashboard lists.
const maxInFlight = 20

// inFlightRow is a file being processed now, with how far it got.
type inFlightRow struct {
	ID          int64
	Inbox, Name string
	Since       time.Time
	Done, Total int
	Percent     int    // of the documents settled
	Left        string // time left at the rate so far, "" while unknown
	Reading     string // what it does while its documents are not known yet
}

// inFlight lists the open files that are not held for master data, with
// their documents settled out of their total, the share and the time
// left at the rate so far (the documents' progress, as `process` shows it
// on a terminal).
func (c *Console) inFlight(ctx context.Context, now time.Time) ([]inFlightRow, error) {
	open, err := c.d.Journal.OpenFiles(ctx, "")
	if err != nil {
		return nil, err
	}
	var rows []inFlightRow
	for _, f := range open {
		if f.Held() {
			continue
		}
		if len(rows) == maxInFlight {
			break
		}
		row := inFlightRow{ID: f.ID, Inbox: f.Inbox, Name: f.Name, Since: f.ClaimedAt, Total: f.DocsTotal}
		if f.DocsTotal == 0 {
			row.Reading = "reading the file"
		} else {
			counts, err := c.d.Journal.DocumentCounts(ctx, f.ID)
			if err != nil {
				return nil, err
			}
			for r, n := range counts {
				if r.Final() {
					row.Done += n
				}
			}
			row.Percent = row.Done * 100 / f.DocsTotal
			row.Left = timeLeft(now.Sub(f.ClaimedAt), row.Done, f.DocsTotal)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// timeLeft is the time the rest of total takes at the rate of done in
// elapsed, rounded for a person ("about 3 min"); "" before anything is
// done.
func timeLeft(elapsed time.Duration, done, total int) string {
	if done <= 0 || elapsed <= 0 || done >= total {
		return ""
	}
	left := time.Duration(float64(elapsed) / float64(done) * float64(total-done))
	switch {
	case left < time.Minute:
		return fmt.Sprintf("about %d s", max(int(left.Seconds()), 1))
	case left < time.Hour:
		return fmt.Sprintf("about %d min", int(left.Minutes()+0.5))
	default:
		return fmt.Sprintf("about %.1f h", left.Hours())
	}
}

// instanceRow is an instance seen on a journal shared by several
// instances, for the dashboard's instances panel.
type instanceRow struct {
	Name    string
	Started time.Time
	Seen    time.Time // its last renewal (heartbeat)
	// Alive: it renewed within its lease; a silent instance stopped, and
	// what it held is taken over once the leases ran out.
	Alive bool
	Files int // open files it holds
	// Exports are the exports it runs now ("erp/stock").
	Exports []string
}

// instancesSeen is how far back the instances panel looks.
const instancesSeen = 24 * time.Hour

// instances lists the instances seen in the last instancesSeen with what
// they hold, and the holder of every open file; nothing for a SQLite
// journal (one instance).
func (c *Console) instances(ctx context.Context, now time.Time) ([]instanceRow, map[int64]*journal.Lease, error) {
	db := c.d.Journal
	if !db.Shared() {
		return nil, nil, nil
	}
	seen, err := db.Instances(ctx, now.Add(-instancesSeen))
	if err != nil {
		return nil, nil, err
	}
	leases, err := db.Leases(ctx, "")
	if err != nil {
		return nil, nil, err
	}
	ticks, err := db.LastTicks(ctx)
	if err != nil {
		return nil, nil, err
	}
	holders := make(map[int64]*journal.Lease, len(leases))
	rows := make([]instanceRow, 0, len(seen))
	at := map[string]int{}
	for _, s := range seen {
		at[s.Name] = len(rows)
		rows = append(rows, instanceRow{Name: s.Name, Started: s.StartedAt, Seen: s.SeenAt, Alive: now.Sub(s.SeenAt) < db.Lease()})
	}
	for _, l := range leases {
		holders[l.FileID] = &l
		if i, ok := at[l.Owner]; ok && !l.Expired(now) {
			rows[i].Files++
		}
	}
	for _, t := range ticks {
		if i, ok := at[t.Owner]; ok && t.State == journal.RunRunning && !t.Abandoned(now) {
			rows[i].Exports = append(rows[i].Exports, t.Outbox+"/"+t.Export)
		}
	}
	for i := range rows {
		slices.Sort(rows[i].Exports)
	}
	return rows, holders, nil
}

// dashPage is how many inboxes, and how many exports, a dashboard page
// lists. A process with more (an operator running one filebridge for its
// customers) gets totals first, then its rows with trouble first, paged;
// with fewer the dashboard lists them all in the config's order.
const dashPage = 50

// dashTotals sum up every inbox and export of a summarised dashboard.
type dashTotals struct {
	Inboxes, Troubled                                           int
	Waiting, Processing, Held, Retrying, DoneToday, FailedToday int
	Exports, ExportsFailing                                     int
}

// trouble ranks an inbox for the summarised dashboard: degraded (its
// folder or host key), then failed files today, then retrying, then held
// for master data; 0 when it is fine.
func (r inboxRow) trouble() int {
	switch {
	case r.Status != "":
		return 4
	case r.FailedToday > 0:
		return 3
	case r.Retrying > 0:
		return 2
	case r.HeldCount > 0:
		return 1
	}
	return 0
}

// summarise returns the totals of the inboxes and exports and the page of
// each that the query asks for (page, epage; 1 by default), the rows with
// trouble first (inboxes by trouble, exports whose last run failed), each
// group in the config's order. It returns nil totals, and the lists
// whole, when neither list is longer than a page.
func summarise(q url.Values, inboxes []inboxRow, exports []ExportStatus) (*dashTotals, []inboxRow, *pager, []ExportStatus, *pager) {
	if len(inboxes) <= dashPage && len(exports) <= dashPage {
		return nil, inboxes, nil, exports, nil
	}
	t := &dashTotals{Inboxes: len(inboxes), Exports: len(exports)}
	for _, r := range inboxes {
		if r.trouble() > 0 {
			t.Troubled++
		}
		t.Waiting += r.Waiting
		t.Processing += r.Processing
		t.Held += r.HeldCount
		t.Retrying += r.Retrying
		t.DoneToday += r.DoneToday
		t.FailedToday += r.FailedToday
	}
	for _, e := range exports {
		if e.LastError != "" {
			t.ExportsFailing++
		}
	}
	inboxes = slices.Clone(inboxes)
	slices.SortStableFunc(inboxes, func(a, b inboxRow) int { return cmp.Compare(b.trouble(), a.trouble()) })
	exports = slices.Clone(exports)
	slices.SortStableFunc(exports, func(a, b ExportStatus) int {
		failing := func(e ExportStatus) int { return len(e.LastError) }
		return cmp.Compare(min(failing(b), 1), min(failing(a), 1))
	})
	ip, ipg := page(q, "page", inboxes)
	ep, epg := page(q, "epage", exports)
	return t, ip, ipg, ep, epg
}

// page cuts the page the query's key asks for out of rows.
func page[T any](q url.Values, key string, rows []T) ([]T, *pager) {
	n := min(pageNumber(q, key), max((len(rows)+dashPage-1)/dashPage, 1))
	from, to := (n-1)*dashPage, min(n*dashPage, len(rows))
	p := pageOf(n, dashPage, to-from, len(rows), func(to int) string {
		v := url.Values{} // the pages of both lists, not a note shown once
		for _, k := range []string{"page", "epage"} {
			if q.Has(k) {
				v.Set(k, q.Get(k))
			}
		}
		v.Set(key, strconv.Itoa(to))
		return "/?" + v.Encode()
	})
	return rows[from:to], &p
}
