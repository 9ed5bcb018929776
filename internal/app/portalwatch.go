package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"filebridge/internal/inbox"
	"filebridge/internal/portal"
	"filebridge/internal/server"
)

// DefaultHealthProbe is how often the daemon asks a portal that no request
// reached successfully in that time for one connection, so that /healthz
// shows an outage or a refused token while no file comes.
const DefaultHealthProbe = 30 * time.Second

// probeTimeout bounds one health probe: a portal that does not answer
// within it is unreachable, so an outage shows within DefaultHealthProbe
// plus probeTimeout (40 s).
const probeTimeout = 10 * time.Second

// portalWatch keeps the portals' health current between files: it
// observes every request of a portal client (portalTransport), notes
// when the portal last answered 2xx (and clears a pause or an outage
// then) and marks the portal unreachable at the first connection that
// fails, not after the retries; probe asks an idle portal.
type portalWatch struct {
	health *inbox.Health
	now    func() time.Time
	log    *slog.Logger

	mu     sync.Mutex
	lastOK map[string]time.Time // by portal
}

func newPortalWatch(h *inbox.Health, now func() time.Time, log *slog.Logger) *portalWatch {
	return &portalWatch{health: h, now: now, log: log, lastOK: map[string]time.Time{}}
}

// portalTransport is the transport of the daemon's portal clients: base
// wrapped once, measured by api and observed by w.
func portalTransport(api *server.APIMetrics, w *portalWatch) func(portalName string, base http.RoundTripper) http.RoundTripper {
	return func(portalName string, base http.RoundTripper) http.RoundTripper {
		return api.Transport(portalName, base, w.observe)
	}
}

// observe updates the portal's health from the outcome of one of its
// requests (a server.Observer).
func (w *portalWatch) observe(portalName string, req *http.Request, resp *http.Response, err error) {
	switch {
	case err == nil && resp.StatusCode >= 200 && resp.StatusCode < 300:
		w.answered(portalName)
	case err == nil && resp.StatusCode < 500:
		w.reachable(portalName) // it answered, if not with a success
	case err != nil && req.Context().Err() == nil && connectFailed(err):
		w.unreachable(portalName, err)
	}
}

// connectFailed reports whether err is a connection that could not be
// made (refused, no route, unknown host, dial timeout): the request never
// reached the portal.
func connectFailed(err error) bool {
	var op *net.OpError
	var dns *net.DNSError
	return errors.As(err, &op) && op.Op == "dial" || errors.As(err, &dns)
}

// answered records a 2xx of the portal: it is reachable and takes the token.
func (w *portalWatch) answered(portalName string) {
	w.mu.Lock()
	w.lastOK[portalName] = w.now()
	w.mu.Unlock()
	w.reachable(portalName)
	if w.health.Resume(portalName) {
		w.log.Info("portal accepts the token again: submissions resumed", "portal", portalName)
	}
}

// reachable records that the portal answered.
func (w *portalWatch) reachable(portalName string) {
	if w.health.Reachable(portalName) {
		w.log.Info("portal reachable again", "portal", portalName)
	}
}

func (w *portalWatch) unreachable(portalName string, err error) {
	pe := &portal.Error{Err: err}
	hint := portal.Hint(pe, portalName)
	if hint != "" {
		err = fmt.Errorf("%w (%s)", err, hint)
	}
	if w.health.Unreachable(portalName, err) {
		w.log.Warn("portal unreachable: files wait and are retried", "portal", portalName, "error", err)
	}
}

// idle reports whether no request of the portal succeeded within every.
func (w *portalWatch) idle(portalName string, every time.Duration) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	last, ok := w.lastOK[portalName]
	return !ok || w.now().Sub(last) >= every
}

// probe asks each portal idle for every for its first connection (the
// cheapest documented call of both editions, as check does) with its
// client without retries: an answer clears its trouble (the transport),
// a refused token pauses it, any other failure marks it unreachable.
func (w *portalWatch) probe(ctx context.Context, clients map[string]*portal.Client, every time.Duration) {
	for name, c := range clients {
		if ctx.Err() != nil {
			return
		}
		if !w.idle(name, every) {
			continue
		}
		_, err := c.Page(ctx, portal.Connections, url.Values{"page": {"1"}, "itemsPerPage": {"1"}})
		switch {
		case err == nil || ctx.Err() != nil:
		case portal.IsAuth(err):
			if hint := portal.Hint(err, name); hint != "" {
				err = fmt.Errorf("%w (%s)", err, hint)
			}
			if w.health.Pause(name, err) {
				w.log.Error("portal refused the token (health probe): submissions to it wait until it accepts it", "portal", name, "error", err)
			}
		default:
			w.unreachable(name, fmt.Errorf("health probe: %w", err))
		}
	}
}

// run probes every tick until ctx ends.
func (w *portalWatch) run(ctx context.Context, tick <-chan time.Time, clients map[string]*portal.Client, every time.Duration) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
			w.probe(ctx, clients, every)
		}
	}
}

// portalStatusGauges export each portal's health as
// filebridge_portal_status{portal,status}: 1 for its status now (ok,
// paused or unreachable), 0 for the others.
func portalStatusGauges(portals []string, h *inbox.Health) []prometheus.Collector {
	var out []prometheus.Collector
	for _, name := range portals {
		for _, status := range []string{"ok", "paused", "unreachable"} {
			out = append(out, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name:        "filebridge_portal_status",
				Help:        "Health of a portal: 1 for its status now (ok, paused: token refused, unreachable), 0 for the others.",
				ConstLabels: prometheus.Labels{"portal": name, "status": status},
			}, func() float64 {
				if portalStatus(h, name) == status {
					return 1
				}
				return 0
			}))
		}
	}
	return out
}

// portalStatus is the health of the portal name: ok, paused or unreachable.
func portalStatus(h *inbox.Health, name string) string {
	for _, st := range h.Snapshot() {
		if st.Portal != name {
			continue
		}
		if st.Paused {
			return "paused"
		}
		return "unreachable"
	}
	return "ok"
}
