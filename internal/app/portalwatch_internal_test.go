package app

import (
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"filebridge/internal/inbox"
	"filebridge/internal/model"
	"filebridge/internal/portal"
	"filebridge/internal/portalsim"
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
		Logger: slog.New(slog.DiscardHandler), HTTPClient: &http.Client{Transport: w.Transport("main", http.DefaultTransport.(*http.Transport).Clone())}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return sim, w, c
}
