package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"filebridge/internal/backoff"
	"filebridge/internal/config"
	"filebridge/internal/testkit"
)

// receiver is a webhook on loopback that answers with the codes of its
// script (200 once the script is used up) and keeps what it got.
type receiver struct {
	mu     sync.Mutex
	codes  []int
	bodies [][]byte
	sigs   []string
	got    chan struct{}
}

func newReceiver(t *testing.T, codes ...int) (*receiver, string) {
	r := &receiver{codes: codes, got: make(chan struct{}, 100)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.bodies = append(r.bodies, body)
		r.sigs = append(r.sigs, req.Header.Get("X-Filebridge-Signature"))
		code := http.StatusOK
		if len(r.codes) > 0 {
			code, r.codes = r.codes[0], r.codes[1:]
		}
		r.mu.Unlock()
		w.WriteHeader(code)
		r.got <- struct{}{}
	}))
	t.Cleanup(srv.Close)
	return r, srv.URL + "/hook"
}

// instant replaces the waits between attempts: the test observes the
// attempts, it does not wait for them.
func instant(time.Duration) <-chan time.Time {
	c := make(chan time.Time, 1)
	c <- time.Time{}
	return c
}

var failed = Event{Kind: FileFailed, Time: time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC), Inbox: "erp", FileID: 16,
	File: "ORDERS_1.csv", Message: "2 of 3 document(s) failed", Report: "error/ORDERS_1.report.csv"}

func TestWebhook(t *testing.T) {
	for _, tc := range []struct {
		name      string
		codes     []int
		attempts  int // requests the receiver gets
		delivered bool
	}{
		{"accepted", []int{http.StatusNoContent}, 1, true},
		{"retried after 503 and 429", []int{503, 429}, 3, true},
		{"refused for good on 400", []int{400}, 1, false},
		{"attempts run out", []int{500, 500, 500, 500}, 3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, url := newReceiver(t, tc.codes...)
			logs := &testkit.Buffer{}
			nf := New(Options{Attempts: 3, Backoff: backoff.Backoff{Initial: time.Second, Max: time.Second},
				After: instant, Logger: slog.New(slog.NewTextHandler(logs, nil))})
			n := config.Notify{WebhookURL: url, WebhookSecret: config.NewSecret("hook-key")}
			nf.Send(n, failed, nil)
			nf.Close(t.Context()) // waits for the delivery
			r.mu.Lock()
			defer r.mu.Unlock()
			if len(r.bodies) != tc.attempts {
				t.Fatalf("the receiver got %d requests, want %d; log:\n%s", len(r.bodies), tc.attempts, logs)
			}
			for i, body := range r.bodies {
				if r.sigs[i] != Sign("hook-key", body) {
					t.Errorf("request %d: signature %q does not sign its body under the key", i, r.sigs[i])
				}
				var e Event
				if err := json.Unmarshal(body, &e); err != nil || e != failed {
					t.Errorf("request %d: body %s, want the event (%v)", i, body, err)
				}
			}
			if got := strings.Contains(logs.String(), "notification delivered"); got != tc.delivered {
				t.Errorf("delivered = %v, want %v; log:\n%s", got, tc.delivered, logs)
			}
			if !tc.delivered && !strings.Contains(logs.String(), "level=ERROR msg=\"notification not delivered") {
				t.Errorf("a lost notification is not logged at ERROR:\n%s", logs)
			}
		})
	}
}

func TestSign(t *testing.T) {
	// What a receiver computes with openssl:
	// printf '{"event":"x"}' | openssl dgst -sha256 -hmac key
	if got, want := Sign("key", []byte(`{"event":"x"}`)), "sha256=774be471c03553e6ffcb7759081933cd2e124c9c7992b81f64c20005644925fa"; got != want {
		t.Errorf("Sign = %q, want %q", got, want)
	}
}

// TestMail sends a failed file's notification with its report attached
// through a real SMTP server on loopback (aiosmtpd's Maildir handler) and
// reads the message it stored.
func TestMail(t *testing.T) {
	addr, maildir := testkit.SMTP(t)
	host, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	nf := New(Options{SMTP: config.SMTP{Host: host, Port: p, From: "filebridge@example.com", TLS: "none"}, After: instant, Attempts: 3})
	report := "row,result,message\n2,invalid,sku: SKU-9 is not on the portal\n"
	nf.Send(config.Notify{Email: []string{"desk@example.com", "Lager <lager@example.com>"}}, failed, &Attachment{
		Name: "ORDERS_1.report.csv",
		Open: func(context.Context) (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(report)), nil },
	})
	nf.Close(t.Context())
	msgs := testkit.Mails(t, maildir)
	if len(msgs) != 1 {
		t.Fatalf("the mail server stored %d messages, want 1", len(msgs))
	}
	raw := msgs[0]
	for _, want := range []string{
		"Subject: filebridge: ORDERS_1.csv failed in inbox erp",
		"desk@example.com", "lager@example.com",
		"2 of 3 document(s) failed", "filebridge replay --config ... 16",
		`filename="ORDERS_1.report.csv"`,
	} {
		if !bytes.Contains(raw, []byte(want)) {
			t.Errorf("the mail lacks %q:\n%s", want, raw)
		}
	}
}
