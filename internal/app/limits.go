package app

import (
	"github.com/prometheus/client_golang/prometheus"

	"filebridge/internal/config"
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

// documentsPerRequest is how many documents an inbox keeps in progress per
// request its portal allows: a document waiting to retry (a 429's
// Retry-After, a backoff) holds no request slot, and the others keep the
// portal busy meanwhile; the portal client's limit still bounds the
// requests.
const documentsPerRequest = 8

// InboxWorkers is the number of documents an inbox submits at once to a
// portal of the given concurrency.
func InboxWorkers(p *config.Portal) int {
	return max(p.Concurrency, 1) * documentsPerRequest
}
