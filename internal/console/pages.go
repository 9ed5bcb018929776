package console

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"filebridge/internal/journal"
)

// exportNowTimeout bounds an export the console's Run now button runs
// (the page waits for it).
const exportNowTimeout = 2 * time.Minute

// pageSize is the number of files a page of the files table shows.
const pageSize = 25

// stateHeld is the files table's filter for the files held for master
// data: not a journal state of its own (they are claimed or submitting
// with a hold recorded).
const stateHeld = "held"

func (c *Console) funcs() template.FuncMap {
	return template.FuncMap{
		// when shows a time in the operator's zone; the script turns it
		// into the browser's.
		"when": func(v any) template.HTML {
			var t time.Time
			switch x := v.(type) {
			case time.Time:
				t = x
			case *time.Time:
				if x != nil {
					t = *x
				}
			}
			if t.IsZero() {
				return "–"
			}
			lt := t.In(c.d.Location)
			return template.HTML(fmt.Sprintf(`<time datetime="%s">%s</time>`,
				template.HTMLEscapeString(t.UTC().Format(time.RFC3339)), template.HTMLEscapeString(lt.Format("2006-01-02 15:04:05 MST"))))
		},
		"docs":  docSummary,
		"base":  path.Base,
		"sub":   func(a, b int) int { return a - b },
		"short": short,
	}
}

// short cuts a message for a table cell (the whole one is its title).
func short(msg string) string {
	const width = 90
	if r := []rune(msg); len(r) > width {
		return string(r[:width-1]) + "…"
	}
	return msg
}

// docSummary is "3 created, 1 invalid"; "–" without documents.
func docSummary(counts map[journal.Result]int) string {
	if s := journal.Summary(counts); s != "" {
		return s
	}
	return "–"
}

// fileFilter reads the files table's filters from the query string.
type fileFilter struct {
	Inbox, State, Type, Date, Q string
	Page                        int
	// Resolved lists the resolved failures too (state=failed&resolved=1);
	// the failed list is otherwise the open ones, the work queue.
	Resolved bool
}

func (f fileFilter) query(page int) string {
	v := url.Values{}
	for k, s := range map[string]string{"inbox": f.Inbox, "state": f.State, "type": f.Type, "date": f.Date, "q": f.Q} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if f.Resolved {
		v.Set("resolved", "1")
	}
	return pageURL("/files", v, page)
}

// pager is the position of one page of a list: rows From to To of Total
// (0 and 0 when it shows none), with the links to the pages before and
// after ("" at an end).
type pager struct {
	From, To, Total int
	Prev, Next      string
}

// pageOf places page n (from 1) of a list of total rows, size a page,
// which shows shown of them; link(m) is the link to page m.
func pageOf(n, size, shown, total int, link func(m int) string) pager {
	from := (n - 1) * size
	p := pager{Total: total}
	if shown > 0 {
		p.From, p.To = from+1, from+shown
	}
	if n > 1 {
		p.Prev = link(n - 1)
	}
	if from+shown < total {
		p.Next = link(n + 1)
	}
	return p
}

// pageNumber is the page the query's key asks for: 1 unless a number
// above 1.
func pageNumber(q url.Values, key string) int {
	if n, err := strconv.Atoi(q.Get(key)); err == nil && n > 1 {
		return n
	}
	return 1
}

// pageURL is the link to page of a list at path with the query v.
func pageURL(path string, v url.Values, page int) string {
	if page > 1 {
		v.Set("page", strconv.Itoa(page))
	}
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}

