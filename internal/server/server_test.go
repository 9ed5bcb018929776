package server

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

func TestHealthz(t *testing.T) {
	tests := []struct {
		name   string
		health Health
		code   int
		status string
	}{
		{"ok", Health{Portals: map[string]PortalHealth{"main": {Status: StatusOK}}}, http.StatusOK, StatusOK},
		{"paused", Health{Portals: map[string]PortalHealth{
			"main":  {Status: StatusOK},
			"other": {Status: StatusPaused, Reason: "401 Unauthorized: check token_env"},
		}}, http.StatusServiceUnavailable, StatusDegraded},
		{"no portals", Health{}, http.StatusOK, StatusOK},
		{"portal unreachable", Health{Portals: map[string]PortalHealth{
			"main": {Status: StatusUnreachable, Reason: "unreachable: dial tcp: connection refused"},
		}}, http.StatusServiceUnavailable, StatusDegraded},
		{"journal not writable", Health{Journal: &JournalHealth{Status: StatusDegraded, Reason: "the journal is not writable"}},
			http.StatusServiceUnavailable, StatusDegraded},
		{"journal ok", Health{Journal: &JournalHealth{Status: StatusOK}}, http.StatusOK, StatusOK},
		{"host key mismatch", Health{Inboxes: map[string]InboxHealth{
			"edi": {Status: StatusDegraded, Reason: "SFTP host key mismatch, possibly an attack"},
			"erp": {Status: StatusOK},
		}}, http.StatusServiceUnavailable, StatusDegraded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := Handler(prometheus.NewRegistry(), func(context.Context) Health { return tt.health }, Access{})
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://127.0.0.1:9464/healthz", nil))
			if rec.Code != tt.code {
				t.Errorf("got %d, want %d", rec.Code, tt.code)
			}
			var got Health
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatalf("decoding %s: %v", rec.Body, err)
			}
			if got.Status != tt.status {
				t.Errorf("status %q, want %q", got.Status, tt.status)
			}
		})
	}
}

