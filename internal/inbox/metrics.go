package inbox

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"filebridge/internal/journal"
)

// Metrics are the Prometheus metrics of the inboxes; one Metrics serves
// every inbox of a process (the inbox is a label). A nil *Metrics records
// nothing.
type Metrics struct {
	files      *prometheus.CounterVec
	documents  *prometheus.CounterVec
	queue      *prometheus.GaugeVec
	processing *prometheus.HistogramVec
	heldFiles  *prometheus.GaugeVec
}

// NewMetrics creates the inbox metrics and registers them with reg (nil:
// not registered). Registering twice with the same registry reuses the
// collectors already there.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		files: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "filebridge", Subsystem: "inbox", Name: "files_total",
			Help: "Inbound files finished, by result: done, failed, duplicate, or retry (left in processing/ after a transient or auth failure).",
		}, []string{"inbox", "result"}),
		documents: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "filebridge", Subsystem: "inbox", Name: "documents_total",
			Help: "Documents of inbound files settled, by result: created, exists, invalid, conflict, skipped, failed.",
		}, []string{"inbox", "result"}),
		queue: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "filebridge", Subsystem: "inbox", Name: "queue_depth",
			Help: "Files waiting in an inbox: settling, settled, or in processing/.",
		}, []string{"inbox"}),
		processing: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "filebridge", Subsystem: "inbox", Name: "file_processing_seconds",
			Help:    "Time to process one inbound file, from claim to move.",
			Buckets: prometheus.ExponentialBuckets(0.05, 2.5, 12),
		}, []string{"inbox"}),
		heldFiles: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "filebridge", Subsystem: "inbox", Name: "held_file_missing_codes",
			Help: "Files held in processing/ for master data not on the portal yet: the number of codes each waits for (label waiting_for names the first of them).",
		}, []string{"inbox", "file", "waiting_for"}),
	}
	if reg != nil {
		m.files = register(reg, m.files)
		m.documents = register(reg, m.documents)
		m.queue = register(reg, m.queue)
		m.processing = register(reg, m.processing)
		m.heldFiles = register(reg, m.heldFiles)
	}
	return m
}

// register registers c, or returns the equal collector already registered.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
	}
	return c
}

func (m *Metrics) file(inbox, result string) {
	if m != nil {
		m.files.WithLabelValues(inbox, result).Inc()
	}
}

func (m *Metrics) docs(inbox string, counts map[journal.Result]int) {
	if m == nil {
		return
	}
	for r, n := range counts {
		if r.Final() && n > 0 {
			m.documents.WithLabelValues(inbox, string(r)).Add(float64(n))
		}
	}
}

func (m *Metrics) queueDepth(inbox string, n int) {
	if m != nil {
		m.queue.WithLabelValues(inbox).Set(float64(n))
	}
}

func (m *Metrics) took(inbox string, d time.Duration) {
	if m != nil {
		m.processing.WithLabelValues(inbox).Observe(d.Seconds())
	}
}

// held records a held file and the codes it waits for.
func (m *Metrics) held(inbox string, h HeldFile) {
	if m == nil {
		return
	}
	m.heldFiles.DeletePartialMatch(prometheus.Labels{"inbox": inbox, "file": h.Name})
	m.heldFiles.WithLabelValues(inbox, h.Name, shortList(h.WaitingFor)).Set(float64(len(h.WaitingFor)))
}

// unheld drops a file that is no longer held.
func (m *Metrics) unheld(inbox, file string) {
	if m == nil {
		return
	}
	m.heldFiles.DeletePartialMatch(prometheus.Labels{"inbox": inbox, "file": file})
}