func (c *Console) files(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	ff := fileFilter{Inbox: q.Get("inbox"), State: q.Get("state"), Type: q.Get("type"), Date: q.Get("date"), Q: q.Get("q"),
		Page: pageNumber(q, "page"), Resolved: q.Get("resolved") == "1"}
	jf := journal.FileFilter{Inbox: ff.Inbox, DocType: ff.Type, Name: ff.Q, Limit: pageSize, Offset: (ff.Page - 1) * pageSize}
	var problems []string
	if ff.State == stateHeld {
		jf.Held = true
	} else if ff.State != "" {
		st := journal.FileState(ff.State)
		if !st.Valid() {
			problems = append(problems, fmt.Sprintf("state %q is unknown: choose one of the list", ff.State))
		}
		jf.States = []journal.FileState{st}
		jf.Unresolved = st == journal.FileFailed && !ff.Resolved
	}
	if ff.Date != "" {
		d, err := time.ParseInLocation(time.DateOnly, ff.Date, c.d.Location)
		if err != nil {
			problems = append(problems, fmt.Sprintf("date %q: write it as 2026-11-21", ff.Date))
		} else {
			jf.Since, jf.Until = d, d.AddDate(0, 0, 1)
		}
	}
	ctx := r.Context()
	var files []journal.File
	var total int
	counts := map[int64]map[journal.Result]int{}
	if len(problems) == 0 {
		var err error
		if files, err = c.d.Journal.Files(ctx, jf); err == nil {
			if total, err = c.d.Journal.CountFiles(ctx, jf); err == nil {
				ids := make([]int64, len(files))
				for i, f := range files {
					ids[i] = f.ID
				}
				counts, err = c.d.Journal.ResultCounts(ctx, ids)
			}
		}
		if err != nil {
			return err
		}
	}
	_, holders, err := c.instances(ctx, c.d.Now())
	if err != nil {
		return err
	}
	var inboxes, types []string
	for _, ic := range c.d.Config.Inboxes {
		inboxes = append(inboxes, ic.Name)
		for _, rt := range ic.Routes {
			if rt.Type != "" && !slices.Contains(types, rt.Type) {
				types = append(types, rt.Type)
			}
		}
	}
	data := map[string]any{
		"Title": "Files", "Files": files, "Counts": counts, "Filter": ff, "Problems": problems,
		"Inboxes": inboxes, "Types": types, "Shared": c.d.Journal.Shared(), "Holders": holders,
		"States": []string{string(journal.FileClaimed), string(journal.FileSubmitting), stateHeld,
			string(journal.FileDone), string(journal.FileFailed), string(journal.FileDuplicate)},
		"Pages": pageOf(ff.Page, pageSize, len(files), total, ff.query), "Failures": ff.State == string(journal.FileFailed),
	}
	if ff.State == string(journal.FileFailed) {
		flip := ff
		flip.Resolved, flip.Page = !ff.Resolved, 1
		data["FlipResolved"] = flip.query(1)
	}
	c.render(w, r, http.StatusOK, "files", data)
	return nil
}

// byID reads what the {id} path value names with get: errNotFound when
// the value is no id or names nothing.
func byID[T any](r *http.Request, get func(context.Context, int64) (T, error)) (T, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		var zero T
		return zero, errNotFound
	}
	v, err := get(r.Context(), id)
	if errors.Is(err, journal.ErrNotFound) {
		return v, errNotFound
	}
	return v, err
}

func (c *Console) file(w http.ResponseWriter, r *http.Request) error {
	f, err := byID(r, c.d.Journal.File)
	if err != nil {
		return err
	}
	ctx := r.Context()
	dp := docPageOf(r, f)
	docs, docsTotal, err := c.d.Journal.DocumentsPage(ctx, f.ID, dp.query())
	if err != nil {
		return err
	}
	counts, err := c.d.Journal.ResultCounts(ctx, []int64{f.ID})
	if err != nil {
		return err
	}
	of, isReplay, err := c.d.Journal.ReplayOf(ctx, f.ID)
	if err != nil {
		return err
	}
	replays, err := c.d.Journal.ReplaysOf(ctx, f.ID)
	if err != nil {
		return err
	}
	var held *heldRow
	downloads := map[string]string{}
	if c.d.Open != nil {
		for kind, p := range downloadPaths(f) {
			if p != "" {
				downloads[kind] = path.Base(p)
			}
		}
	}
	if f.Held() {
		row := c.heldRow(f, c.health(ctx).Inboxes[f.Inbox].Held)
		held = &row
	}
	data := map[string]any{
		"Title": f.Name, "File": f, "Held": held, "Docs": docs, "DocPage": dp.view(f.ID, len(docs), docsTotal),
		"Counts": counts[f.ID], "Downloads": downloads,
		"Replays": replays, "CanReplay": c.d.Replay != nil && !f.State.Open() && (f.State != journal.FileFailed || f.Replayable()),
		"NeedsForce": f.State != journal.FileFailed, "Replayed": r.URL.Query().Get("replayed"),
	}
	if isReplay {
		data["ReplayOf"] = of.OriginalID
	}
	c.render(w, r, http.StatusOK, "file", data)
	return nil
}

// downloadPaths are the files of a journal file that can be downloaded, by
// kind, as paths inside the inbox folder.
func downloadPaths(f journal.File) map[string]string {
	orig := f.FinalPath
	if orig == "" {
		orig = f.Path
	}
	return map[string]string{"original": orig, "report": f.ReportPath, "rejected": f.RejectedPath()}
}

func (c *Console) download(w http.ResponseWriter, r *http.Request) error {
	f, err := byID(r, c.d.Journal.File)
	if err != nil {
		return err
	}
	p := downloadPaths(f)[r.PathValue("kind")]
	if p == "" || c.d.Open == nil {
		return errNotFound
	}
	rc, err := c.d.Open(r.Context(), f.Inbox, p)
	if err != nil {
		c.fail(w, r, http.StatusNotFound, fmt.Errorf("%s of #%d %s is no longer at %s (moved or removed by hand?): %w", r.PathValue("kind"), f.ID, f.Name, p, err))
		return nil
	}
	c.send(w, rc, p, "text/csv; charset=utf-8", "a download")
	return nil
}

