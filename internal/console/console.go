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
// them. Actions are POSTs with a CSRF token bound to the browser's session
// cookie and pass Go's cross-origin protection. The console never shows a
// secret.
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
	// RunExport runs an export now (since not zero: everything from since
	// on again, leaving the cursor alone) and says what it wrote.
	RunExport func(ctx context.Context, outbox, export string, since time.Time) (ExportDone, error)
	// Open reads a file of an inbox folder (path relative to it).
	Open func(ctx context.Context, inbox, path string) (io.ReadCloser, error)
	// OpenExport reads a file of an outbox folder (path relative to it).
	OpenExport func(ctx context.Context, outbox, path string) (io.ReadCloser, error)
	// Resend writes the file of export run id into its outbox again and
	// returns the name it was written under.
	Resend func(ctx context.Context, id int64) (string, error)
	// Location is the operator's time zone (default time.Local).
	Location *time.Location
	Now      func() time.Time
	Logger   *slog.Logger
}

// Console serves the pages and actions.
type Console struct {
	d     Deps
	pages map[string]*template.Template
	key   []byte // per process: signs the login cookie and the CSRF tokens
	auth  bool
	cop   *http.CrossOriginProtection
}

// cookieName is the login cookie set by the token login; sessionCookie
// holds the random id of a browser's session, which the login cookie and
// the CSRF tokens are bound to.
const (
	cookieName    = "filebridge_console"
	sessionCookie = "filebridge_session"
)

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
	files := http.StripPrefix("/assets/", http.FileServerFS(assets))
	mux.Handle("/assets/{name}", c.serve(http.MethodGet, false, func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Cache-Control", "max-age=3600")
		files.ServeHTTP(w, r)
		return nil
	}))
	mux.Handle("/login", http.HandlerFunc(c.login))
	mux.Handle("/{$}", c.serve(http.MethodGet, true, c.dashboard))
	mux.Handle("/files", c.serve(http.MethodGet, true, c.files))
	mux.Handle("/files/{id}", c.serve(http.MethodGet, true, c.file))
	mux.Handle("/files/{id}/download/{kind}", c.serve(http.MethodGet, true, c.download))
	mux.Handle("/files/{id}/replay", c.serve(http.MethodPost, true, c.replay))
	mux.Handle("/files/{id}/ack", c.serve(http.MethodPost, true, c.acknowledge))
	mux.Handle("/exports/{outbox}/{export}/run", c.serve(http.MethodPost, true, c.runExport))
	mux.Handle("/api/exports/{outbox}/{export}/run", http.HandlerFunc(c.apiRunExport))
	mux.Handle("/exports", c.serve(http.MethodGet, true, c.exportsPage))
	mux.Handle("/exports/runs/{id}/download", c.serve(http.MethodGet, true, c.downloadExport))
	mux.Handle("/exports/runs/{id}/resend", c.serve(http.MethodPost, true, c.resend))
}

// errNotFound makes serve answer a 404, as for an unknown path.
var errNotFound = errors.New("not found")

// serve serves one method (GET answers HEAD too; any other method is a
// 404 like an unknown path), behind the access check when guarded. An
// action (POST) must also come from the same origin with the CSRF token
// of its session. An error h returns is an error page (500), or a 404
// for errNotFound.
func (c *Console) serve(method string, guarded bool, h func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != method && (method != http.MethodGet || r.Method != http.MethodHead) {
			http.NotFound(w, r)
			return
		}
		if guarded && !c.allowed(r) {
			c.unauthorized(w, r)
			return
		}
		if method == http.MethodPost && (c.cop.Check(r) != nil || !c.csrfOK(r)) {
			http.Error(w, "Forbidden: the form is stale or came from another site; reload the page and try again", http.StatusForbidden)
			return
		}
		secureHeaders(w)
		switch err := h(w, r); {
		case errors.Is(err, errNotFound):
			http.NotFound(w, r)
		case err != nil:
			c.fail(w, r, http.StatusInternalServerError, err)
		}
	})
}

