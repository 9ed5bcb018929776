// Package app turns a loaded configuration into the components filebridge
// runs: the logger, one portal client per portal, and the folders of the
// inboxes and outboxes. The commands (run, check, demo, process, export)
// share it so that a folder or a portal is set up the same way everywhere.
package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"filebridge/internal/config"
	"filebridge/internal/folder"
	"filebridge/internal/portal"
)

// NewLogger returns the slog logger the config's [log] table asks for,
// writing to w.
func NewLogger(l config.Log, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: l.SlogLevel(), ReplaceAttr: durationText}
	if l.Format == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

// durationText writes a duration as "15s" in both formats: the JSON
// handler would write it as nanoseconds (15000000000), which no operator
// reads at a glance.
func durationText(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		return slog.String(a.Key, a.Value.Duration().String())
	}
	return a
}

// PortalOptions adjust the portal clients built by NewPortal.
type PortalOptions struct {
	// Transport wraps the client's HTTP transport (e.g. to measure it);
	// nil keeps the plain one.
	Transport func(portal string, base http.RoundTripper) http.RoundTripper
	// MaxRetries, when not nil, replaces the config's max_retries (check
	// uses 0 to answer fast).
	MaxRetries *int
	// Timeout, when set, replaces the config's timeout.
	Timeout time.Duration
	Logger  *slog.Logger
}

// PortalConfig is the portal client configuration of a [portals.NAME] table.
func PortalConfig(p *config.Portal) portal.Config {
	return portal.Config{
		Edition:              p.Edition,
		BaseURL:              p.BaseURL,
		Company:              int64(p.Company),
		Token:                p.Token.Value(),
		Paths:                p.Paths,
		Concurrency:          p.Concurrency,
		Timeout:              p.Timeout.Duration,
		MaxRetries:           p.MaxRetries,
		RetryMaxWait:         p.RetryMaxWait.Duration,
		ItemsPerPage:         p.ItemsPerPage,
		ShipmentStatusFilter: p.ShipmentStatusFilter,
		UserAgent:            "filebridge",
	}
}

// NewPortal builds the client of one portal.
func NewPortal(p *config.Portal, o PortalOptions) (*portal.Client, error) {
	pc := PortalConfig(p)
	if o.MaxRetries != nil {
		pc.MaxRetries = *o.MaxRetries
	}
	if o.Timeout > 0 {
		pc.Timeout = o.Timeout
	}
	pc.Logger = o.Logger
	if pc.Logger != nil {
		pc.Logger = pc.Logger.With("portal", p.Name)
	}
	if o.Transport != nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		idle := max(p.Concurrency, 2)
		t.MaxIdleConnsPerHost = idle
		t.MaxIdleConns = max(t.MaxIdleConns, idle)
		t.IdleConnTimeout = 90 * time.Second
		pc.HTTPClient = &http.Client{Transport: o.Transport(p.Name, t)}
	}
	c, err := portal.New(pc)
	if err != nil {
		return nil, fmt.Errorf("portal %s: %w", p.Name, err)
	}
	return c, nil
}

// NewPortals builds one client per portal of the config, by name.
func NewPortals(cfg *config.Config, o PortalOptions) (map[string]*portal.Client, error) {
	out := make(map[string]*portal.Client, len(cfg.Portals))
	for _, name := range cfg.PortalNames() {
		c, err := NewPortal(cfg.Portals[name], o)
		if err != nil {
			for _, done := range out {
				done.Close()
			}
			return nil, err
		}
		out[name] = c
	}
	return out, nil
}

// FolderOptions are the folder.Options of an inbox's or outbox's url,
// SFTP settings (secrets resolved by config.Load) and operation timeout:
// the one mapping every command and the daemon use. Secrets are set for
// SFTP only.
func FolderOptions(u config.FolderURL, s config.SFTP, timeout time.Duration, log *slog.Logger) folder.Options {
	o := folder.Options{
		Location:           u,
		Timeout:            timeout,
		Logger:             log,
		KnownHostsFile:     s.KnownHosts,
		HostKeyFingerprint: s.HostKeyFingerprint,
	}
	if u.IsSFTP() {
		o.Password = s.Password.Value()
		if !s.PrivateKey.IsZero() {
			o.PrivateKey = []byte(s.PrivateKey.Value())
		}
		o.PrivateKeyPassphrase = s.PrivateKeyPassphrase.Value()
	}
	return o
}

// OpenOutboxFolder opens an outbox's folder (an SFTP folder connects at
// its first operation).
func OpenOutboxFolder(ctx context.Context, out *config.Outbox, log *slog.Logger) (folder.Folder, error) {
	f, err := folder.Open(ctx, FolderOptions(out.Folder, out.SFTP, out.OperationTimeout.Duration, log))
	if err != nil {
		return nil, fmt.Errorf("opening outbox %s: %w", out.Name, err)
	}
	return f, nil
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
