package app

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"filebridge/internal/inbox"
	"filebridge/internal/journal"
	"filebridge/internal/outbox"
	"filebridge/internal/portal"
	"filebridge/internal/server"
)

// ExportMetrics counts export runs for /metrics and remembers the last run
// of each outbox for /healthz. It is the scheduler's outbox.Observer.
type ExportMetrics struct {
	runs     *prometheus.CounterVec
	rows     *prometheus.CounterVec
	duration *prometheus.HistogramVec
	lastOK   *prometheus.GaugeVec

	now  func() time.Time
	mu   sync.Mutex
	last map[string]outboxRun // by outbox
}

type outboxRun struct {
	at  time.Time
	err string
	// folder: the run failed for a reason other than the portal (its
	// folder full or unreachable, the journal): the outbox is degraded.
	folder bool
}

var _ outbox.Observer = (*ExportMetrics)(nil)

// NewExportMetrics registers the export metrics with reg; now is the
// clock of the last runs /healthz shows.
func NewExportMetrics(reg prometheus.Registerer, now func() time.Time) *ExportMetrics {
	m := &ExportMetrics{
		now: now,
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "filebridge", Subsystem: "export", Name: "runs_total",
			Help: "Export runs by result: ok or failed.",
		}, []string{"outbox", "export", "result"}),
		rows: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "filebridge", Subsystem: "export", Name: "rows_total",
			Help: "Rows written by exports.",
		}, []string{"outbox", "export"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "filebridge", Subsystem: "export", Name: "run_seconds",
			Help:    "Time of one export run.",
			Buckets: prometheus.ExponentialBuckets(0.05, 2.5, 12),
		}, []string{"outbox", "export"}),
		lastOK: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "filebridge", Subsystem: "export", Name: "last_success_timestamp_seconds",
			Help: "Unix time of the last successful run of an export.",
		}, []string{"outbox", "export"}),
		last: map[string]outboxRun{},
	}
	reg.MustRegister(m.runs, m.rows, m.duration, m.lastOK)
	return m
}

// ExportRun implements outbox.Observer.
func (m *ExportMetrics) ExportRun(job outbox.Job, res outbox.Result, err error, took time.Duration) {
	typ := string(job.Type)
	result := "ok"
	run := outboxRun{at: m.now().UTC()}
	if err != nil {
		result = "failed"
		run.err = err.Error()
		var pe *portal.Error
		run.folder = !errors.As(err, &pe) && !errors.Is(err, context.Canceled)
	} else {
		m.rows.WithLabelValues(job.Outbox, typ).Add(float64(res.Rows))
		m.lastOK.WithLabelValues(job.Outbox, typ).Set(float64(run.at.UnixNano()) / 1e9)
	}
	m.runs.WithLabelValues(job.Outbox, typ, result).Inc()
	m.duration.WithLabelValues(job.Outbox, typ).Observe(took.Seconds())
	m.mu.Lock()
	m.last[job.Outbox] = run
	m.mu.Unlock()
}

func (m *ExportMetrics) lastRun(outbox string) (outboxRun, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.last[outbox]
	return r, ok
}

// HealthReport is the /healthz body: the journal writable or not; each
// portal running, paused for auth or unreachable (with the reason); each
// inbox ok or degraded (host key) with its last round, queue, retry backoff
// and last error as the inbox reports them, with the totals of files the
// journal holds; each outbox's last run.
func (d *Daemon) HealthReport(ctx context.Context) server.Health {
	h := server.Health{
		Time:     d.opts.Now().UTC(),
		Portals:  map[string]server.PortalHealth{},
		Inboxes:  map[string]server.InboxHealth{},
		Outboxes: map[string]server.OutboxHealth{},
	}
	for _, name := range d.Config.PortalNames() {
		h.Portals[name] = server.PortalHealth{Edition: string(d.Config.Portals[name].Edition), Status: server.StatusOK}
	}
	for _, p := range d.Health.Snapshot() {
		ph := h.Portals[p.Portal]
		ph.Status, ph.Reason = server.StatusPaused, p.Reason
		if !p.Paused {
			ph.Status = server.StatusUnreachable
		}
		since := p.Since
		ph.Since = &since
		h.Portals[p.Portal] = ph
	}
	h.Journal = &server.JournalHealth{Path: d.Journal.Path(), Status: server.StatusOK}
	if tr := d.Health.Journal(); tr.Reason != "" {
		h.Journal.Status, h.Journal.Reason, h.Journal.Since = server.StatusDegraded, tr.Reason, timePtr(tr.Since)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for _, in := range d.Inboxes {
		ih := inboxHealth(in.Status())
		ih.Portal = in.Portal()
		ih.Status = server.StatusOK
		if tr := d.Health.Inbox(in.Name()); tr.Reason != "" {
			ih.Status, ih.Reason, ih.ReasonSince = server.StatusDegraded, tr.Reason, timePtr(tr.Since)
		}
		if states, err := d.Journal.FileStates(ctx, in.Name()); err == nil {
			ih.Processed = states[journal.FileDone] + states[journal.FileDuplicate]
			ih.Failed = states[journal.FileFailed]
		} else if ih.LastError == "" {
			ih.LastError = "reading the journal: " + err.Error()
		}
		h.Inboxes[in.Name()] = ih
	}
	for _, oc := range d.Config.Outboxes {
		oh := server.OutboxHealth{Portal: oc.Portal}
		if r, ok := d.exports.lastRun(oc.Name); ok {
			at := r.at
			oh.LastRun, oh.LastError = &at, r.err
			if r.folder {
				oh.Status, oh.Reason = server.StatusDegraded, "the last export failed: "+r.err
			}
		}
		h.Outboxes[oc.Name] = oh
	}
	return h
}

// inboxHealth is the /healthz view of an inbox's status.
func inboxHealth(st inbox.Status) server.InboxHealth {
	ih := server.InboxHealth{
		Queue: st.Queue, Retrying: st.Retrying,
		NextRetry: timePtr(st.NextRetry), RoundSince: timePtr(st.RoundSince),
		LastError: st.LastError, LastErrorAt: timePtr(st.LastErrorAt),
	}
	for _, h := range st.Held {
		ih.Held = append(ih.Held, server.HeldHealth{File: h.Name, Since: h.Since.UTC(), Until: h.Until.UTC(), WaitingFor: h.WaitingFor})
	}
	for _, g := range st.Ignored {
		ih.Ignored = append(ih.Ignored, server.IgnoredHealth{File: g.Name, Reason: g.Reason, Since: g.Since.UTC()})
	}
	if r := st.LastRound; !r.Start.IsZero() {
		ih.LastRound = &server.RoundHealth{
			Started: r.Start.UTC(), Ended: r.End.UTC(),
			Processed: r.Processed, Failed: r.Failed, Retrying: r.Retrying, Error: r.Error,
		}
	}
	return ih
}

// timePtr is t in UTC, or nil when t is zero.
func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}