// csrfOK checks the form's CSRF token against the one of the request's
// session: a token taken from another session's page is refused.
func (c *Console) csrfOK(r *http.Request) bool {
	sid := sessionID(r)
	return sid != "" && equal(r.PostFormValue("csrf"), c.sign("csrf:"+sid))
}

// sessionID is the id in the request's session cookie ("" without one).
func sessionID(r *http.Request) string {
	ck, err := r.Cookie(sessionCookie)
	if err != nil || len(ck.Value) != 2*sessionIDBytes {
		return ""
	}
	if _, err := hex.DecodeString(ck.Value); err != nil {
		return ""
	}
	return ck.Value
}

const sessionIDBytes = 32

// session returns the request's session id, or starts a new session (a
// random id in a cookie set on w) when it has none or fresh is set.
func (c *Console) session(w http.ResponseWriter, r *http.Request, fresh bool) (string, error) {
	if sid := sessionID(r); sid != "" && !fresh {
		return sid, nil
	}
	b := make([]byte, sessionIDBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("starting a console session: %w", err)
	}
	sid := hex.EncodeToString(b)
	setCookie(w, r, sessionCookie, sid)
	return sid, nil
}

func setCookie(w http.ResponseWriter, r *http.Request, name, value string) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: "/",
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
}

// loginValue is the login cookie of session sid: a signature of the
// session and the token, never the token.
func (c *Console) loginValue(sid, tok string) string {
	return c.sign("session:" + sid + "\x00" + tok)
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
		return server.LoopbackHost(r.Host)
	}
	if tok := c.d.Config.Server.Token.Value(); tok != "" {
		if bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && equal(bearer, tok) {
			return true
		}
		if ck, err := r.Cookie(cookieName); err == nil && sessionID(r) != "" && equal(ck.Value, c.loginValue(sessionID(r), tok)) {
			return true
		}
	}
	return c.basicUser(r) != ""
}

// basicUser is the [[server.users]] login the request's basic auth
// matches ("" none).
func (c *Console) basicUser(r *http.Request) string {
	if name, pass, ok := r.BasicAuth(); ok {
		for _, u := range c.d.Config.Server.Users {
			if equal(name, u.Name) && equal(pass, u.Password.Value()) {
				return u.Name
			}
		}
	}
	return ""
}

// Access is the console's access rule for the server's other paths
// (/metrics, /healthz): the same credentials as its pages; publicHealth
// lets probes read /healthz's status without them.
func (c *Console) Access(publicHealth bool) server.Access {
	a := server.Access{Allowed: c.allowed, PublicHealth: publicHealth}
	switch {
	case len(c.d.Config.Server.Users) > 0:
		a.Challenge = `Basic realm="filebridge", charset="UTF-8"`
	case !c.d.Config.Server.Token.IsZero():
		a.Challenge = `Bearer realm="filebridge"`
	}
	return a
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

// login takes the access token from a form, starts a new session and sets
// the login cookie bound to it.
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
		sid, err := c.session(w, r, true)
		if err != nil {
			c.fail(w, r, http.StatusInternalServerError, err)
			return
		}
		setCookie(w, r, cookieName, c.loginValue(sid, tok))
		http.Redirect(w, r, "/", http.StatusSeeOther)
	}
}

// render executes a page with the CSRF token of the request's session
// (started here when it has none); an error while rendering is logged
// (the status is already sent).
func (c *Console) render(w http.ResponseWriter, r *http.Request, status int, page string, data map[string]any) {
	t, ok := c.pages[page]
	if !ok {
		http.Error(w, "no page "+page, http.StatusInternalServerError)
		return
	}
	sid, err := c.session(w, r, false)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	data["CSRF"] = c.sign("csrf:" + sid)
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
	for _, p := range []string{"dashboard", "files", "file", "exports", "login", "error"} {
		t, err := template.New(p).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+p+".html")
		if err != nil {
			return nil, fmt.Errorf("console: parsing the %s page: %w", p, err)
		}
		pages[p] = t
	}
	return pages, nil
}
