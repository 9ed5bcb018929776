package app

import (
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"filebridge/internal/model"
	"filebridge/internal/portal"
	"filebridge/internal/portalsim"
	"filebridge/internal/testkit"
)

// TestConcurrencyLimitGauge: /metrics shows each portal client's current
// limit: the configured concurrency, then half of it after a 429.
func TestConcurrencyLimitGauge(t *testing.T) {
	client := func(throttle float64) *portal.Client {
		sim, srv := testkit.Sim(t, portalsim.Options{Edition: portalsim.EditionA, Seed: 3, ThrottleRate: throttle})
		c, err := portal.New(portal.Config{Edition: model.EditionA, BaseURL: srv.URL + "/api", Company: sim.Company(),
			Token: "demo-token", Concurrency: 8, Timeout: 30 * time.Second, RetryMaxWait: 2 * time.Minute,
			ItemsPerPage: 1000, ShipmentStatusFilter: "status.code", Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		return c
	}
	calm, throttling := client(0), client(1)
	reg := prometheus.NewRegistry()
	reg.MustRegister(limitGauges(map[string]*portal.Client{"calm": calm, "busy": throttling})...)
	if _, err := throttling.Page(t.Context(), portal.Connections, nil); !portal.IsTransient(err) {
		t.Fatalf("a 429 without retries gave %v, want a transient error", err)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range families {
		if mf.GetName() != "filebridge_api_concurrency_limit" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "portal" {
					got[l.GetValue()] = m.GetGauge().GetValue()
				}
			}
		}
	}
	if got["calm"] != 8 || got["busy"] != 4 || len(got) != 2 {
		t.Errorf("concurrency limits %v, want calm 8 and busy 4", got)
	}
}
