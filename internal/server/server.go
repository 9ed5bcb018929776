// Package server is filebridge's small HTTP listener for operators and
// monitoring: /metrics in the Prometheus text format and /healthz, a JSON
// report of every portal and inbox that answers 200 while the daemon can do
// its work and 503 while it is degraded: a portal paused (for example
// because its token was refused) or unreachable, the journal not writable,
// or an inbox whose SFTP host key does not match. Every path answers
// under one access rule (Access): the console's credentials on a
// listener off loopback, requests naming this machine on loopback; only a
// details-free /healthz may be public, when configured.
package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Health is the body of GET /healthz.
type Health struct {
	// Status is "ok" or "degraded" (a portal is paused or unreachable, the
	// journal cannot be written, or an inbox is in trouble).
	Status string `json:"status"`
	// Time is when the report was made (UTC), by the HealthFunc's clock.
	Time time.Time `json:"time"`
	// Journal is the journal's state: "ok", or "degraded" with the reason
	// while it cannot be written (the inboxes are paused then).
	Journal  *JournalHealth          `json:"journal,omitempty"`
	Portals  map[string]PortalHealth `json:"portals"`
	Inboxes  map[string]InboxHealth  `json:"inboxes"`
	Outboxes map[string]OutboxHealth `json:"outboxes,omitempty"`
}

// JournalHealth is the state of the journal.
type JournalHealth struct {
	Path   string     `json:"path"`
	Status string     `json:"status"`
	Reason string     `json:"reason,omitempty"`
	Since  *time.Time `json:"since,omitempty"`
}

// PortalHealth is the state of one portal (tenant).
type PortalHealth struct {
	Edition string `json:"edition,omitempty"`
	// Status is "ok", "paused" (requests stopped, e.g. token refused) or
	// "unreachable" (its last calls failed after their retries).
	Status string `json:"status"`
	// Reason says why the portal is paused and what to do.
	Reason string     `json:"reason,omitempty"`
	Since  *time.Time `json:"since,omitempty"`
}

// InboxHealth is the state of one inbox, as the inbox reports it.
type InboxHealth struct {
	Portal string `json:"portal"`
	// Status is "ok", or "degraded" with the reason while its folder has a
	// problem that is not an ordinary outage (an SFTP host key that does
	// not match).
	Status      string     `json:"status,omitempty"`
	Reason      string     `json:"reason,omitempty"`
	ReasonSince *time.Time `json:"reason_since,omitempty"`
	// LastRound is the inbox's last finished round (absent before the
	// first); RoundSince is when the round under way started.
	LastRound  *RoundHealth `json:"last_round,omitempty"`
	RoundSince *time.Time   `json:"round_since,omitempty"`
	// Queue is how many files wait: seen in the inbox and not settled yet,
	// or claimed in processing/ and not finished.
	Queue int `json:"queue"`
	// Retrying is how many files the last round left in processing/ after
	// a transient failure or a refused token; NextRetry is when the next
	// round may run.
	Retrying  int        `json:"retrying"`
	NextRetry *time.Time `json:"next_retry,omitempty"`
	// LastError is the inbox's last error (of a round or of its folder)
	// and LastErrorAt when it happened.
	LastError   string     `json:"last_error,omitempty"`
	LastErrorAt *time.Time `json:"last_error_at,omitempty"`
	// Processed (done or duplicate) and Failed count the files the journal
	// holds, all rounds together.
	Processed int `json:"processed"`
	Failed    int `json:"failed"`
	// Held lists the files waiting in processing/ for master data not on
	// the portal yet, and the codes they wait for.
	Held []HeldHealth `json:"held,omitempty"`
	// Ignored lists the entries of the inbox folder that are not taken (no
	// route matches, unsafe name, link leading outside), with the reason.
	Ignored []IgnoredHealth `json:"ignored,omitempty"`
}

// IgnoredHealth is an entry of an inbox folder that is not taken.
type IgnoredHealth struct {
	File   string    `json:"file"`
	Reason string    `json:"reason"`
	Since  time.Time `json:"since"`
}

// HeldHealth is a file held for missing master data.
type HeldHealth struct {
	File       string    `json:"file"`
	Since      time.Time `json:"since"`
	Until      time.Time `json:"until"`
	WaitingFor []string  `json:"waiting_for"`
}

// RoundHealth sums up one finished round of an inbox.
type RoundHealth struct {
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended"`
	// Processed counts the files the round finished in processed/ (done
	// or duplicate), Failed those it moved to error/, Retrying those it
	// left in processing/ for a retry.
	Processed int `json:"processed"`
	Failed    int `json:"failed"`
	Retrying  int `json:"retrying"`
	// Error is why the round stopped early.
	Error string `json:"error,omitempty"`
}

// OutboxHealth is the state of one outbox's exports.
type OutboxHealth struct {
	Portal string `json:"portal"`
	// Status is "degraded" with the reason while the last export failed
	// for a reason other than the portal (its folder full or
	// unreachable); empty otherwise.
	Status  string     `json:"status,omitempty"`
	Reason  string     `json:"reason,omitempty"`
	LastRun *time.Time `json:"last_run,omitempty"`
	// LastError is the error of the most recent failed export run.
	LastError string `json:"last_error,omitempty"`
}

