package app

import (
	"github.com/prometheus/client_golang/prometheus"

	"filebridge/internal/portal"
)

// registerLimits exposes the current concurrency limit of each portal's
// client, which adapts to the portal's answers, as
// filebridge_api_concurrency_limit{portal}.
func registerLimits(reg prometheus.Registerer, portals map[string]*portal.Client) error {
	for name, c := range portals {
		g := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name:        "filebridge_api_concurrency_limit",
			Help:        "Requests the portal client lets in flight now: the portal's concurrency while it answers, halved on 429, 5xx and timeouts.",
			ConstLabels: prometheus.Labels{"portal": name},
		}, func() float64 { return float64(c.Limit()) })
		if err := reg.Register(g); err != nil {
			return err
		}
	}
	return nil
}
