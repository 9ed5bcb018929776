package app

import (
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"filebridge/internal/inbox"
	"filebridge/internal/model"
	"filebridge/internal/portal"
	"filebridge/internal/portalsim"
	"filebridge/internal/server"
	"filebridge/internal/testkit"
)

// TestProbeOnlyWhenIdle: on an injected clock, the health probe asks a
// portal only when no request to it succeeded within the interval: not 10
// s after an answer, and at 30 s; each probe is one request.
func TestProbeOnlyWhenIdle(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 11, 26, 18, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	sim, w, c := watchedPortal(t, "", inbox.NewHealth(clock), clock)
	clients := map[string]*portal.Client{"main": c}

	// An ordinary request succeeds: the portal is not idle.
	if _, err := c.Page(t.Context(), portal.Connections, url.Values{"page": {"1"}}); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		after time.Duration
		sent  int // requests the probe sends
	}{
		{0, 0},
		{10 * time.Second, 0},
		{20 * time.Second, 1}, // 30 s after the answer
		{10 * time.Second, 0}, // 10 s after the probe's answer
		{30 * time.Second, 1},
	} {
		advance(step.after)
		before := sim.Stats().Requests
		w.probe(t.Context(), clients, DefaultHealthProbe) // returns once its request is answered
		if got := sim.Stats().Requests - before; got != step.sent {
			t.Errorf("at %s: the probe sent %d requests, want %d", clock().Format(time.TimeOnly), got, step.sent)
		}
	}
}

// TestProbeAnswerClearsOutage: a portal marked unreachable that answers
// the probe with a refused token is paused, and reachable: an answer of
// any kind ends the outage.
func TestProbeAnswerClearsOutage(t *testing.T) {
	h := inbox.NewHealth(time.Now)
	_, w, c := watchedPortal(t, "another-token", h, time.Now)
	h.Unreachable("main", errors.New("dial tcp: connection refused"))
	w.probe(t.Context(), map[string]*portal.Client{"main": c}, DefaultHealthProbe)
	if paused, _ := h.Paused("main"); !paused {
		t.Error("the portal refusing the token is not paused")
	}
	if h.Reachable("main") {
		t.Error("the portal answered the probe but was still marked unreachable")
	}
}

// watchedPortal starts a simulator of Edition A (expecting simToken,
// "demo-token" when "") and a client "main" sending "demo-token"
// through a portal watch on h and clock.
func watchedPortal(t *testing.T, simToken string, h *inbox.Health, clock func() time.Time) (*portalsim.Sim, *portalWatch, *portal.Client) {
	t.Helper()
	sim, srv := testkit.Sim(t, portalsim.Options{Edition: portalsim.EditionA, Seed: 3, Token: simToken})
	w := newPortalWatch(h, clock, slog.New(slog.DiscardHandler))
	c, err := portal.New(portal.Config{Edition: model.EditionA, BaseURL: srv.URL + "/api", Company: sim.Company(),
		Token: "demo-token", Concurrency: 2, Timeout: 10 * time.Second, RetryMaxWait: time.Second, ItemsPerPage: 10, ShipmentStatusFilter: "status.code",
		Logger: slog.New(slog.DiscardHandler), HTTPClient: &http.Client{Transport: portalTransport(server.NewAPIMetrics(prometheus.NewRegistry()), w)("main", http.DefaultTransport.(*http.Transport).Clone())}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return sim, w, c
}

// TestPortalTransportOneWrapper: a request of a daemon's portal client
// passes one wrapper of the project on its way to the HTTP transport
// (counted on the stack the transport runs on), which both measures it
// for /metrics and observes it for the portal's health.
func TestPortalTransportOneWrapper(t *testing.T) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer api.Close()
	reg := prometheus.NewRegistry()
	w := newPortalWatch(inbox.NewHealth(time.Now), time.Now, slog.New(slog.DiscardHandler))
	base := &wrapperCount{next: http.DefaultTransport.(*http.Transport).Clone()}
	c := &http.Client{Transport: portalTransport(server.NewAPIMetrics(reg), w)("main", base)}
	resp, err := c.Get(api.URL + "/api/connections")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if base.wrappers != 1 {
		t.Errorf("the request passed %d RoundTrip wrappers of filebridge, want 1", base.wrappers)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	measured := 0
	for _, f := range families {
		if f.GetName() == "filebridge_api_requests_total" {
			for _, m := range f.GetMetric() {
				measured += int(m.GetCounter().GetValue())
			}
		}
	}
	if measured != 1 {
		t.Errorf("filebridge_api_requests_total counts %d requests, want 1", measured)
	}
	if w.idle("main", time.Hour) {
		t.Error("the portal's 2xx was not observed for its health")
	}
}

// wrapperCount is an HTTP transport that counts the RoundTrip methods of
// filebridge's packages on the stack of the request it gets.
type wrapperCount struct {
	next     http.RoundTripper
	wrappers int
}

func (c *wrapperCount) RoundTrip(req *http.Request) (*http.Response, error) {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, "filebridge/internal/") && strings.HasSuffix(f.Function, ".RoundTrip") {
			c.wrappers++
		}
		if !more {
			break
		}
	}
	return c.next.RoundTrip(req)
}
