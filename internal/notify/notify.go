// Package notify tells people and systems of trouble they have to act on: a
// file that failed, a file held for master data too long, an export run
// that failed. Each event goes to the webhook and the mail addresses of its
// inbox or outbox, in the background, each delivery retried with the
// project's one backoff until it is accepted or its attempts run out; a
// delivery that is refused for good is logged at ERROR.
//
// A webhook gets the event as a JSON POST whose body is signed with
// HMAC-SHA256 under the inbox's key: X-Filebridge-Signature: sha256=HEX.
// A mail is plain text, with the failed file's report attached.
package notify

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/wneessen/go-mail"

	"filebridge/internal/backoff"
	"filebridge/internal/config"
)

// Kinds of events.
const (
	FileFailed   = "file_failed"
	FileHeld     = "file_held"
	ExportFailed = "export_failed"
)

// Event is one thing to tell; its JSON is the webhook's body.
type Event struct {
	Kind    string    `json:"event"`
	Time    time.Time `json:"time"`
	Inbox   string    `json:"inbox,omitempty"`
	Outbox  string    `json:"outbox,omitempty"`
	FileID  int64     `json:"file_id,omitempty"`
	File    string    `json:"file,omitempty"`
	Export  string    `json:"export,omitempty"`
	Message string    `json:"message"`
	// Report is where the file's report lies (in the inbox's folder).
	Report string `json:"report,omitempty"`
	// Instance names the filebridge that saw it (FILEBRIDGE_INSTANCE).
	Instance string `json:"instance,omitempty"`
}

// subject is the mail's subject line.
func (e Event) subject() string {
	switch e.Kind {
	case FileFailed:
		return fmt.Sprintf("filebridge: %s failed in inbox %s", e.File, e.Inbox)
	case FileHeld:
		return fmt.Sprintf("filebridge: %s waits for master data in inbox %s", e.File, e.Inbox)
	case ExportFailed:
		return fmt.Sprintf("filebridge: export %s of outbox %s failed", e.Export, e.Outbox)
	}
	return "filebridge: " + e.Kind
}

// Attachment is a file attached to the mail (a report).
type Attachment struct {
	Name string
	Open func(ctx context.Context) (io.ReadCloser, error)
}

// Options configure a Notifier.
type Options struct {
	SMTP    config.SMTP
	Backoff backoff.Backoff // default 2s doubling to 5m, full jitter
	// Attempts is how often one delivery is tried. Default 8.
	Attempts int
	// Timeout bounds one attempt. Default 30s.
	Timeout time.Duration
	Logger  *slog.Logger
	// Client sends the webhooks; default a plain http.Client.
	Client *http.Client
	// After waits between attempts (tests); default time.After.
	After func(time.Duration) <-chan time.Time
}

// Notifier delivers events in the background. Close waits for the
// deliveries under way, at most until its context ends.
type Notifier struct {
	opts Options
	log  *slog.Logger
	wg   sync.WaitGroup

	mu     sync.Mutex
	closed bool
	ctx    context.Context
	cancel context.CancelFunc
}

