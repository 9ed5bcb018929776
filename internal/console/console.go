// Package console is filebridge's web console, served by `run` beside
// /metrics and /healthz: a dashboard of the inboxes, portals and exports, the
// journal's files with filters and paging, each file's documents, messages
// and downloads, and two actions, replay a file and run an export now.
//
// Pages are server-rendered with html/template from embedded templates and
// assets; there is no JavaScript build chain (one small script turns times
// into the browser's zone). Bound to a loopback address the console is open
// to the machine's users; bound anywhere else the configuration requires
// [server] token_env or [[server.users]], and every page and action checks
// them. Actions are POSTs with a CSRF token and pass Go's cross-origin
// protection. The console never shows a secret.
package console

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"filebridge/internal/config"
	"filebridge/internal/journal"
	"filebridge/internal/server"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

// Deps are what the console reads and acts on. Config and Journal are
// required; an action whose function is nil is not offered.
type Deps struct {
	Config  *config.Config
	Journal *journal.DB
	// Health is the daemon's live report (portal pauses, inbox queues,
	// held and ignored files).
	Health server.HealthFunc
	// Limits are the concurrency limits each portal's client runs at now
	// (the adaptive limiter's, at most the configured concurrency).
	Limits func() map[string]int
	// Replay puts file id back through its inbox (force: a processed or
	// duplicate file too) and returns the name it was put back under.
	Replay func(ctx context.Context, id int64, force bool) (string, error)
	// RunExport runs an export now and describes what it wrote.
	RunExport func(ctx context.Context, outbox, export string) (string, error)
	// Open reads a file of an inbox folder (path relative to it).
	Open func(ctx context.Context, inbox, path string) (io.ReadCloser, error)
	// Location is the operator's time zone (default time.Local).
	Location *time.Location
	Now      func() time.Time
	Logger   *slog.Logger
}

// Console serves the pages and actions.
type Console struct {
	d     Deps
	pages map[string]*template.Template
	key   []byte // per process: signs the session cookie and the CSRF token
	csrf  string
	auth  bool
	cop   *http.CrossOriginProtection
}

// cookieName is the session cookie set by the token login.
const cookieName = "filebridge_console"

// New builds the console.
func New(d Deps) (*Console, error) {
	if d.Config == nil || d.Journal == nil {
		return nil, errors.New("console: the config and the journal are required")
	}
	if d.Location == nil {
		d.Location = time.Local
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	c := &Console{d: d, key: make([]byte, 32), cop: http.NewCrossOriginProtection()}
	if _, err := rand.Read(c.key); err != nil {
		return nil, fmt.Errorf("console: making its key: %w", err)
	}
	c.csrf = c.sign("csrf")
	c.auth = !d.Config.Server.Token.IsZero() || len(d.Config.Server.Users) > 0
	pages, err := parsePages(c.funcs())
	if err != nil {
		return nil, err
	}
	c.pages = pages
	return c, nil
}

func (c *Console) sign(what string) string {
	m := hmac.New(sha256.New, c.key)
	m.Write([]byte(what))
	return hex.EncodeToString(m.Sum(nil))
}

// Mount registers the console's routes on mux (the server's, beside
// /metrics and /healthz). Every other path stays a 404.
func (c *Console) Mount(mux *http.ServeMux) {
	assets, _ := fs.Sub(assetFS, "assets")
	files := http.FileServerFS(assets)
	mux.Handle("/assets/{name}", c.get(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=3600")
		http.StripPrefix("/assets/", files).ServeHTTP(w, r)
	}, false))
	mux.Handle("/login", http.HandlerFunc(c.login))
	mux.Handle("/{$}", c.get(c.dashboard, true))
	mux.Handle("/files", c.get(c.files, true))
	mux.Handle("/files/{id}", c.get(c.file, true))
	mux.Handle("/files/{id}/download/{kind}", c.get(c.download, true))
	mux.Handle("/files/{id}/replay", c.post(c.replay))
	mux.Handle("/files/{id}/ack", c.post(c.acknowledge))
	mux.Handle("/exports/{outbox}/{export}/run", c.post(c.runExport))
}

// get serves GET (and HEAD) only, behind the access check when guarded;
// other methods are a 404 like an unknown path.
func (c *Console) get(h http.HandlerFunc, guarded bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.NotFound(w, r)
			return
		}
		if guarded && !c.allowed(r) {
			c.unauthorized(w, r)
			return
		}
		secureHeaders(w)
		h(w, r)
	})
}

