package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"filebridge/internal/app"
	"filebridge/internal/config"
	"filebridge/internal/console"
	"filebridge/internal/inbox"
	"filebridge/internal/journal"
	"filebridge/internal/server"
)

// TestConsoleActions runs the console of a daemon over real HTTP: the
// dashboard, "Run now" of an export, and a (forced) replay that the
// daemon's next round picks up and links to the original.
func TestConsoleActions(t *testing.T) {
	cfg := setup(t, "in", "out")
	ctx := context.Background()
	d := openDaemon(t, cfg)
	in := cfg.Inboxes[0].Folder.Path
	if err := os.WriteFile(filepath.Join(in, "SUPPLIERS_BAD.csv"), []byte("code,name,relationship\nSUP-B,Supplier B,Bogus\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _ = d.RunOnce(ctx) // the bad file (and marker.txt) fail
	srv := serveConsole(t, d)
	_, noRedirect, get := browserSession(t, srv)
	post := func(path, csrf string, extra url.Values) *http.Response {
		t.Helper()
		form := url.Values{"csrf": {csrf}}
		for k, v := range extra {
			form[k] = v
		}
		resp, err := noRedirect.PostForm(srv.URL+path, form)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp
	}
	dash := get("/")
	m := regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`).FindStringSubmatch(dash)
	if m == nil || !strings.Contains(dash, "erp-out/stock") || !strings.Contains(dash, "Run now") {
		t.Fatalf("dashboard:\n%s", dash)
	}
	// Run now.
	resp := post("/exports/erp-out/stock/run", m[1], nil)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("run now: %s", resp.Status)
	}
	after := get(resp.Header.Get("Location"))
	if !strings.Contains(after, "Export ran: erp-out/stock: nothing to export") {
		t.Errorf("after run now (an empty simulator):\n%s", after)
	}
	if s, err := d.Journal.ExportSummary(ctx, "erp-out", "stock"); err != nil || s.LastSuccess.ID == 0 {
		t.Errorf("the journal has no successful run of erp-out/stock: %+v, %v", s, err)
	}
	if resp := post("/exports/nope/stock/run", m[1], nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("run now of an unknown outbox: %s", resp.Status)
	}
	// Replay the failed file: it goes back into the inbox; the next round
	// processes it as a replay of the original.
	files, err := d.Journal.FindFiles(ctx, "SUPPLIERS_BAD.csv")
	if err != nil {
		t.Fatal(err)
	}
	// Its row is invalid in the file itself: a plain replay is refused
	// (the page offers none), a forced one goes.
	if resp := post("/files/"+itoa(files[0].ID)+"/replay", m[1], nil); resp.StatusCode != http.StatusConflict {
		t.Fatalf("replay of a file with invalid rows: %s, want 409", resp.Status)
	}
	resp = post("/files/"+itoa(files[0].ID)+"/replay", m[1], url.Values{"force": {"1"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("replay: %s", resp.Status)
	}
	if _, err := os.Stat(filepath.Join(in, "SUPPLIERS_BAD.csv")); err != nil {
		t.Fatalf("the file is not back in the inbox: %v", err)
	}
	_, _ = d.RunOnce(ctx)
	again, err := d.Journal.FindFiles(ctx, "SUPPLIERS_BAD.csv")
	if err != nil || len(again) != 2 {
		t.Fatalf("runs of the file: %d, %v; want 2", len(again), err)
	}
	if r, found, err := d.Journal.ReplayOf(ctx, again[0].ID); err != nil || !found || r.OriginalID != files[0].ID || r.By != "console" {
		t.Errorf("the new run is not linked: %+v %v %v", r, found, err)
	}
	page := get("/files/" + itoa(files[0].ID))
	if !strings.Contains(page, `class="replay-link">#`+itoa(again[0].ID)) {
		t.Errorf("the original's page lacks the link to its replay:\n%s", page)
	}
}

// browserSession is one browser's session on the console (the CSRF token
// is bound to it): its client, the same client not following redirects,
// and a GET of a page through it.
func browserSession(t *testing.T, srv *httptest.Server) (browser, noRedirect *http.Client, get func(path string) string) {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	browser = &http.Client{Jar: jar}
	noRedirect = &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return browser, noRedirect, func(path string) string { return getPageWith(t, browser, srv, path) }
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// openDaemon opens a daemon on cfg that does not wait for files to settle,
// closed when the test ends.
func openDaemon(t *testing.T, cfg *config.Config) *app.Daemon {
	t.Helper()
	d, err := app.Open(context.Background(), cfg, discard(), app.Options{Inbox: inbox.Options{SkipSettle: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// serveConsole serves d's console, metrics and health over HTTP until the
// test ends.
func serveConsole(t *testing.T, d *app.Daemon) *httptest.Server {
	t.Helper()
	c, err := d.Console()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(server.Handler(d.Registry, d.HealthReport, c.Access(false), c.Mount))
	t.Cleanup(srv.Close)
	return srv
}

// getPage returns the body of GET path, failing the test unless it is 200 OK.
func getPage(t *testing.T, srv *httptest.Server, path string) string {
	t.Helper()
	return getPageWith(t, http.DefaultClient, srv, path)
}

// getPageWith is getPage with the given client (a browser session).
func getPageWith(t *testing.T, client *http.Client, srv *httptest.Server, path string) string {
	t.Helper()
	resp, err := client.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s\n%s", path, resp.Status, b)
	}
	return string(b)
}

// TestConsoleHeld runs the real pipeline against the simulator: an orders
// file whose SKUs are not on the portal is held (hold_missing default),
// and the daemon's console shows it on the dashboard with the codes it
// waits for and until when, under the held filter and on its page; the
// portal shows its current concurrency limit beside the configured one,
// and the entry no route takes is listed as ignored with its reason.
func TestConsoleHeld(t *testing.T) {
	cfg := setup(t, "in", "out")
	ctx := context.Background()
	d := openDaemon(t, cfg)
	sample, err := os.ReadFile(filepath.Join("..", "..", "samples", "A", "good", "ORDERS_20260316.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg.Inboxes[0].Folder.Path, "ORDERS_20260316.csv"), sample, 0o644); err != nil {
		t.Fatal(err)
	}
	// A link leading outside the inbox is not taken: listed as ignored.
	outside := filepath.Join(t.TempDir(), "secret.csv")
	if err := os.WriteFile(outside, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(cfg.Inboxes[0].Folder.Path, "LINK.csv")); err != nil {
		t.Fatal(err)
	}
	_, _ = d.RunOnce(ctx)
	held, err := d.Journal.Files(ctx, journal.FileFilter{Held: true})
	if err != nil || len(held) != 1 || !strings.Contains(held[0].WaitingFor, "CHR-OAK-DIN") {
		t.Fatalf("held files in the journal: %+v, %v; want the orders file waiting for CHR-OAK-DIN", held, err)
	}
	f := held[0]
	srv := serveConsole(t, d)
	until := f.HeldSince.Add(config.DefaultHoldMissing).UTC().Format(time.RFC3339)
	limit := strconv.Itoa(d.Portals["main"].Limit())
	tests := []struct {
		path string
		want []string
	}{
		{"/", []string{`<a class="held" href="/files?inbox=erp&amp;state=held">1</a>`, `<a href="/files/` + itoa(f.ID) + `">ORDERS_20260316.csv</a>`,
			"CHR-OAK-DIN&#34;</code>", `<time datetime="` + until + `">`, `<td class="num concurrency">` + limit + ` / 8</td>`,
			"<td>erp</td><td>LINK.csv</td><td>", `">and 13 more</a>`}},
		{"/files?state=held", []string{"ORDERS_20260316.csv", `<span class="state held"`}},
		{"/files/" + itoa(f.ID), []string{`id="held">for master data since`, `fails at <time datetime="` + until + `">`, "CHR-OAK-DIN&#34;</code>"}},
	}
	for _, tt := range tests {
		page := getPage(t, srv, tt.path)
		for _, w := range tt.want {
			if !strings.Contains(page, w) {
				t.Errorf("GET %s lacks %q:\n%s", tt.path, w, page)
			}
		}
	}
}

// TestExportAPI runs POST /api/exports/{outbox}/{export}/run (what
// `filebridge export` asks the daemon while it owns the journal) over real
// HTTP against the simulator: it needs no CSRF token, yet a browser's
// cross-site form (not JSON) or a cross-origin fetch is refused before any
// run; an unknown export is a 404; a run answers what it wrote.
func TestExportAPI(t *testing.T) {
	cfg := setup(t, "in", "out")
	ctx := context.Background()
	d := openDaemon(t, cfg)
	srv := serveConsole(t, d)
	post := func(path, ctype, body string, hdr map[string]string) (int, console.ExportAnswer) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", ctype)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var ans console.ExportAnswer
		_ = json.NewDecoder(resp.Body).Decode(&ans)
		return resp.StatusCode, ans
	}
	const run = "/api/exports/erp-out/stock/run"
	crossSite := map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}
	tests := []struct {
		name   string
		path   string
		ctype  string
		body   string
		hdr    map[string]string
		status int
		want   string
	}{
		{"a cross-site form", run, "application/x-www-form-urlencoded", "since=2020-01-01", crossSite, http.StatusUnsupportedMediaType, "Content-Type: application/json"},
		{"a plain-text body", run, "text/plain", `{}`, nil, http.StatusUnsupportedMediaType, "Content-Type: application/json"},
		{"a cross-origin fetch", run, "application/json", `{}`, crossSite, http.StatusForbidden, "cross-origin"},
		{"not JSON", run, "application/json", `since`, nil, http.StatusBadRequest, "reading the request"},
		{"unknown outbox", "/api/exports/nope/stock/run", "application/json", `{}`, nil, http.StatusNotFound, `no outbox "nope"`},
		{"unknown export", "/api/exports/erp-out/receipts/run", "application/json", `{}`, nil, http.StatusNotFound, "has no receipts export"},
		{"run", run, "application/json", `{}`, nil, http.StatusOK, ""},
		{"run since", run, "application/json", `{"since":"2020-01-01T00:00:00Z"}`, nil, http.StatusOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, ans := post(tt.path, tt.ctype, tt.body, tt.hdr)
			if status != tt.status || !strings.Contains(ans.Error, tt.want) || (status == http.StatusOK) != (ans.Error == "") {
				t.Errorf("status %d, answer %+v; want %d and %q", status, ans, tt.status, tt.want)
			}
			if status == http.StatusOK && (ans.Outbox != "erp-out" || ans.Export != "stock" || !strings.HasPrefix(ans.Folder, "file://")) {
				t.Errorf("answer %+v: want the outbox, export and folder", ans)
			}
		})
	}
	runs, err := d.Journal.RecentRuns(ctx, "erp-out", "stock", 0)
	if err != nil || len(runs) != 2 {
		t.Errorf("export runs in the journal: %d (%v), want the 2 accepted, none of the refused", len(runs), err)
	}

	// With a console token: the CLI's Bearer token is required.
	cfg = setup(t, "in", "out")
	cfg.Server.Token = config.NewSecret("console-token")
	d = openDaemon(t, cfg)
	srv = serveConsole(t, d)
	for _, tt := range []struct {
		name   string
		hdr    map[string]string
		status int
	}{
		{"no token", nil, http.StatusUnauthorized},
		{"wrong token", map[string]string{"Authorization": "Bearer nope"}, http.StatusUnauthorized},
		{"the token", map[string]string{"Authorization": "Bearer console-token"}, http.StatusOK},
	} {
		if status, ans := post(run, "application/json", `{}`, tt.hdr); status != tt.status {
			t.Errorf("%s: status %d (%+v), want %d", tt.name, status, ans, tt.status)
		}
	}
	if runs, err := d.Journal.RecentRuns(ctx, "erp-out", "stock", 0); err != nil || len(runs) != 1 {
		t.Errorf("export runs with a token: %d (%v), want the one authorized", len(runs), err)
	}
}

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
	browser, noRedirect, get := browserSession(t, srv)

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
