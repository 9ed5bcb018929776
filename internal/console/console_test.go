package console

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"filebridge/internal/config"
	"filebridge/internal/folder"
	"filebridge/internal/folderurl"
	"filebridge/internal/inbox"
	"filebridge/internal/journal"
	"filebridge/internal/server"
)

// portalAndInbox are the portal and inbox of the console tests' configs.
const portalAndInbox = `
[portals.main]
edition = "A"
base_url = "http://127.0.0.1:1/api"
company = 42
token_env = "FB_CONSOLE_TEST_PORTAL"
[[inboxes]]
name = "erp"
portal = "main"
url = "in"
`

// consoleEnv is a console over a real journal and a real inbox folder,
// served over HTTP on 127.0.0.1.
type consoleEnv struct {
	srv    *httptest.Server
	db     *journal.DB
	failed int64 // a failed file with a report and rejected rows
	done   int64
	held   int64 // held for master data: waiting for two SKUs
	inDir  string
	// browser is the default client of do: a browser session (cookies).
	browser *http.Client
}

// newBrowser is a client with its own cookies (a browser session) that
// follows redirects unless noRedirect.
func newBrowser(t *testing.T, noRedirect bool) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Jar: jar}
	if noRedirect {
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	}
	return c
}

func newConsoleEnv(t *testing.T, serverTOML string) *consoleEnv {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("FB_CONSOLE_TEST_PORTAL", "portal-secret")
	t.Setenv("FB_CONSOLE_TEST_TOKEN", "console-secret")
	t.Setenv("FB_CONSOLE_TEST_PASSWORD", "ops-password")
	data := fmt.Sprintf(`
[journal]
path = "state/fb.db"
%s
%s`, serverTOML, portalAndInbox)
	cfg, db := parseAndOpen(t, data, dir)
	ctx := t.Context()
	e := &consoleEnv{db: db, inDir: filepath.Join(dir, "in")}
	write := func(rel, content string) {
		p := filepath.Join(e.inDir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("error/SKU_BAD.csv", "sku,name\nX,\n")
	write("error/SKU_BAD.report.csv", "row,key,result\n2,X,invalid\n")
	write("error/SKU_BAD.rejected.csv", "sku,name\nX,\n")
	write("processed/2026/11/21/SKU_OK.csv", "sku,name\nY,Chair\n")
	t0 := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	var err error
	e.done, err = db.ClaimFile(ctx, journal.File{Inbox: "erp", Name: "SKU_OK.csv", DocType: "skus", State: journal.FileDone,
		Rows: 1, FinalPath: "processed/2026/11/21/SKU_OK.csv", ClaimedAt: t0})
	if err != nil {
		t.Fatal(err)
	}
	e.failed, err = db.ClaimFile(ctx, journal.File{Inbox: "erp", Name: "SKU_BAD.csv", DocType: "skus", State: journal.FileFailed,
		Rows: 1, DocsTotal: 1, DocsFailed: 1, FinalPath: "error/SKU_BAD.csv", ReportPath: "error/SKU_BAD.report.csv",
		Message: "1 of 1 document(s) failed <script>", ClaimedAt: t0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.AddDocuments(ctx, e.failed, []journal.Document{{Key: "X", Rows: "2"}}); err != nil {
		t.Fatal(err)
	}
	if err := db.SetResult(ctx, e.failed, "X", journal.ResultInvalid, "", `column "name": is empty`); err != nil {
		t.Fatal(err)
	}
	heldSince := t0.Add(2 * time.Hour)
	write("processing/ORDERS_7.csv", "order,sku\n7,A-1\n")
	e.held, err = db.ClaimFile(ctx, journal.File{Inbox: "erp", Name: "ORDERS_7.csv", DocType: "sales_orders", State: journal.FileClaimed,
		Rows: 1, Path: "processing/ORDERS_7.csv", ClaimedAt: heldSince, HeldSince: heldSince, WaitingFor: "SKU A-1; SKU A-2",
		Message: "held in processing until 2026-11-22T10:00:00Z: waiting for SKU A-1, SKU A-2"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := folder.Open(ctx, folder.Options{Location: folderurl.Local(e.inDir)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	served := serveConsole(t, Deps{
		Config: cfg, Journal: db, Location: time.UTC,
		Health: func(context.Context) server.Health {
			return server.Health{Portals: map[string]server.PortalHealth{"main": {Status: server.StatusPaused, Reason: "the portal refused the token"}},
				Inboxes: map[string]server.InboxHealth{"erp": {Queue: 3, Status: "degraded", Reason: "the disk of the inbox folder is full",
					Held:    []server.HeldHealth{{File: "ORDERS_7.csv", Since: heldSince, Until: heldSince.Add(24 * time.Hour), WaitingFor: []string{"SKU A-1", "SKU A-2"}}},
					Ignored: []server.IgnoredHealth{{File: "notes.txt", Reason: "no route matches the name: rename it or add a route", Since: t0}}}}}
		},
		Limits: func() map[string]int { return map[string]int{"main": 5} },
		Replay: func(ctx context.Context, id int64, force bool) (string, error) {
			file, err := db.File(ctx, id)
			if err != nil {
				return "", err
			}
			return inbox.Requeue(ctx, db, f, cfg.Inbox("erp"), file, force, "console")
		},
		Open: func(ctx context.Context, _, p string) (io.ReadCloser, error) { return f.Open(ctx, p) },
	})
	e.srv, e.browser = served.srv, served.browser
	return e
}

// serveConsole serves the console over d on 127.0.0.1 as the daemon does,
// beside /metrics and /healthz, for a browser session.
func serveConsole(t *testing.T, d Deps) *consoleEnv {
	t.Helper()
	c, err := New(d)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(server.Handler(prometheus.NewRegistry(), func(context.Context) server.Health { return server.Health{} }, c.Access(false), c.Mount))
	t.Cleanup(srv.Close)
	return &consoleEnv{srv: srv, db: d.Journal, browser: newBrowser(t, false)}
}

func (e *consoleEnv) do(t *testing.T, client *http.Client, method, path string, form url.Values, hdr map[string]string) (int, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(t.Context(), method, e.srv.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	if client == nil {
		client = e.browser
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

func TestConsolePages(t *testing.T) {
	e := newConsoleEnv(t, "")
	tests := []struct {
		name, path string
		code       int
		want       []string
		notWant    []string
	}{
		{"dashboard", "/", 200, []string{`<a href="/files?inbox=erp">erp</a>`, "paused", "the portal refused the token", `<td class="num">3</td>`,
			`<a class="held" href="/files?inbox=erp&amp;state=held">1</a>`, `<code>SKU A-1</code>, <code>SKU A-2</code>`,
			`<a href="/files/3">ORDERS_7.csv</a>`, `<time datetime="2026-11-22T10:00:00Z">`,
			"notes.txt", "no route matches the name: rename it or add a route",
			"Concurrency now / configured", `<td class="num concurrency">5 / 8</td>`}, nil},
		{"files newest first", "/files", 200, []string{"SKU_BAD.csv", "SKU_OK.csv", "ORDERS_7.csv", "1 invalid", "1–3 of 3"}, nil},
		{"files filtered by held", "/files?state=held", 200, []string{"ORDERS_7.csv", `<option selected>held</option>`, `<span class="state held" title="waiting for SKU A-1; SKU A-2">held</span>`},
			[]string{"SKU_BAD.csv", "SKU_OK.csv"}},
		{"claimed files include the held one", "/files?state=claimed", 200, []string{"ORDERS_7.csv"}, []string{"SKU_BAD.csv"}},
		{"held file page", fmt.Sprintf("/files/%d", e.held), 200, []string{`id="held">for master data since <time datetime="2026-11-21T10:00:00Z">`,
			`fails at <time datetime="2026-11-22T10:00:00Z">`, `<code>SKU A-1</code>, <code>SKU A-2</code>`}, []string{`id="replay"`}},
		{"files filtered by state", "/files?state=failed", 200, []string{"SKU_BAD.csv"}, []string{"SKU_OK.csv"}},
		{"files filtered by name", "/files?q=ok", 200, []string{"SKU_OK.csv"}, []string{"SKU_BAD.csv"}},
		{"files filtered by day", "/files?date=2026-11-21", 200, []string{"SKU_OK.csv", "SKU_BAD.csv"}, nil},
		{"files of another day", "/files?date=2026-11-22", 200, []string{"No file matches."}, nil},
		{"files past the last page", "/files?page=9", 200, []string{`href="/files?page=8" rel="prev"`}, []string{"201–200 of 3"}},
		{"bad filter", "/files?date=yesterday", 200, []string{"write it as 2026-11-21"}, nil},
		{"file page", fmt.Sprintf("/files/%d", e.failed), 200, []string{"#2 SKU_BAD.csv", `id="state">failed`, "X", "invalid",
			"column &#34;name&#34;: is empty", "download/report", "download/rejected", "download/original", `id="replay">Replay<`,
			`<time datetime="2026-11-21T09:00:00Z">2026-11-21 09:00:00 UTC</time>`, "failed &lt;script&gt;"}, []string{"<script>"}},
		{"processed file needs force", fmt.Sprintf("/files/%d", e.done), 200, []string{`name="force" value="1"`, "Replay anyway"}, nil},
		{"report download", fmt.Sprintf("/files/%d/download/report", e.failed), 200, []string{"row,key,result\n2,X,invalid"}, nil},
		{"no rejected rows for a done file", fmt.Sprintf("/files/%d/download/rejected", e.done), 404, nil, nil},
		{"unknown file", "/files/99", 404, nil, nil},
		{"unknown path", "/nope", 404, nil, nil},
		{"asset", "/assets/style.css", 200, []string{"font-family"}, nil},
		{"healthz still there", "/healthz", 200, []string{`"status"`}, nil},
	}
	t.Run("another host name (DNS rebinding)", func(t *testing.T) {
		if code, body := e.do(t, nil, "GET", "/", nil, map[string]string{"Host": "evil.example:80"}); code != 401 || strings.Contains(body, "erp") {
			t.Errorf("GET / for host evil.example: %d", code)
		}
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := e.do(t, nil, "GET", tt.path, nil, nil)
			if code != tt.code {
				t.Fatalf("GET %s: %d, want %d:\n%s", tt.path, code, tt.code, body)
			}
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("GET %s lacks %q:\n%s", tt.path, w, body)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(body, w) {
					t.Errorf("GET %s has %q", tt.path, w)
				}
			}
			if strings.Contains(body, "portal-secret") {
				t.Errorf("GET %s shows the portal token", tt.path)
			}
		})
	}
}

func TestConsoleReplay(t *testing.T) {
	e := newConsoleEnv(t, "")
	_, page := e.do(t, nil, "GET", fmt.Sprintf("/files/%d", e.failed), nil, nil)
	m := csrfRE.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF token on the page:\n%s", page)
	}
	replayPath := fmt.Sprintf("/files/%d/replay", e.failed)
	noRedirect := &http.Client{Jar: e.browser.Jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	tests := []struct {
		name   string
		method string
		form   url.Values
		hdr    map[string]string
		code   int
	}{
		{"GET is not an action", "GET", nil, nil, 404},
		{"no CSRF token", "POST", url.Values{}, nil, 403},
		{"wrong CSRF token", "POST", url.Values{"csrf": {"00"}}, nil, 403},
		{"from another site", "POST", url.Values{"csrf": {m[1]}}, map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"replayed", "POST", url.Values{"csrf": {m[1]}}, nil, 303},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := e.do(t, noRedirect, tt.method, replayPath, tt.form, tt.hdr)
			if code != tt.code {
				t.Errorf("%s %s: %d, want %d:\n%s", tt.method, replayPath, code, tt.code, body)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(e.inDir, "SKU_BAD.csv")); err != nil {
		t.Errorf("the file is not back in the inbox: %v", err)
	}
	_, page = e.do(t, nil, "GET", fmt.Sprintf("/files/%d", e.failed), nil, nil)
	if !strings.Contains(page, "SKU_BAD.csv, waiting in the inbox") {
		t.Errorf("the page does not show the waiting replay:\n%s", page)
	}
	// A processed file without force is refused with the reason.
	code, body := e.do(t, noRedirect, "POST", fmt.Sprintf("/files/%d/replay", e.done), url.Values{"csrf": {m[1]}}, nil)
	if code != http.StatusConflict || !strings.Contains(body, "the file went through") {
		t.Errorf("replay of a processed file without force: %d:\n%s", code, body)
	}
}

// TestConsoleCSRFSession: the CSRF token is bound to the browser's
// session cookie: two sessions get different tokens (on the login page
// too), and a POST captured from one session, token and all, is refused
// in another, even one logged in with the same access token.
func TestConsoleCSRFSession(t *testing.T) {
	e := newConsoleEnv(t, "[server]\nlisten = \"0.0.0.0:0\"\ntoken_env = \"FB_CONSOLE_TEST_TOKEN\"\n")
	login := func(name string, b *http.Client) string {
		t.Helper()
		_, page := e.do(t, b, "GET", "/login", nil, nil)
		m := csrfRE.FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("%s: no CSRF token on the login page:\n%s", name, page)
		}
		code, page := e.do(t, b, "POST", "/login", url.Values{"csrf": {m[1]}, "token": {"console-secret"}}, nil)
		if code != http.StatusSeeOther {
			t.Fatalf("%s: login: %d:\n%s", name, code, page)
		}
		_, page = e.do(t, b, "GET", fmt.Sprintf("/files/%d", e.failed), nil, nil)
		m2 := csrfRE.FindStringSubmatch(page)
		if m2 == nil {
			t.Fatalf("%s: no CSRF token on the file page:\n%s", name, page)
		}
		if m2[1] == m[1] {
			t.Errorf("%s: the login kept the CSRF token of the session before it", name)
		}
		return m2[1]
	}
	a, b := newBrowser(t, true), newBrowser(t, true)
	tokA, tokB := login("a", a), login("b", b)
	if tokA == tokB {
		t.Fatalf("two sessions got the same CSRF token %s", tokA)
	}
	replay := fmt.Sprintf("/files/%d/replay", e.failed)
	bearer := map[string]string{"Authorization": "Bearer console-secret"}
	for _, tt := range []struct {
		name   string
		client *http.Client
		csrf   string
		hdr    map[string]string
		code   int
	}{
		{"b's token in a's session", a, tokB, nil, 403},
		{"a's token without a session cookie", &http.Client{}, tokA, bearer, 403},
		{"a's token in a's session", a, tokA, nil, 303},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if code, body := e.do(t, tt.client, "POST", replay, url.Values{"csrf": {tt.csrf}}, tt.hdr); code != tt.code {
				t.Errorf("POST %s: %d, want %d:\n%s", replay, code, tt.code, body)
			}
		})
	}
}

func TestConsoleAccess(t *testing.T) {
	t.Run("token", func(t *testing.T) {
		e := newConsoleEnv(t, "[server]\nlisten = \"0.0.0.0:0\"\ntoken_env = \"FB_CONSOLE_TEST_TOKEN\"\n")
		for _, tt := range []struct {
			name, path string
			hdr        map[string]string
			code       int
		}{
			{"no token", "/", nil, 401},
			{"no token, file page", "/files/1", nil, 401},
			{"no token, download", "/files/2/download/report", nil, 401},
			{"bad token", "/", map[string]string{"Authorization": "Bearer wrong"}, 401},
			{"bearer token", "/", map[string]string{"Authorization": "Bearer console-secret"}, 200},
			{"no token, metrics", "/metrics", nil, 401},
			{"no token, healthz", "/healthz", nil, 401},
			{"bad token, metrics", "/metrics", map[string]string{"Authorization": "Bearer wrong"}, 401},
			{"bearer token, metrics", "/metrics", map[string]string{"Authorization": "Bearer console-secret"}, 200},
			{"bearer token, healthz", "/healthz", map[string]string{"Authorization": "Bearer console-secret"}, 200},
			{"unknown path", "/admin", nil, 404},
		} {
			t.Run(tt.name, func(t *testing.T) {
				code, body := e.do(t, nil, "GET", tt.path, nil, tt.hdr)
				if code != tt.code {
					t.Errorf("GET %s: %d, want %d", tt.path, code, tt.code)
				}
				if strings.Contains(body, "console-secret") || strings.Contains(body, "portal-secret") {
					t.Errorf("GET %s shows a secret", tt.path)
				}
				if code == 401 && strings.Contains(body, "SKU_") {
					t.Errorf("GET %s without access shows the journal", tt.path)
				}
			})
		}
		// Action without access: 401, and nothing happens.
		code, _ := e.do(t, nil, "POST", "/files/2/replay", url.Values{"csrf": {"x"}}, nil)
		if code != 401 {
			t.Errorf("POST replay without a token: %d, want 401", code)
		}
		// The login form sets a cookie that opens the pages.
		jar, _ := cookiejar.New(nil)
		client := &http.Client{Jar: jar}
		_, login := e.do(t, client, "GET", "/login", nil, nil)
		m := csrfRE.FindStringSubmatch(login)
		if m == nil {
			t.Fatalf("no CSRF token on the login page:\n%s", login)
		}
		if code, _ := e.do(t, client, "POST", "/login", url.Values{"csrf": {m[1]}, "token": {"wrong"}}, nil); code != 401 {
			t.Errorf("login with a wrong token: %d, want 401", code)
		}
		code, body := e.do(t, client, "POST", "/login", url.Values{"csrf": {m[1]}, "token": {"console-secret"}}, nil)
		if code != 200 || !strings.Contains(body, "<h1>Dashboard</h1>") {
			t.Errorf("after login: %d:\n%s", code, body)
		}
		u, _ := url.Parse(e.srv.URL)
		for _, ck := range jar.Cookies(u) {
			if strings.Contains(ck.Value, "console-secret") {
				t.Errorf("the cookie holds the token")
			}
		}
	})
	t.Run("basic auth", func(t *testing.T) {
		e := newConsoleEnv(t, "[server]\nlisten = \"0.0.0.0:0\"\n[[server.users]]\nname = \"ops\"\npassword_env = \"FB_CONSOLE_TEST_PASSWORD\"\n")
		req := func(path, user, pass string) int {
			r, _ := http.NewRequestWithContext(t.Context(), "GET", e.srv.URL+path, nil)
			if user != "" {
				r.SetBasicAuth(user, pass)
			}
			resp, err := e.srv.Client().Do(r)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode == 401 && resp.Header.Get("WWW-Authenticate") == "" {
				t.Errorf("401 without a basic-auth challenge")
			}
			return resp.StatusCode
		}
		for _, tt := range []struct {
			user, pass string
			code       int
		}{{"", "", 401}, {"ops", "wrong", 401}, {"root", "ops-password", 401}, {"ops", "ops-password", 200}} {
			for _, path := range []string{"/files", "/metrics", "/healthz"} {
				if got := req(path, tt.user, tt.pass); got != tt.code {
					t.Errorf("basic auth %q, %s: %d, want %d", tt.user, path, got, tt.code)
				}
			}
		}
	})
}

// TestConsoleHeldCap: with more held files than the dashboard lists, it
// counts them all, lists the oldest (nearest to failing) and links the
// rest to the held filter.
func TestConsoleHeldCap(t *testing.T) {
	e := newConsoleEnv(t, "")
	ctx := t.Context()
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	for i := range maxHeldShown + 1 {
		since := t0.Add(time.Duration(i) * time.Minute)
		if _, err := e.db.ClaimFile(ctx, journal.File{Inbox: "erp", Name: fmt.Sprintf("LATE_%02d.csv", i), State: journal.FileClaimed,
			ClaimedAt: since, HeldSince: since, WaitingFor: "SKU Z"}); err != nil {
			t.Fatal(err)
		}
	}
	_, body := e.do(t, nil, "GET", "/", nil, nil)
	total := maxHeldShown + 2 // ORDERS_7.csv of the env and the new ones
	for _, w := range []string{
		fmt.Sprintf(`<a class="held" href="/files?inbox=erp&amp;state=held">%d</a>`, total),
		"ORDERS_7.csv", fmt.Sprintf("LATE_%02d.csv", maxHeldShown-2),
		`<a href="/files?inbox=erp&amp;state=held">and 2 more held files</a>`,
	} {
		if !strings.Contains(body, w) {
			t.Errorf("the dashboard lacks %q:\n%s", w, body)
		}
	}
	for _, nw := range []string{fmt.Sprintf("LATE_%02d.csv", maxHeldShown-1), fmt.Sprintf("LATE_%02d.csv", maxHeldShown)} {
		if strings.Contains(body, nw) {
			t.Errorf("the dashboard lists %s, one of the newest holds beyond the %d shown", nw, maxHeldShown)
		}
	}
	if i, j := strings.Index(body, "ORDERS_7.csv"), strings.Index(body, "LATE_00.csv"); i < 0 || j < 0 || i > j {
		t.Errorf("the oldest hold is not listed first")
	}
}

// TestConsoleDocumentPages: a file's page shows its documents a hundred
// at a time; a failed file shows the documents not in the portal unless
// asked for all.
func TestConsoleDocumentPages(t *testing.T) {
	e := newConsoleEnv(t, "")
	ctx := t.Context()
	id, err := e.db.ClaimFile(ctx, journal.File{Inbox: "erp", Name: "ORDERS_BIG.csv", DocType: "sales_orders", State: journal.FileFailed,
		Rows: 250, DocsTotal: 250, DocsFailed: 30, FinalPath: "error/ORDERS_BIG.csv", ClaimedAt: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	var docs []journal.Document
	for i := range 250 {
		d := journal.Document{Key: fmt.Sprintf("O-%03d", i), Rows: fmt.Sprint(i + 2), Result: journal.ResultCreated}
		if i%25 == 3 || i >= 230 {
			d.Result, d.Message = journal.ResultInvalid, "shipTo.zipcode: is empty"
		}
		docs = append(docs, d)
	}
	if err := e.db.AddDocuments(ctx, id, docs); err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile(`<td>O-\d{3}</td>`)
	for _, tc := range []struct {
		name, query string
		want        []string
		rows        int
	}{
		{"problems by default", "", []string{"Documents not in the portal: 1–30 of 30", "show all documents", "O-003", "O-249"}, 30},
		{"all, first page", "?docs=all", []string{"All documents: 1–100 of 250", `rel="next"`, "show only those not in the portal"}, 100},
		{"all, last page", "?docs=all&page=3", []string{"All documents: 201–250 of 250", `rel="prev"`, "O-249"}, 50},
		{"past the end", "?docs=all&page=9", []string{"All documents: none on this page, 250 in all", "No documents."}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := e.do(t, nil, "GET", fmt.Sprintf("/files/%d%s", id, tc.query), nil, nil)
			if code != 200 {
				t.Fatalf("%d:\n%s", code, body)
			}
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("the page lacks %q", w)
				}
			}
			if n := len(rows.FindAllString(body, -1)); n != tc.rows {
				t.Errorf("the page shows %d documents, want %d", n, tc.rows)
			}
		})
	}
}

// TestConsoleInFlightAndTrouble: the dashboard shows an inbox's and a
// portal's trouble as a red badge with the reason, and each file in flight
// with its documents settled, the share and the time left.
func TestConsoleInFlightAndTrouble(t *testing.T) {
	e := newConsoleEnv(t, "")
	ctx := t.Context()
	id, err := e.db.ClaimFile(ctx, journal.File{Inbox: "erp", Name: "ORDERS_BIG.csv", DocType: "sales_orders", State: journal.FileSubmitting,
		Rows: 4, DocsTotal: 4, Path: "processing/ORDERS_BIG.csv", ClaimedAt: time.Now().Add(-time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.db.AddDocuments(ctx, id, []journal.Document{{Key: "O-1", Rows: "2"}, {Key: "O-2", Rows: "3"}, {Key: "O-3", Rows: "4"}, {Key: "O-4", Rows: "5"}}); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"O-1", "O-2"} {
		if err := e.db.SetResult(ctx, id, k, journal.ResultCreated, "/api/sales_orders/1", ""); err != nil {
			t.Fatal(err)
		}
	}
	code, body := e.do(t, nil, "GET", "/", nil, nil)
	if code != 200 {
		t.Fatalf("%d:\n%s", code, body)
	}
	for _, want := range []string{
		`<span class="badge bad inbox-trouble" title="the disk of the inbox folder is full">degraded</span>`,
		`<span class="badge bad portal-trouble" title="the portal refused the token">paused</span>`,
		`<table id="in-flight">`, `<a href="/files/` + fmt.Sprint(id) + `">ORDERS_BIG.csv</a>`,
		`<progress max="4" value="2"></progress> 50% <small>(2 of 4 documents)</small>`, "about 1 min",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the dashboard lacks %q", want)
		}
	}
	if strings.Contains(body, `ORDERS_7.csv</a></td><td><time`) {
		t.Error("a held file is listed in flight")
	}
}

func TestTimeLeft(t *testing.T) {
	for _, tc := range []struct {
		elapsed     time.Duration
		done, total int
		want        string
	}{
		{time.Minute, 0, 10, ""},
		{time.Minute, 10, 10, ""},
		{10 * time.Second, 5, 10, "about 10 s"},
		{time.Minute, 1, 4, "about 3 min"},
		{time.Hour, 1, 3, "about 2.0 h"},
	} {
		if got := timeLeft(tc.elapsed, tc.done, tc.total); got != tc.want {
			t.Errorf("timeLeft(%s, %d, %d) = %q, want %q", tc.elapsed, tc.done, tc.total, got, tc.want)
		}
	}
}

// parseAndOpen parses the configuration data (relative paths under dir)
// and opens its SQLite journal, closed when the test ends.
func parseAndOpen(t *testing.T, data, dir string) (*config.Config, *journal.DB) {
	t.Helper()
	cfg, err := config.Parse([]byte(data), dir)
	if err != nil {
		t.Fatal(err)
	}
	db, err := journal.Open(t.Context(), cfg.Journal.Path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return cfg, db
}
