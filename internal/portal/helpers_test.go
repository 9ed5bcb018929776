package portal

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"filebridge/internal/model"
)

const testToken = "s3cret-test-token"

// recorded is a request a test server received.
type recorded struct {
	Method, Path, RawQuery string
	Header                 http.Header
	Body                   string
}

// recorder is a test portal: it records requests and answers with handle.
type recorder struct {
	mu   sync.Mutex
	reqs []recorded
}

func (r *recorder) all() []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]recorded(nil), r.reqs...)
}

// serve starts a server on 127.0.0.1 that records every request and
// passes it on to h.
func serve(t testing.TB, h http.HandlerFunc) (*httptest.Server, *recorder) {
	t.Helper()
	rec := &recorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, recorded{req.Method, req.URL.Path, req.URL.RawQuery, req.Header.Clone(), string(b)})
		rec.mu.Unlock()
		req.Body = io.NopCloser(strings.NewReader(string(b)))
		h(w, req)
	}))
	t.Cleanup(srv.Close)
	return srv, rec
}

// testClient builds a client of srv with fast retries.
func testClient(t testing.TB, e model.Edition, baseURL string, mod ...func(*Config)) *Client {
	t.Helper()
	cfg := Config{
		Edition: e, BaseURL: baseURL + "/api", Company: 42, Token: testToken,
		MaxRetries: 3, RetryBaseWait: time.Millisecond, RetryMaxWait: 20 * time.Millisecond,
		Timeout: 5 * time.Second, Logger: slog.New(slog.DiscardHandler),
		Concurrency: 8, ItemsPerPage: 1000, ShipmentStatusFilter: "status.code",
	}
	for _, m := range mod {
		m(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// partnerCodes lists the codes of the partners up to the first error, or
// the first n of them (0: all).
func partnerCodes(t testing.TB, c *Client, n int) ([]string, error) {
	var codes []string
	for p, err := range c.Partners(t.Context(), PartnerFilter{}) {
		if err != nil {
			return codes, err
		}
		if codes = append(codes, p.Code); len(codes) == n {
			break
		}
	}
	return codes, nil
}

// reply writes a JSON body with a status.
func reply(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/ld+json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}
