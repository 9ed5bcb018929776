package console

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"filebridge/internal/config"
	"filebridge/internal/formats/export"
	"filebridge/internal/journal"
	"filebridge/internal/outbox"
	"filebridge/internal/portal"
)

// ExportStatus is one configured export as `filebridge exports` and the
// console's dashboard show it.
type ExportStatus struct {
	Outbox      string     `json:"outbox"`
	Type        string     `json:"type"`
	Schedule    string     `json:"schedule"`
	LastRun     *time.Time `json:"last_run,omitempty"`
	LastRows    int        `json:"last_rows"`
	LastFile    string     `json:"last_file,omitempty"`
	Running     bool       `json:"running,omitempty"`
	LastSuccess *time.Time `json:"last_success,omitempty"`
	Cursor      *time.Time `json:"cursor,omitempty"`
	NextRun     *time.Time `json:"next_run,omitempty"`
	LastError   string     `json:"last_error,omitempty"`
	LastErrorAt *time.Time `json:"last_error_at,omitempty"`
	// Tick is the export's last scheduled time on a journal shared by
	// several instances: which instance ran it, when, and how it ended.
	Tick *TickStatus `json:"last_tick,omitempty"`
}

// TickStatus is the last tick of an export (journal.ExportRun).
type TickStatus struct {
	At       time.Time  `json:"at"`
	State    string     `json:"state"`
	Instance string     `json:"instance"`
	Claimed  time.Time  `json:"claimed"`
	Finished *time.Time `json:"finished,omitempty"`
	Attempts int        `json:"attempts"`
	// Abandoned: still running, but the instance's lease ran out (it
	// stopped during the run); another instance redoes it.
	Abandoned bool   `json:"abandoned,omitempty"`
	Message   string `json:"message,omitempty"`
}

