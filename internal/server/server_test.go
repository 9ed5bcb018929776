package server

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := Handler(prometheus.NewRegistry(), func(context.Context) Health { return tt.health })
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
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
	c := &http.Client{Transport: m.Transport("main", nil)}
	for _, p := range []string{"/api/sales_orders", "/api/sales_orders/42"} {
		resp, err := c.Get(api.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	srv, err := Start(t.Context(), "127.0.0.1:0", Handler(reg, func(context.Context) Health { return Health{} }), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	resp, err := http.Get("http://" + srv.Addr() + "/metrics")
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