// post serves an action: POST only, access checked, same origin, CSRF
// token checked.
func (c *Console) post(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		if !c.allowed(r) {
			c.unauthorized(w, r)
			return
		}
		if err := c.cop.Check(r); err != nil || !c.csrfOK(r) {
			http.Error(w, "Forbidden: the form is stale or came from another site; reload the page and try again", http.StatusForbidden)
			return
		}
		secureHeaders(w)
		h(w, r)
	})
}

func (c *Console) csrfOK(r *http.Request) bool {
	got := r.PostFormValue("csrf")
	return subtle.ConstantTimeCompare([]byte(got), []byte(c.csrf)) == 1
}

func secureHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}

// allowed checks the access token (a Bearer header or the login cookie) or
// a basic-auth user. Without either configured (a loopback listener)
// everyone on the machine is allowed.
func (c *Console) allowed(r *http.Request) bool {
	if !c.auth {
		// Open only on a loopback listener, and only to requests naming
		// this machine: a page elsewhere whose name was re-pointed at
		// 127.0.0.1 (DNS rebinding) gets nothing.
		return loopbackHost(r.Host)
	}
	s := c.d.Config.Server
	if tok := s.Token.Value(); tok != "" {
		if h := r.Header.Get("Authorization"); len(h) > 7 && h[:7] == "Bearer " && equal(h[7:], tok) {
			return true
		}
		if ck, err := r.Cookie(cookieName); err == nil && equal(ck.Value, c.sign("session:"+tok)) {
			return true
		}
	}
	if user, pass, ok := r.BasicAuth(); ok {
		for _, u := range s.Users {
			if equal(user, u.Name) && equal(pass, u.Password.Value()) {
				return true
			}
		}
	}
	return false
}

func loopbackHost(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

func equal(a, b string) bool {
	return b != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// unauthorized answers 401: with the token login form when a token is
// configured, with a basic-auth challenge when users are.
func (c *Console) unauthorized(w http.ResponseWriter, r *http.Request) {
	if len(c.d.Config.Server.Users) > 0 {
		w.Header().Set("WWW-Authenticate", `Basic realm="filebridge", charset="UTF-8"`)
	}
	secureHeaders(w)
	if c.d.Config.Server.Token.IsZero() {
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
		return
	}
	c.render(w, r, http.StatusUnauthorized, "login", map[string]any{"Failed": r.Method == http.MethodPost})
}

// login takes the access token from a form and sets the session cookie
// (it holds a signature of the token, never the token).
func (c *Console) login(w http.ResponseWriter, r *http.Request) {
	tok := c.d.Config.Server.Token.Value()
	switch {
	case tok == "":
		http.NotFound(w, r)
	case r.Method == http.MethodGet:
		secureHeaders(w)
		c.render(w, r, http.StatusOK, "login", map[string]any{})
	case r.Method != http.MethodPost:
		http.NotFound(w, r)
	case c.cop.Check(r) != nil || !c.csrfOK(r) || !equal(r.PostFormValue("token"), tok):
		c.d.Logger.Warn("console: refused a login", "remote", r.RemoteAddr)
		c.unauthorized(w, r)
	default:
		http.SetCookie(w, &http.Cookie{Name: cookieName, Value: c.sign("session:" + tok), Path: "/",
			HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
		http.Redirect(w, r, "/", http.StatusSeeOther)
	}
}

// render executes a page; an error while rendering is logged (the status
// is already sent).
func (c *Console) render(w http.ResponseWriter, _ *http.Request, status int, page string, data map[string]any) {
	t, ok := c.pages[page]
	if !ok {
		http.Error(w, "no page "+page, http.StatusInternalServerError)
		return
	}
	data["CSRF"] = c.csrf
	data["Auth"] = c.auth
	data["Now"] = c.d.Now()
	data["Zone"] = c.d.Now().In(c.d.Location).Format("MST")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if err := t.ExecuteTemplate(w, "layout", data); err != nil {
		c.d.Logger.Error("console: rendering a page", "page", page, "error", err)
	}
}

// fail shows an error page: what went wrong and what to do.
func (c *Console) fail(w http.ResponseWriter, r *http.Request, status int, err error) {
	if status >= 500 {
		c.d.Logger.Error("console", "path", r.URL.Path, "error", err)
	}
	c.render(w, r, status, "error", map[string]any{"Title": http.StatusText(status), "Error": err.Error()})
}

func parsePages(funcs template.FuncMap) (map[string]*template.Template, error) {
	pages := map[string]*template.Template{}
	for _, p := range []string{"dashboard", "files", "file", "login", "error"} {
		t, err := template.New(p).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+p+".html")
		if err != nil {
			return nil, fmt.Errorf("console: parsing the %s page: %w", p, err)
		}
		pages[p] = t
	}
	return pages, nil
}