// Values of the Status fields.
const (
	StatusOK          = "ok"
	StatusDegraded    = "degraded"
	StatusPaused      = "paused"
	StatusUnreachable = "unreachable"
)

// Healthy reports whether nothing is degraded: every portal ok, the
// journal writable, no inbox in trouble, no outbox whose last export
// failed on its folder.
func (h Health) Healthy() bool {
	for _, p := range h.Portals {
		if p.Status != StatusOK && p.Status != "" {
			return false
		}
	}
	if h.Journal != nil && h.Journal.Status == StatusDegraded {
		return false
	}
	for _, in := range h.Inboxes {
		if in.Status == StatusDegraded {
			return false
		}
	}
	for _, out := range h.Outboxes {
		if out.Status == StatusDegraded {
			return false
		}
	}
	return true
}

// HealthFunc builds the current health report.
type HealthFunc func(ctx context.Context) Health

// Access is the one access rule of /metrics and /healthz, the same as the
// console's pages.
type Access struct {
	// Allowed reports whether a request may read /metrics and the full
	// /healthz (the console's check: token, login cookie or basic-auth
	// user); nil allows only requests naming this machine (LoopbackHost),
	// the rule of a loopback listener without credentials.
	Allowed func(*http.Request) bool
	// Challenge is the WWW-Authenticate header of a refusal ("": none).
	Challenge string
	// PublicHealth lets a request without credentials read /healthz with
	// its status only ({"status":"ok"} or "degraded", 200 or 503): for a
	// load balancer's or orchestrator's probe. Names, URLs and errors stay
	// behind the rule.
	PublicHealth bool
}

func (a Access) allowed(r *http.Request) bool {
	if a.Allowed == nil {
		return LoopbackHost(r.Host)
	}
	return a.Allowed(r)
}

func (a Access) refuse(w http.ResponseWriter) {
	if a.Challenge != "" {
		w.Header().Set("WWW-Authenticate", a.Challenge)
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Error(w, "Unauthorized: send the console's access token (Authorization: Bearer) or a [[server.users]] login", http.StatusUnauthorized)
}

// LoopbackHost reports whether a request's Host names this machine
// (localhost or a loopback address): a page elsewhere whose name was
// re-pointed at 127.0.0.1 (DNS rebinding) does not.
func LoopbackHost(hostport string) bool {
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

// Handler serves /metrics from gatherer and /healthz from health, both
// under access. Each mount registers more routes (the web console, which
// checks the same rule); without any, GET / says where to look.
func Handler(gatherer prometheus.Gatherer, health HealthFunc, access Access, mounts ...func(*http.ServeMux)) http.Handler {
	mux := http.NewServeMux()
	metrics := promhttp.HandlerFor(gatherer, promhttp.HandlerOpts{})
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		if !access.allowed(r) {
			access.refuse(w)
			return
		}
		metrics.ServeHTTP(w, r)
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		full := access.allowed(r)
		if !full && !access.PublicHealth {
			access.refuse(w)
			return
		}
		h := health(r.Context())
		code := http.StatusOK
		h.Status = StatusOK
		if !h.Healthy() {
			code = http.StatusServiceUnavailable
			h.Status = StatusDegraded
		}
		var body any = h
		if !full {
			body = struct {
				Status string `json:"status"`
			}{h.Status}
		}
		b, err := json.MarshalIndent(body, "", "  ")
		if err != nil {
			http.Error(w, "encoding the health report: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(code)
		_, _ = w.Write(append(b, '\n'))
	})
	for _, mount := range mounts {
		mount(mux)
	}
	if len(mounts) == 0 {
		mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_, _ = fmt.Fprintln(w, "filebridge: see /metrics and /healthz")
		})
	}
	return mux
}

// Server is a started listener.
type Server struct {
	srv  *http.Server
	ln   net.Listener
	done chan error
}

// Start listens on addr (host:port) and serves h in the background until
// Shutdown. A port already in use is reported at once.
func Start(ctx context.Context, addr string, h http.Handler, log *slog.Logger) (*Server, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening for /metrics and /healthz on %s: %w; set server.listen to a free host:port, or to \"\" to turn the server off", addr, err)
	}
	s := &Server{
		srv: &http.Server{
			Handler:           h,
			ReadHeaderTimeout: 10 * time.Second,
			BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
		},
		ln:   ln,
		done: make(chan error, 1),
	}
	go func() {
		err := s.srv.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		s.done <- err
	}()
	log.Info("serving the console, /metrics and /healthz", "console", "http://"+ln.Addr().String()+"/", "addr", ln.Addr().String())
	return s, nil
}

// Shutdown stops accepting connections and waits for requests in flight
// until ctx is done.
func (s *Server) Shutdown(ctx context.Context) error {
	if err := s.srv.Shutdown(ctx); err != nil {
		_ = s.srv.Close()
		return fmt.Errorf("stopping the metrics server: %w", err)
	}
	if err := <-s.done; err != nil {
		return fmt.Errorf("serving /metrics and /healthz: %w", err)
	}
	return nil
}