// send answers with rc, the file at p, as an attachment named after it:
// a CSV file as csvType. An error on the way is logged as sending what.
func (c *Console) send(w http.ResponseWriter, rc io.ReadCloser, p, csvType, what string) {
	defer rc.Close()
	ctype := "application/octet-stream"
	if strings.HasSuffix(strings.ToLower(p), ".csv") {
		ctype = csvType
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", path.Base(p)))
	if _, err := io.Copy(w, rc); err != nil {
		c.d.Logger.Warn("console: sending "+what, "file", p, "error", err)
	}
}

func (c *Console) replay(w http.ResponseWriter, r *http.Request) error {
	f, err := byID(r, c.d.Journal.File)
	if err != nil {
		return err
	}
	if c.d.Replay == nil {
		return errNotFound
	}
	name, err := c.d.Replay(r.Context(), f.ID, r.PostFormValue("force") == "1")
	if err != nil {
		c.fail(w, r, http.StatusConflict, err)
		return nil
	}
	c.d.Logger.Info("console: file put back for a replay", "file", f.Name, "file_id", f.ID, "as", name)
	http.Redirect(w, r, fmt.Sprintf("/files/%d?replayed=%s", f.ID, url.QueryEscape(name)), http.StatusSeeOther)
	return nil
}

func (c *Console) runExport(w http.ResponseWriter, r *http.Request) error {
	ob, ex := r.PathValue("outbox"), r.PathValue("export")
	if c.d.RunExport == nil || c.d.Config.Outbox(ob) == nil {
		return errNotFound
	}
	ctx, cancel := context.WithTimeout(r.Context(), exportNowTimeout)
	defer cancel()
	done, err := c.d.RunExport(ctx, ob, ex, time.Time{})
	v := url.Values{}
	if err != nil {
		v.Set("export_error", fmt.Sprintf("%s/%s: %v", ob, ex, err))
	} else {
		v.Set("exported", fmt.Sprintf("%s/%s: %s", ob, ex, done))
	}
	http.Redirect(w, r, "/?"+v.Encode(), http.StatusSeeOther)
	return nil
}

// docsPerPage is how many documents a file's page shows at once: a file of
// 200,000 documents is a page of a hundred, not a 29 MB page.
const docsPerPage = 100

// docPage is the documents a file's page shows: the problems (the default
// for a failed file) or all, and which page of them.
type docPage struct {
	problems bool
	page     int // from 1
}

// docPageOf reads ?docs=problems|all&page=N; a failed file shows its
// problems unless asked for all.
func docPageOf(r *http.Request, f journal.File) docPage {
	q := r.URL.Query()
	dp := docPage{problems: f.State == journal.FileFailed, page: pageNumber(q, "page")}
	switch q.Get("docs") {
	case "problems":
		dp.problems = true
	case "all":
		dp.problems = false
	}
	return dp
}

func (dp docPage) query() journal.DocPage {
	p := journal.DocPage{Limit: docsPerPage, Offset: (dp.page - 1) * docsPerPage}
	if dp.problems {
		p.Results = journal.Problems
	}
	return p
}

// docPageView is what the template shows of it.
type docPageView struct {
	Problems bool
	pager
	Flip string // the link to the other choice
}

func (dp docPage) view(fileID int64, shown, total int) docPageView {
	link := func(problems bool, page int) string {
		v := url.Values{"docs": {"all"}}
		if problems {
			v.Set("docs", "problems")
		}
		return pageURL(fmt.Sprintf("/files/%d", fileID), v, page) + "#documents"
	}
	return docPageView{Problems: dp.problems, Flip: link(!dp.problems, 1),
		pager: pageOf(dp.page, docsPerPage, shown, total, func(m int) string { return link(dp.problems, m) })}
}

// acknowledge resolves an open failure by hand: who (the basic-auth user,
// else "console": the token and the loopback console name no one), when
// and the note are recorded in the journal.
func (c *Console) acknowledge(w http.ResponseWriter, r *http.Request) error {
	f, err := byID(r, c.d.Journal.File)
	if err != nil {
		return err
	}
	who := cmp.Or(c.basicUser(r), "console")
	acked, err := c.d.Journal.Acknowledge(r.Context(), f.ID, who, r.PostFormValue("note"))
	switch {
	case errors.Is(err, journal.ErrNotFailed), errors.Is(err, journal.ErrResolved):
		c.fail(w, r, http.StatusConflict, fmt.Errorf("#%d %s: %w", f.ID, f.Name, err))
		return nil
	case err != nil:
		return err
	}
	c.d.Logger.Info("console: failure acknowledged", "file", f.Name, "file_id", f.ID, "by", who)
	http.Redirect(w, r, fmt.Sprintf("/files/%d", acked.ID), http.StatusSeeOther)
	return nil
}
