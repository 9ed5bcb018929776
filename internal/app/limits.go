package app

import (
	"github.com/prometheus/client_golang/prometheus"

	"filebridge/internal/config"
	"filebridge/internal/portal"
)

// limitGauges expose the current concurrency limit of each portal's
// client, which adapts to the portal's answers, as
// filebridge_api_concurrency_limit{portal}.
func limitGauges(portals map[string]*portal.Client) []prometheus.Collector {
	var out []prometheus.Collector
	for name, c := range portals {
		out = append(out, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name:        "filebridge_api_concurrency_limit",
			Help:        "Requests the portal client lets in flight now: the portal's concurrency while it answers, halved on 429, 5xx and timeouts.",
			ConstLabels: prometheus.Labels{"portal": name},
		}, func() float64 { return float64(c.Limit()) }))
	}
	return out
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
