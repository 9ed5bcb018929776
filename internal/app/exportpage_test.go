package app_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestConsoleExportsPage runs the exports page of a daemon over real HTTP
// against the simulator and a real outbox folder: the runs' history,
// paged; the download of a written file from the outbox; a re-send from
// the journal's copy, under a new name while the file is still there (the
// file there untouched) and under its own name once the other side took
// it, each recorded as a run; and the search of a document key across the
// input files' documents and the export files.
func TestConsoleExportsPage(t *testing.T) {
	cfg := setupPreload(t, "in", "out", 3)
	ctx := context.Background()
	d := openDaemon(t, cfg)
	if err := os.WriteFile(filepath.Join(cfg.Inboxes[0].Folder.Path, "SUPPLIERS_1.csv"),
		[]byte("code,name,relationship\nSUP-FIND-ME,Supplier,Manufacturer\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _ = d.RunOnce(ctx)
	var first string
	for i := range 26 {
		res := d.ExportOnce(ctx)
		if len(res) != 1 || res[0].Err != nil || res[0].Result.File == "" {
			t.Fatalf("export %d: %+v", i, res)
		}
		if i == 0 {
			first = res[0].Result.File
		}
	}
	outDir := cfg.Outboxes[0].Folder.Path
	content, err := os.ReadFile(filepath.Join(outDir, first))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(content), "\n")
	sku := strings.Split(lines[1], ",")[0]
	srv := serveConsole(t, d)
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	browser := &http.Client{Jar: jar}
	noRedirect := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string) string { return getPageWith(t, browser, srv, path) }

	page := get("/exports")
	for _, want := range []string{`<a href="/exports">Exports</a>`, "1–25 of 26", `rel="next"`, "erp-out/stock", ">Re-send</button>"} {
		if !strings.Contains(page, want) {
			t.Errorf("/exports lacks %q:\n%s", want, page)
		}
	}
	page2 := get("/exports?export=erp-out%2Fstock&page=2")
	m := regexp.MustCompile(`<a href="/exports/runs/(\d+)/download">` + regexp.QuoteMeta(first) + `</a>`).FindStringSubmatch(page2)
	if !strings.Contains(page2, "26–26 of 26") || m == nil {
		t.Fatalf("page 2 does not list the first run with its file %s:\n%s", first, page2)
	}
	runID := m[1]

	resp, err := browser.Get(srv.URL + "/exports/runs/" + runID + "/download")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != string(content) || !strings.Contains(resp.Header.Get("Content-Disposition"), first) {
		t.Errorf("download: %s %q, want the file %s", resp.Status, resp.Header.Get("Content-Disposition"), first)
	}

	csrf := regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`).FindStringSubmatch(page)[1]
	resend := func() string {
		t.Helper()
		resp, err := noRedirect.PostForm(srv.URL+"/exports/runs/"+runID+"/resend", url.Values{"csrf": {csrf}})
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("re-send: %s", resp.Status)
		}
		return get(resp.Header.Get("Location"))
	}
	// Still in the outbox: written again under a new name, the file there
	// untouched.
	before := map[string]bool{}
	entries, err := os.ReadDir(outDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		before[e.Name()] = true
	}
	after := resend()
	as := regexp.MustCompile(`Sent again: ` + regexp.QuoteMeta(first) + ` written again into outbox erp-out as (\S+\.csv)<`).FindStringSubmatch(after)
	if as == nil || as[1] == first || before[as[1]] || !strings.HasPrefix(as[1], strings.TrimSuffix(first, ".csv")+".") {
		t.Fatalf("after a re-send while the file is there, want it under a new name:\n%s", after)
	}
	if again, err := os.ReadFile(filepath.Join(outDir, as[1])); err != nil || string(again) != string(content) {
		t.Errorf("%s: %v, want the same content", as[1], err)
	}
	if still, err := os.ReadFile(filepath.Join(outDir, first)); err != nil || string(still) != string(content) {
		t.Errorf("%s was touched: %v", first, err)
	}
	// The other side took it: written again under its own name.
	if err := os.Remove(filepath.Join(outDir, first)); err != nil {
		t.Fatal(err)
	}
	resp, err = browser.Get(srv.URL + "/exports/runs/" + runID + "/download")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), "is no longer in outbox erp-out") {
		t.Errorf("download of a file taken away: %s\n%s", resp.Status, body)
	}
	after = resend()
	if !strings.Contains(after, "written again into outbox erp-out as "+first) {
		t.Errorf("after a re-send of a file taken away:\n%s", after)
	}
	if again, err := os.ReadFile(filepath.Join(outDir, first)); err != nil || string(again) != string(content) {
		t.Errorf("%s: %v, want the same content again", first, err)
	}
	if n := strings.Count(after, "copy of run #"+runID); n != 2 {
		t.Errorf("the page lists %d re-sends of run %s, want 2:\n%s", n, runID, after)
	}
	if s, err := d.Journal.ExportSummary(ctx, "erp-out", "stock"); err != nil || s.Last.ResentFrom != 0 || s.Last.FileName == first {
		t.Errorf("a re-send counts as the export's last run: %+v, %v", s.Last, err)
	}

	// A key of an input file, and one of the export files.
	for _, tt := range []struct {
		key, want string
	}{
		{"sup-find", `SUPPLIERS_1.csv</a>`},
		{sku, "<code>" + lines[1]},
	} {
		page := get("/exports?key=" + url.QueryEscape(tt.key))
		if !strings.Contains(page, tt.want) {
			t.Errorf("searching %q: the page lacks %q:\n%s", tt.key, tt.want, page)
		}
	}

	// A scheduled time claimed after a later one (a shared journal that
	// could not be reached at the time) is skipped: a row of the same
	// history, saying why.
	t1 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	if _, won, err := d.Journal.ClaimTick(ctx, "erp-out", "stock", t1); !won || err != nil {
		t.Fatalf("ClaimTick = %v, %v", won, err)
	}
	if _, won, err := d.Journal.ClaimTick(ctx, "erp-out", "stock", t1.Add(-time.Minute)); won || err != nil {
		t.Fatalf("late ClaimTick = %v, %v; want skipped", won, err)
	}
	page = get("/exports")
	for _, want := range []string{`<span class="state claimed">skipped</span>`, "claimed late, after the tick of"} {
		if !strings.Contains(page, want) {
			t.Errorf("/exports lacks the skipped time's %q:\n%s", want, page)
		}
	}
}