// Text is the tick in one line: "2026-03-01 02:00:00 UTC done by node-a".
func (t TickStatus) Text(when func(time.Time) string) string {
	s := fmt.Sprintf("%s %s by %s", when(t.At), t.State, t.Instance)
	switch {
	case t.Abandoned:
		s += " (lease ran out: another instance redoes it)"
	case t.Finished != nil:
		s += " at " + when(*t.Finished)
	default:
		s += " since " + when(t.Claimed)
	}
	if t.Attempts > 1 {
		s += fmt.Sprintf(", attempt %d", t.Attempts)
	}
	return s
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// Exports reads the journal's summary of every configured export (of
// outbox only, unless it is "").
func Exports(ctx context.Context, cfg *config.Config, db *journal.DB, only string, now time.Time) ([]ExportStatus, error) {
	ticks, err := db.LastTicks(ctx)
	if err != nil {
		return nil, err
	}
	last := map[string]journal.ExportRun{}
	for _, t := range ticks {
		last[t.Outbox+"/"+t.Export] = t
	}
	js, err := jobs(cfg, only)
	if err != nil {
		return nil, err
	}
	var out []ExportStatus
	for _, j := range js {
		s, err := db.ExportSummary(ctx, j.Outbox, string(j.Type))
		if err != nil {
			return nil, err
		}
		st := ExportStatus{Outbox: j.Outbox, Type: string(j.Type), Schedule: j.Schedule,
			LastRun: timePtr(s.Last.StartedAt), LastRows: s.Last.Rows, LastFile: s.Last.FileName,
			Running: s.Last.ID != 0 && s.Last.Running(), LastSuccess: timePtr(s.LastSuccess.FinishedAt)}
		if s.HasCursor {
			st.Cursor = timePtr(s.Cursor.At)
		}
		if s.LastError.ID != 0 && s.LastError.ID >= s.LastSuccess.ID {
			st.LastError, st.LastErrorAt = s.LastError.Error, timePtr(s.LastError.FinishedAt)
		}
		if t, ok := last[j.Name()]; ok {
			st.Tick = &TickStatus{At: t.Tick, State: string(t.State), Instance: t.Owner, Claimed: t.StartedAt,
				Finished: timePtr(t.FinishedAt), Attempts: t.Attempts, Abandoned: t.Abandoned(now), Message: t.Message()}
		}
		if sched, err := outbox.ParseSchedule(j); err == nil {
			st.NextRun = timePtr(sched.Next(now))
		}
		out = append(out, st)
	}
	return out, nil
}

// jobs are the exports cfg configures (of outbox only, unless it is "").
func jobs(cfg *config.Config, only string) ([]outbox.Job, error) {
	var out []outbox.Job
	for i := range cfg.Outboxes {
		if ob := &cfg.Outboxes[i]; only == "" || ob.Name == only {
			js, err := outbox.Jobs(cfg, ob)
			if err != nil {
				return nil, err
			}
			out = append(out, js...)
		}
	}
	return out, nil
}

// Key search limits: the documents of input files listed, and the newest
// export runs whose kept copies are searched (each is decompressed).
const (
	keyHitsMax      = 50
	keyRunsSearched = 200
)

// exportFilter reads the exports page's query: one export
// ("outbox/type", "" all), a key to search, the page.
type exportFilter struct {
	Export, Key string
	Page        int
}

func (f exportFilter) query(page int) string {
	v := url.Values{}
	if f.Export != "" {
		v.Set("export", f.Export)
	}
	if f.Key != "" {
		v.Set("key", f.Key)
	}
	return pageURL("/exports", v, page)
}

// exportHit is an export run whose file mentions the key searched.
type exportHit struct {
	Run   journal.ExportRun
	Lines []string // the lines that mention it (the first few)
}

func (c *Console) exportsPage(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	q := r.URL.Query()
	ef := exportFilter{Export: q.Get("export"), Key: strings.TrimSpace(q.Get("key")), Page: pageNumber(q, "page")}
	js, err := jobs(c.d.Config, "")
	if err != nil {
		return err
	}
	var names []string
	for _, j := range js {
		names = append(names, j.Name())
	}
	rf := journal.RunFilter{Limit: pageSize, Offset: (ef.Page - 1) * pageSize}
	if ef.Export != "" {
		var ok bool
		if rf.Outbox, rf.Export, ok = strings.Cut(ef.Export, "/"); !ok {
			c.fail(w, r, http.StatusBadRequest, fmt.Errorf("export %q: choose one of the list", ef.Export))
			return nil
		}
	}
	runs, total, err := c.d.Journal.RunsPage(ctx, rf)
	if err != nil {
		return err
	}
	// A re-sent run is sent again from the copy of the run it re-sent.
	sources := make([]int64, len(runs))
	for i, run := range runs {
		sources[i] = cmp.Or(run.ResentFrom, run.ID)
	}
	copies, err := c.d.Journal.HasCopies(ctx, sources)
	if err != nil {
		return err
	}
	canResend := map[int64]bool{}
	for i, run := range runs {
		canResend[run.ID] = c.d.Resend != nil && run.FileName != "" && copies[sources[i]]
	}
	data := map[string]any{
		"Title": "Exports", "Runs": runs, "Filter": ef, "Names": names,
		"CanDownload": c.d.OpenExport != nil, "CanResend": canResend,
		"Pages": pageOf(ef.Page, pageSize, len(runs), total, ef.query), "Searched": keyRunsSearched,
		"Resent": q.Get("resent"), "ResendError": q.Get("resend_error"),
	}
	if ef.Key != "" {
		hits, more, err := c.d.Journal.FindKeys(ctx, ef.Key, keyHitsMax)
		if err != nil {
			return err
		}
		exported, err := c.searchExports(ctx, ef.Key)
		if err != nil {
			return err
		}
		data["KeyHits"], data["MoreHits"], data["ExportHits"] = hits, more, exported
	}
	c.render(w, r, http.StatusOK, "exports", data)
	return nil
}

// searchExports looks for key in the kept copies of the newest export
// runs' files (exports record no document keys of their own): a line
// mentions it when it contains it, case folded.
func (c *Console) searchExports(ctx context.Context, key string) ([]exportHit, error) {
	runs, _, err := c.d.Journal.RunsPage(ctx, journal.RunFilter{Limit: keyRunsSearched})
	if err != nil {
		return nil, err
	}
	needle := []byte(strings.ToLower(key))
	var out []exportHit
	for _, run := range runs {
		if run.FileName == "" || run.ResentFrom != 0 || strings.HasSuffix(strings.ToLower(run.FileName), ".xlsx") {
			continue // a workbook's text is compressed inside it: not searched
		}
		gz, _, err := c.d.Journal.Copy(ctx, run.ID)
		if errors.Is(err, journal.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		lines, err := mentions(gz, needle)
		if err != nil {
			return nil, fmt.Errorf("reading the copy of %s: %w", run.FileName, err)
		}
		if len(lines) > 0 {
			out = append(out, exportHit{Run: run, Lines: lines})
		}
	}
	return out, nil
}

// downloadExport sends the file an export run wrote, read from the outbox
// folder (as long as it lies there).
func (c *Console) downloadExport(w http.ResponseWriter, r *http.Request) error {
	run, err := byID(r, c.d.Journal.Run)
	if err != nil {
		return err
	}
	if run.FileName == "" || c.d.OpenExport == nil {
		return errNotFound
	}
	rc, err := c.d.OpenExport(r.Context(), run.Outbox, run.FileName)
	if err != nil {
		c.fail(w, r, http.StatusNotFound, fmt.Errorf("%s is no longer in outbox %s (taken by the other side?): %w; re-send it to write it there again", run.FileName, run.Outbox, err))
		return nil
	}
	c.send(w, rc, run.FileName, "text/csv", "an export file")
	return nil
}

// resend writes an export run's file into its outbox again.
func (c *Console) resend(w http.ResponseWriter, r *http.Request) error {
	run, err := byID(r, c.d.Journal.Run)
	if err != nil {
		return err
	}
	if c.d.Resend == nil {
		return errNotFound
	}
	v := url.Values{"export": {run.Outbox + "/" + run.Export}}
	name, err := c.d.Resend(r.Context(), run.ID)
	if err != nil {
		v.Set("resend_error", fmt.Sprintf("%s: %v", run.FileName, err))
	} else {
		c.d.Logger.Info("console: export file sent again", "outbox", run.Outbox, "file", run.FileName, "as", name)
		v.Set("resent", fmt.Sprintf("%s written again into outbox %s as %s", run.FileName, run.Outbox, name))
	}
	http.Redirect(w, r, "/exports?"+v.Encode(), http.StatusSeeOther)
	return nil
}

// mentions reads a gzip-compressed copy line by line (a stock snapshot can
// be large) and returns the first three lines that hold needle (lower
// case): none when it is not in the copy.
func mentions(gz []byte, needle []byte) ([]string, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	br := bufio.NewReader(zr)
	var lines []string
	for {
		line, err := br.ReadBytes('\n')
		if len(lines) < 3 && bytes.Contains(bytes.ToLower(line), needle) {
			lines = append(lines, strings.TrimSpace(string(line)))
		}
		if errors.Is(err, io.EOF) {
			return lines, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// ExportDone is what an export run now wrote: the file (relative to the
// outbox, "" when there was nothing to export), its rows, and the outbox
// folder it lies in.
type ExportDone struct {
	File   string `json:"file,omitempty"`
	Rows   int    `json:"rows"`
	Folder string `json:"folder,omitempty"`
}

// String is "wrote F (N rows)", or that nothing was written.
func (d ExportDone) String() string {
	if d.File == "" {
		return "nothing to export, no file written"
	}
	return fmt.Sprintf("wrote %s (%d rows)", d.File, d.Rows)
}

// ExportRequest is the body of POST /api/exports/{outbox}/{export}/run:
// Since (RFC 3339) exports everything from then on again without moving
// the cursor.
type ExportRequest struct {
	Since *time.Time `json:"since,omitempty"`
}

// ExportAnswer is the answer of POST /api/exports/{outbox}/{export}/run:
// what was written, or the error.
type ExportAnswer struct {
	Outbox string `json:"outbox"`
	Export string `json:"export"`
	ExportDone
	Error string `json:"error,omitempty"`
}

// ExportRefused reports whether a failed export was refused by the portal
// or the data (the token, a value that cannot be written, a name taken),
// rather than something unreachable.
func ExportRefused(err error) bool {
	var cell *export.CellError
	return portal.IsAuth(err) || portal.IsInvalid(err) || errors.As(err, &cell) || errors.Is(err, fs.ErrExist)
}

// apiRunExport runs an export for `filebridge export` while the daemon
// owns the journal. It is for programs, not browsers: it takes the same
// credentials as the pages (a Bearer token, or nothing from loopback when
// none is configured) but no CSRF token; instead it takes only a JSON body
// (Content-Type: application/json), which a page of another site cannot
// send without a CORS preflight, and the server approves none. Go's
// cross-origin protection checks the request too.
//
// The answer is JSON: 200 done; 400 a bad request; 404 no such export;
// 409 a run of the export is going on; 422 the portal or the data refused
// it; 503 the portal, the folder or the journal could not be reached.
func (c *Console) apiRunExport(w http.ResponseWriter, r *http.Request) {
	ob, ex := r.PathValue("outbox"), r.PathValue("export")
	ans := ExportAnswer{Outbox: ob, Export: ex}
	reply := func(status int, err error) {
		if err != nil {
			ans.Error = err.Error()
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(ans)
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		reply(http.StatusMethodNotAllowed, errors.New("use POST"))
		return
	}
	if !c.allowed(r) {
		if ch := c.Access(false).Challenge; ch != "" {
			w.Header().Set("WWW-Authenticate", ch)
		}
		reply(http.StatusUnauthorized, errors.New("send the console's access token (Authorization: Bearer) or a [[server.users]] login"))
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		reply(http.StatusUnsupportedMediaType, errors.New("send a JSON body with Content-Type: application/json"))
		return
	}
	if err := c.cop.Check(r); err != nil {
		reply(http.StatusForbidden, fmt.Errorf("refused a cross-origin request: %w", err))
		return
	}
	var req ExportRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&req); err != nil && !errors.Is(err, io.EOF) {
		reply(http.StatusBadRequest, fmt.Errorf("reading the request: %w", err))
		return
	}
	oc := c.d.Config.Outbox(ob)
	if c.d.RunExport == nil || oc == nil {
		reply(http.StatusNotFound, fmt.Errorf("no outbox %q in the running filebridge's configuration", ob))
		return
	}
	var since time.Time
	if req.Since != nil {
		since = *req.Since
	}
	c.d.Logger.Info("export asked for over the API", "outbox", ob, "export", ex, "remote", r.RemoteAddr)
	done, err := c.d.RunExport(r.Context(), ob, ex, since)
	ans.ExportDone = done
	switch {
	case err == nil:
		reply(http.StatusOK, nil)
	case errors.Is(err, ErrNoSuchExport):
		reply(http.StatusNotFound, err)
	case errors.Is(err, outbox.ErrExportRunning):
		reply(http.StatusConflict, err)
	default:
		if hint := portal.Hint(err, oc.Portal); hint != "" {
			err = fmt.Errorf("%w; %s", err, hint)
		}
		status := http.StatusServiceUnavailable
		if ExportRefused(err) {
			status = http.StatusUnprocessableEntity
		}
		reply(status, err)
	}
}

// ErrNoSuchExport is returned by Deps.RunExport for an export the outbox
// does not configure.
var ErrNoSuchExport = errors.New("no such export")