func TestAPIMetrics(t *testing.T) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/42") {
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer api.Close()
	reg := prometheus.NewRegistry()
	m := NewAPIMetrics(reg)
	clock := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	m.now = func() time.Time { // every request takes 1.5s on this clock
		clock = clock.Add(1500 * time.Millisecond)
		return clock
	}
	c := &http.Client{Transport: m.Transport("main", nil, nil)}
	for _, p := range []string{"/api/sales_orders", "/api/sales_orders/42"} {
		resp, err := c.Get(api.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	srv, err := Start(t.Context(), "127.0.0.1:0", Handler(reg, func(context.Context) Health { return Health{} }, Access{}), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	resp, err := http.Get("http://" + srv.ln.Addr().String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, want := range []string{
		`filebridge_api_requests_total{code="200",method="GET",portal="main",resource="sales_orders"} 1`,
		`filebridge_api_requests_total{code="429",method="GET",portal="main",resource="sales_orders"} 1`,
		`filebridge_api_errors_total{kind="throttled",portal="main"} 1`,
		`filebridge_api_request_duration_seconds_count{method="GET",portal="main",resource="sales_orders"} 2`,
		`filebridge_api_request_duration_seconds_sum{method="GET",portal="main",resource="sales_orders"} 3`,
		`filebridge_api_request_duration_seconds_bucket{method="GET",portal="main",resource="sales_orders",le="1"} 0`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

func TestResourceOf(t *testing.T) {
	for path, want := range map[string]string{
		"/api/sales_orders":               "sales_orders",
		"/api/sales_orders/12":            "sales_orders",
		"/api/v1/variants/":               "variants",
		"/":                               "root",
		"/api/" + strings.Repeat("x", 50): "other",
	} {
		if got := resourceOf(path); got != want {
			t.Errorf("resourceOf(%q) = %q, want %q", path, got, want)
		}
	}
}

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestHealthzInboxes: /healthz shows each inbox's last round, queue,
// retry and last error as its JSON fields (testdata/healthz.json).
func TestHealthzInboxes(t *testing.T) {
	at := func(s string) *time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return &v
	}
	h := Health{
		Time:    *at("2026-03-16T10:02:00Z"),
		Portals: map[string]PortalHealth{"main": {Edition: "A", Status: StatusOK}},
		Inboxes: map[string]InboxHealth{
			"erp": {Portal: "main", LastRound: &RoundHealth{Started: *at("2026-03-16T10:00:00Z"), Ended: *at("2026-03-16T10:00:02Z"), Processed: 3, Failed: 1},
				Queue: 2, Processed: 40, Failed: 2},
			"sftp": {Portal: "main", LastRound: &RoundHealth{Started: *at("2026-03-16T10:01:00Z"), Ended: *at("2026-03-16T10:01:01Z"), Retrying: 1,
				Error: "submitting SKU-1 of SKU.csv: 503 Service Unavailable"},
				RoundSince: at("2026-03-16T10:01:30Z"), Queue: 1, Retrying: 1, NextRetry: at("2026-03-16T10:01:31Z"),
				LastError: "submitting SKU-1 of SKU.csv: 503 Service Unavailable", LastErrorAt: at("2026-03-16T10:01:01Z")},
		},
	}
	rec := httptest.NewRecorder()
	Handler(prometheus.NewRegistry(), func(context.Context) Health { return h }, Access{}).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://127.0.0.1:9464/healthz", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("got %d, want 200", rec.Code)
	}
	got := rec.Body.String()
	p := filepath.Join("testdata", "healthz.json")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("reading the golden file (go test -update): %v", err)
	}
	if got != string(want) {
		t.Errorf("/healthz differs from %s:\n--- got\n%s\n--- want\n%s", p, got, want)
	}
}

// TestAccess: /metrics and /healthz answer under one rule: off loopback
// only with credentials (401 and no detail otherwise); a public health
// status, when configured, says ok or degraded and nothing else.
func TestAccess(t *testing.T) {
	h := Health{
		Portals: map[string]PortalHealth{"main": {Status: StatusUnreachable, Reason: "unreachable: dial tcp 10.1.2.3:443"}},
		Inboxes: map[string]InboxHealth{"erp": {Portal: "main", LastError: "sftp://edi@files.example.com/out: ORDERS_7.csv: permission denied"}},
	}
	guard := func(r *http.Request) bool { return r.Header.Get("Authorization") == "Bearer s3cret" }
	const secretish = "files.example.com"
	tests := []struct {
		name       string
		access     Access
		url, auth  string
		metrics    int
		healthz    int
		fullHealth bool
	}{
		{"loopback listener, loopback host", Access{}, "http://127.0.0.1:9464", "", 200, 503, true},
		{"loopback listener, another host (rebinding)", Access{}, "http://evil.example:9464", "", 401, 401, false},
		{"guarded, no credentials", Access{Allowed: guard, Challenge: "Bearer"}, "http://10.0.0.5:9464", "", 401, 401, false},
		{"guarded, wrong credentials", Access{Allowed: guard}, "http://10.0.0.5:9464", "Bearer nope", 401, 401, false},
		{"guarded, credentials", Access{Allowed: guard}, "http://10.0.0.5:9464", "Bearer s3cret", 200, 503, true},
		{"public health, no credentials", Access{Allowed: guard, PublicHealth: true}, "http://10.0.0.5:9464", "", 401, 503, false},
		{"public health, credentials", Access{Allowed: guard, PublicHealth: true}, "http://10.0.0.5:9464", "Bearer s3cret", 200, 503, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := Handler(prometheus.NewRegistry(), func(context.Context) Health { return h }, tt.access)
			get := func(path string) *httptest.ResponseRecorder {
				req := httptest.NewRequest(http.MethodGet, tt.url+path, nil)
				if tt.auth != "" {
					req.Header.Set("Authorization", tt.auth)
				}
				rec := httptest.NewRecorder()
				srv.ServeHTTP(rec, req)
				return rec
			}
			if rec := get("/metrics"); rec.Code != tt.metrics {
				t.Errorf("/metrics: %d, want %d", rec.Code, tt.metrics)
			} else if rec.Code == 401 && tt.access.Challenge != "" && rec.Header().Get("WWW-Authenticate") != tt.access.Challenge {
				t.Errorf("/metrics: 401 without the challenge %q", tt.access.Challenge)
			}
			rec := get("/healthz")
			if rec.Code != tt.healthz {
				t.Errorf("/healthz: %d, want %d", rec.Code, tt.healthz)
			}
			body := rec.Body.String()
			if got := strings.Contains(body, secretish); got != tt.fullHealth {
				t.Errorf("/healthz shows the details: %v, want %v:\n%s", got, tt.fullHealth, body)
			}
			if tt.healthz == 503 && !tt.fullHealth {
				var got map[string]any
				if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || len(got) != 1 || got["status"] != StatusDegraded {
					t.Errorf("public /healthz: %s, want only {\"status\": \"degraded\"}", body)
				}
			}
		})
	}
}
