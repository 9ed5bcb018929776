package console

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"strings"

	"filebridge/internal/journal"
	"filebridge/internal/outbox"
)

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

func (f exportFilter) query(page int) template.URL {
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
	var names []string
	for i := range c.d.Config.Outboxes {
		ob := &c.d.Config.Outboxes[i]
		jobs, err := outbox.Jobs(c.d.Config, ob)
		if err != nil {
			return err
		}
		for _, j := range jobs {
			names = append(names, j.Name())
		}
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
	ids := make([]int64, 0, len(runs))
	for _, run := range runs {
		ids = append(ids, run.ID)
		if run.ResentFrom != 0 {
			ids = append(ids, run.ResentFrom)
		}
	}
	copies, err := c.d.Journal.HasCopies(ctx, ids)
	if err != nil {
		return err
	}
	canResend := map[int64]bool{}
	for _, run := range runs {
		from := run.ID
		if run.ResentFrom != 0 {
			from = run.ResentFrom
		}
		canResend[run.ID] = c.d.Resend != nil && run.FileName != "" && copies[from]
	}
	data := map[string]any{
		"Title": "Exports", "Runs": runs, "Total": total, "Filter": ef, "Names": names,
		"CanDownload": c.d.OpenExport != nil, "CanResend": canResend,
		"From": rf.Offset + 1, "To": rf.Offset + len(runs), "Searched": keyRunsSearched,
		"Resent": q.Get("resent"), "ResendError": q.Get("resend_error"),
	}
	if ef.Page > 1 {
		data["Prev"] = ef.query(ef.Page - 1)
	}
	if rf.Offset+len(runs) < total {
		data["Next"] = ef.query(ef.Page + 1)
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
		lines, found, err := mentions(gz, needle)
		if err != nil {
			return nil, fmt.Errorf("reading the copy of %s: %w", run.FileName, err)
		}
		if !found {
			continue
		}
		out = append(out, exportHit{Run: run, Lines: lines})
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
// be large) and reports whether needle (lower case) is in it, with the
// first three lines that hold it.
func mentions(gz []byte, needle []byte) ([]string, bool, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, false, err
	}
	br := bufio.NewReader(zr)
	var lines []string
	found := false
	for {
		line, err := br.ReadBytes('\n')
		if bytes.Contains(bytes.ToLower(line), needle) {
			found = true
			if len(lines) < 3 {
				lines = append(lines, strings.TrimSpace(string(line)))
			}
		}
		if errors.Is(err, io.EOF) {
			return lines, found, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
}
