package app

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"filebridge/internal/inbox"
	"filebridge/internal/journal"
	"filebridge/internal/portal"
	"filebridge/internal/server"
)

// Metrics are the Prometheus collectors of a filebridge process. They
// outlive a daemon: a SIGHUP reload opens the new daemon on the same
// Metrics (Options.Metrics), so its counters go on from where they were
// instead of starting again at 0. What belongs to one daemon (the portal
// clients' limits, the journal's counts) is registered by Open and
// unregistered by Close.
type Metrics struct {
	Registry *prometheus.Registry
	api      *server.APIMetrics
	inbox    *inbox.Metrics
	exports  *ExportMetrics

	mu      sync.Mutex
	journal journal.WriteStats // counted by the daemons closed before
}

// NewMetrics registers the process's collectors in a new registry; now is
// the clock of the export metrics.
func NewMetrics(now func() time.Time) *Metrics {
	if now == nil {
		now = time.Now
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return &Metrics{
		Registry: reg,
		api:      server.NewAPIMetrics(reg),
		inbox:    inbox.NewMetrics(reg),
		exports:  NewExportMetrics(reg, now),
	}
}

// journalBefore is what the journals of earlier daemons wrote.
func (m *Metrics) journalBefore() journal.WriteStats {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.journal
}

// closed adds what a daemon's journal wrote, as its daemon closes.
func (m *Metrics) closed(s journal.WriteStats) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.journal.Writes += s.Writes
	m.journal.Commits += s.Commits
}

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
