package app_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"filebridge/internal/app"
	"filebridge/internal/inbox"
	"filebridge/internal/portal"
	"filebridge/internal/portalsim"
	"filebridge/internal/server"
	"filebridge/internal/testkit"
)

// watchEnv is a daemon on the config of setup whose portal is a simulator
// accepting token (the config sends demo-token), served until stopPortal.
type watchEnv struct {
	d          *app.Daemon
	sim        *portalsim.Sim
	stopPortal func()
}

func newWatchEnv(t *testing.T, token string, probe time.Duration) *watchEnv {
	t.Helper()
	cfg := setup(t, "in", "out")
	sim, srv := testkit.Sim(t, portalsim.Options{Edition: portalsim.EditionA, Seed: 7, Token: token})
	cfg.Portals["main"].BaseURL = srv.URL + "/api"
	cfg.Portals["main"].MaxRetries = 4
	cfg.Portals["main"].RetryMaxWait.Duration = 10 * time.Second
	cfg.Server.Listen = "" // the report is read from the daemon
	d, err := app.Open(context.Background(), cfg, discard(), app.Options{Inbox: inbox.Options{SkipSettle: true}, HealthProbe: probe})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return &watchEnv{d: d, sim: sim, stopPortal: srv.Close}
}

// run runs the daemon until the test ends.
func (e *watchEnv) run(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.d.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
}

// waitPortal waits until the health report shows portal main in status,
// and returns it.
func (e *watchEnv) waitPortal(t *testing.T, status string) server.PortalHealth {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		h := e.d.HealthReport(context.Background())
		if p := h.Portals["main"]; p.Status == status {
			if h.Healthy() != (status == server.StatusOK) {
				t.Errorf("portal %s but the report says healthy %v", status, h.Healthy())
			}
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("portal main not %s within 10s: %+v", status, h.Portals["main"])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// portalStatus checks filebridge_portal_status of portal main on
// /metrics: 1 for status, 0 for the others.
func (e *watchEnv) portalStatus(t *testing.T, status string) {
	t.Helper()
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(e.d.Registry, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for _, s := range []string{"ok", "paused", "unreachable"} {
		v := 0
		if s == status {
			v = 1
		}
		if line := fmt.Sprintf("filebridge_portal_status{portal=\"main\",status=%q} %d\n", s, v); !strings.Contains(rec.Body.String(), line) {
			t.Errorf("/metrics lacks %s", line)
		}
	}
}

// TestHealthProbe: with the inbox idle (no file comes), the daemon's
// health probe shows a portal that went down as unreachable, one that
// refuses the token as paused, on the health report (/healthz, the
// console) and in filebridge_portal_status, and clears it once the portal
// answers. The probe interval is configured short instead of waiting 30 s.
func TestHealthProbe(t *testing.T) {
	t.Run("portal down", func(t *testing.T) {
		e := newWatchEnv(t, "", 20*time.Millisecond)
		e.run(t)
		// Observed: the probe reached the portal while it was up.
		testkit.Eventually(t, 10*time.Second, "the health probe asking the portal", func() bool { return e.sim.Stats().Requests > 0 })
		e.waitPortal(t, server.StatusOK)
		e.stopPortal()
		p := e.waitPortal(t, server.StatusUnreachable)
		if !strings.Contains(p.Reason, "connection refused") || !strings.Contains(p.Reason, "nothing listens there") || p.Since == nil {
			t.Errorf("reason %q since %v, want the refused connection, its hint and since when", p.Reason, p.Since)
		}
		e.portalStatus(t, "unreachable")
		// The same on /healthz and on the console's dashboard.
		srv := serveConsole(t, e.d)
		resp, err := http.Get(srv.URL + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), `"status": "unreachable"`) {
			t.Errorf("/healthz: %d\n%s", resp.StatusCode, body)
		}
		if page := getPage(t, srv, "/"); !strings.Contains(page, `<span class="badge bad portal-trouble" title="`) || !strings.Contains(page, `">unreachable</span>`) {
			t.Errorf("the dashboard does not show the portal unreachable:\n%s", page)
		}
	})
	t.Run("token refused", func(t *testing.T) {
		e := newWatchEnv(t, "another-token", 20*time.Millisecond)
		e.run(t)
		p := e.waitPortal(t, server.StatusPaused)
		if !strings.Contains(p.Reason, "401") || !strings.Contains(p.Reason, "check token_env/token_file of [portals.main]") {
			t.Errorf("reason %q, want the 401 and what to check", p.Reason)
		}
		e.portalStatus(t, "paused")
	})
}

// TestConnectFailureMarksAtOnce: a request whose connection fails marks
// the portal unreachable at that first attempt, while the client still
// retries it (4 retries, up to 10 s apart), not once they are spent; the
// next answer clears it.
func TestConnectFailureMarksAtOnce(t *testing.T) {
	e := newWatchEnv(t, "", time.Hour) // no probe: the request's own attempt marks it
	e.stopPortal()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := e.d.Portals["main"].Page(ctx, portal.Connections, url.Values{"page": {"1"}})
		done <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	for e.d.HealthReport(ctx).Portals["main"].Status != server.StatusUnreachable {
		select {
		case err := <-done:
			t.Fatalf("the request ended (%v) before the portal was marked unreachable", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the portal was not marked unreachable within 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case err := <-done:
		t.Fatalf("the request's retries were spent (%v) before the mark was seen; it must come at the first attempt", err)
	default:
	}
}