// New returns a Notifier.
func New(opts Options) *Notifier {
	if opts.Backoff.Initial <= 0 {
		opts.Backoff = backoff.Backoff{Initial: 2 * time.Second, Max: 5 * time.Minute, Jitter: backoff.FullJitter}
	}
	if opts.Attempts <= 0 {
		opts.Attempts = 8
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Client == nil {
		opts.Client = &http.Client{}
	}
	if opts.After == nil {
		opts.After = time.After
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Notifier{opts: opts, log: opts.Logger, ctx: ctx, cancel: cancel}
}

// Send delivers e to n's webhook and mail addresses in the background;
// attach, when not nil, is attached to the mail.
func (nf *Notifier) Send(n config.Notify, e Event, attach *Attachment) {
	if nf == nil || !n.Enabled() {
		return
	}
	nf.mu.Lock()
	defer nf.mu.Unlock()
	if nf.closed {
		return
	}
	if n.WebhookURL != "" {
		nf.wg.Go(func() {
			nf.deliver(e, "webhook "+n.WebhookURL, func(ctx context.Context) error { return nf.webhook(ctx, n, e) })
		})
	}
	if len(n.Email) > 0 {
		nf.wg.Go(func() {
			nf.deliver(e, "mail to "+strings.Join(n.Email, ", "), func(ctx context.Context) error { return nf.mail(ctx, n.Email, e, attach) })
		})
	}
}

// Close stops taking events and waits for the deliveries under way until
// ctx ends; then it gives them up.
func (nf *Notifier) Close(ctx context.Context) {
	if nf == nil {
		return
	}
	nf.mu.Lock()
	nf.closed = true
	nf.mu.Unlock()
	done := make(chan struct{})
	go func() { nf.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		nf.cancel()
		<-done
	}
	nf.cancel()
}

// permanent marks a refusal that retrying cannot mend.
type permanent struct{ error }

// deliver tries send until it succeeds, is refused for good, or the
// attempts run out.
func (nf *Notifier) deliver(e Event, to string, send func(context.Context) error) {
	log := nf.log.With("event", e.Kind, "to", to, "inbox", e.Inbox, "outbox", e.Outbox, "file", e.File, "export", e.Export)
	for attempt := 0; ; attempt++ {
		ctx, cancel := context.WithTimeout(nf.ctx, nf.opts.Timeout)
		err := send(ctx)
		cancel()
		if err == nil {
			log.Info("notification delivered", "attempts", attempt+1)
			return
		}
		var p permanent
		if errors.As(err, &p) || attempt+1 >= nf.opts.Attempts || nf.ctx.Err() != nil {
			log.Error("notification not delivered: check the receiver and the [notify] settings", "attempts", attempt+1, "error", err)
			return
		}
		wait := nf.opts.Backoff.Next(attempt)
		log.Warn("notification failed; retrying", "attempt", attempt+1, "wait", wait, "error", err)
		select {
		case <-nf.opts.After(wait):
		case <-nf.ctx.Done():
			log.Error("notification not delivered: filebridge stopped", "attempts", attempt+1, "error", err)
			return
		}
	}
}

// Sign is the signature header's value of body under key.
func Sign(key string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(key))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// webhook POSTs e as JSON, signed. 2xx is delivered; 408, 429 and 5xx
// are retried; another 4xx is refused for good.
func (nf *Notifier) webhook(ctx context.Context, n config.Notify, e Event) error {
	body, err := json.Marshal(e)
	if err != nil {
		return permanent{err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.WebhookURL, bytes.NewReader(body))
	if err != nil {
		return permanent{err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "filebridge")
	req.Header.Set("X-Filebridge-Event", e.Kind)
	req.Header.Set("X-Filebridge-Signature", Sign(n.WebhookSecret.Value(), body))
	resp, err := nf.opts.Client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return nil
	case resp.StatusCode == http.StatusRequestTimeout || resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return fmt.Errorf("the webhook answered %s", resp.Status)
	default:
		return permanent{fmt.Errorf("the webhook answered %s", resp.Status)}
	}
}

// mail sends e to the addresses through [smtp], attach attached.
func (nf *Notifier) mail(ctx context.Context, to []string, e Event, attach *Attachment) error {
	s := nf.opts.SMTP
	m := mail.NewMsg()
	if err := m.From(s.From); err != nil {
		return permanent{fmt.Errorf("smtp.from: %w", err)}
	}
	if err := m.To(to...); err != nil {
		return permanent{fmt.Errorf("email: %w", err)}
	}
	m.Subject(e.subject())
	m.SetDate()
	m.SetBodyString(mail.TypeTextPlain, mailBody(e))
	if attach != nil {
		rc, err := attach.Open(ctx)
		if err != nil {
			nf.log.Warn("notification mail goes without its attachment", "attachment", attach.Name, "error", err)
		} else {
			data, err := io.ReadAll(io.LimitReader(rc, 10<<20))
			rc.Close()
			if err == nil {
				if err := m.AttachReader(attach.Name, bytes.NewReader(data)); err != nil {
					return permanent{err}
				}
			}
		}
	}
	opts := []mail.Option{mail.WithPort(s.Port), mail.WithTimeout(nf.opts.Timeout)}
	switch s.TLS {
	case "tls":
		opts = append(opts, mail.WithSSL())
	case "none":
		opts = append(opts, mail.WithTLSPolicy(mail.NoTLS))
	default:
		opts = append(opts, mail.WithTLSPolicy(mail.TLSMandatory))
	}
	if s.Username != "" {
		opts = append(opts, mail.WithSMTPAuth(mail.SMTPAuthAutoDiscover), mail.WithUsername(s.Username), mail.WithPassword(s.Password.Value()))
	}
	c, err := mail.NewClient(s.Host, opts...)
	if err != nil {
		return permanent{fmt.Errorf("smtp: %w", err)}
	}
	return c.DialAndSendWithContext(ctx, m)
}

// mailBody is the text of a notification mail.
func mailBody(e Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n", e.Message)
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%-9s %s\n", k+":", v)
		}
	}
	line("event", e.Kind)
	line("time", e.Time.UTC().Format(time.RFC3339))
	line("inbox", e.Inbox)
	line("outbox", e.Outbox)
	if e.FileID != 0 {
		line("file", fmt.Sprintf("#%d %s", e.FileID, e.File))
	}
	line("export", e.Export)
	line("report", e.Report)
	line("instance", e.Instance)
	if e.FileID != 0 {
		fmt.Fprintf(&b, "\nfilebridge show --config ... %d shows every row's result; after fixing the data, filebridge replay --config ... %d\n", e.FileID, e.FileID)
	}
	return b.String()
}
