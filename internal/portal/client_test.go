package portal

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"filebridge/internal/model"
)

func TestNewConfigErrors(t *testing.T) {
	good := Config{Edition: model.EditionB, BaseURL: "https://portal.example.com/api", Company: 42, Token: "t",
		Concurrency: 8, Timeout: time.Second, RetryMaxWait: time.Second, ItemsPerPage: 100, ShipmentStatusFilter: "status.code"}
	tests := []struct {
		name string
		mod  func(*Config)
		want string // "" = valid
	}{
		{"valid", func(c *Config) {}, ""},
		{"valid http with paths", func(c *Config) {
			c.BaseURL = "http://127.0.0.1:8089/api/"
			c.Paths = map[string]string{"sales_orders": "/sales-orders"}
		}, ""},
		{"no base URL", func(c *Config) { c.BaseURL = "" }, "base URL is missing"},
		{"relative base URL", func(c *Config) { c.BaseURL = "portal.example.com/api" }, "not an absolute http(s) URL"},
		{"ftp base URL", func(c *Config) { c.BaseURL = "ftp://portal.example.com/api" }, "not an absolute http(s) URL"},
		{"user in base URL", func(c *Config) { c.BaseURL = "https://u:pw@portal.example.com/api" }, "must not carry a user or password"},
		{"missing token", func(c *Config) { c.Token = " " }, "token is missing"},
		{"zero company", func(c *Config) { c.Company = 0 }, "company must be the positive id"},
		{"negative company", func(c *Config) { c.Company = -3 }, "not -3"},
		{"path without slash", func(c *Config) { c.Paths = map[string]string{"sales_orders": "sales-orders"} }, `must start with "/"`},
		{"unknown path", func(c *Config) { c.Paths = map[string]string{"salesorders": "/x"} }, `unknown resource "salesorders"`},
		{"bad edition", func(c *Config) { c.Edition = "C" }, `edition "C" is unknown`},
		{"page too large", func(c *Config) { c.ItemsPerPage = 20000 }, "items per page must be between 1 and 10000"},
		{"page size left zero", func(c *Config) { c.ItemsPerPage = 0 }, "items per page must be between 1 and 10000"},
		{"concurrency left zero", func(c *Config) { c.Concurrency = 0 }, "concurrency must be at least 1, not 0"},
		{"timeout left zero", func(c *Config) { c.Timeout = 0 }, "timeout and retry max wait must be positive"},
		{"retry max wait left zero", func(c *Config) { c.RetryMaxWait = 0 }, "timeout and retry max wait must be positive"},
		{"negative retries", func(c *Config) { c.MaxRetries = -1 }, "max retries must not be negative"},
		{"edition A without status filter", func(c *Config) { c.Edition, c.ShipmentStatusFilter = model.EditionA, "" }, ""},
		{"edition B without status filter", func(c *Config) { c.ShipmentStatusFilter = "" }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := good
			tt.mod(&cfg)
			c, err := New(cfg)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
			if c != nil {
				t.Error("client returned with an error")
			}
			if strings.Contains(err.Error(), "pw@") {
				t.Errorf("error shows the password: %v", err)
			}
		})
	}
}

func TestNewKeepsConfigAndIRI(t *testing.T) {
	c, err := New(Config{Edition: model.EditionB, BaseURL: "http://127.0.0.1:1/api/", Company: 1, Token: "t",
		Concurrency: 8, Timeout: 30 * time.Second, RetryMaxWait: 100 * time.Millisecond, ItemsPerPage: 1000,
		Paths: map[string]string{"variants": "/product-variants"}})
	if err != nil {
		t.Fatal(err)
	}
	// New applies no defaults of configuration keys (config provisioning
	// does); it only caps the unexposed first backoff step.
	if c.cfg.Concurrency != 8 || c.cfg.Timeout != 30*time.Second || c.cfg.ItemsPerPage != 1000 ||
		c.cfg.ShipmentStatusFilter != "" || c.cfg.RetryBaseWait != 100*time.Millisecond {
		t.Errorf("config not kept as given: %+v", c.cfg)
	}
	if got := c.IRI(Variants, 12); got != "/api/product-variants/12" {
		t.Errorf("IRI: %s", got)
	}
	tr, ok := c.hc.Transport.(*http.Transport)
	if !ok || tr.MaxIdleConnsPerHost < 8 {
		t.Errorf("transport keeps too few idle connections: %+v", c.hc.Transport)
	}
}

func TestClassify(t *testing.T) {
	type tcase struct {
		name string
		resp *http.Response
		err  error
		want class
	}
	tests := []tcase{
		{"refused before sending", nil, &sendError{err: errors.New("connection refused")}, classNotSent},
		{"no connection in time", nil, &sendError{err: errors.New("dial timeout"), timedOut: true}, classBusy},
		{"reset after sending", nil, &sendError{err: errors.New("EOF"), written: true}, classUnknown},
		{"no answer in time", nil, &sendError{err: errors.New("deadline"), written: true, timedOut: true}, classTimedOut},
		{"caller cancelled", nil, &sendError{err: errors.New("canceled"), written: true, callerDone: true}, classCanceled},
	}
	for _, byStatus := range []struct {
		want     class
		statuses []int
	}{
		{classOK, []int{200, 201}},
		{classReject, []int{400, 401, 404, 409, 422}},
		{classBusy, []int{408, 429}},
		{classFailed, []int{500, 502, 503, 504}},
	} {
		for _, s := range byStatus.statuses {
			tests = append(tests, tcase{http.StatusText(s), &http.Response{StatusCode: s}, nil, byStatus.want})
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := classify(tt.resp, tt.err); got != tt.want {
				t.Errorf("got %d want %d", got, tt.want)
			}
		})
	}
}

// TestRetryAfter: a Retry-After is delay seconds or an HTTP date, measured
// on the client's clock (Config.Now) and capped by RetryMaxWait.
func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	c := testClient(t, model.EditionA, "http://portal.invalid", func(cfg *Config) {
		cfg.Now = func() time.Time { return now }
		cfg.RetryMaxWait = time.Minute
	})
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"3", 3 * time.Second, true},
		{" 0 ", 0, true},
		{"-1", 0, false},
		{"", 0, false},
		{"soon", 0, false},
		{"Fri, 01 May 2026 12:00:10 GMT", 10 * time.Second, true},
		{"Fri, 01 May 2026 11:00:00 GMT", 0, true},
		{"Fri, 01 May 2026 13:00:00 GMT", time.Minute, true},
		{"7200", time.Minute, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			resp := &http.Response{Header: http.Header{}}
			if tt.in != "" {
				resp.Header.Set("Retry-After", tt.in)
			}
			got, ok := c.retryAfter(resp)
			if got != tt.want || ok != tt.ok {
				t.Errorf("got %v %v want %v %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestGetRetries: 429 with Retry-After, 503 and a dropped connection are
// retried; 422 is not; the budget ends in a Transient error.
func TestGetRetries(t *testing.T) {
	page := `{"hydra:member":[{"id":1,"code":"A"}],"hydra:totalItems":1}`
	tests := []struct {
		name      string
		failures  []func(w http.ResponseWriter)
		retries   int
		wantCalls int
		wantErr   func(error) bool
	}{
		{"429 then ok", []func(http.ResponseWriter){func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", "1")
			reply(w, 429, `{"hydra:description":"slow down"}`)
		}}, 3, 2, nil},
		{"503 twice then ok", []func(http.ResponseWriter){
			func(w http.ResponseWriter) { reply(w, 503, "") },
			func(w http.ResponseWriter) { reply(w, 502, "<html>bad gateway</html>") },
		}, 3, 3, nil},
		{"dropped then ok", []func(http.ResponseWriter){func(w http.ResponseWriter) { drop(w) }}, 3, 2, nil},
		{"budget exhausted", []func(http.ResponseWriter){
			func(w http.ResponseWriter) { reply(w, 500, "") },
			func(w http.ResponseWriter) { reply(w, 500, "") },
			func(w http.ResponseWriter) { reply(w, 500, "") },
		}, 2, 3, IsTransient},
		{"422 not retried", []func(http.ResponseWriter){func(w http.ResponseWriter) {
			reply(w, 422, `{"violations":[{"propertyPath":"code","message":"bad"}]}`)
		}}, 3, 1, IsInvalid},
		{"401 not retried", []func(http.ResponseWriter){func(w http.ResponseWriter) { reply(w, 401, "") }}, 3, 1, IsAuth},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
				n := int(calls.Add(1))
				if n <= len(tt.failures) {
					tt.failures[n-1](w)
					return
				}
				reply(w, 200, page)
			})
			c := testClient(t, model.EditionB, srv.URL, func(c *Config) { c.MaxRetries = tt.retries })
			var got []model.Partner
			var err error
			for p, e := range c.Partners(t.Context(), PartnerFilter{}) {
				if e != nil {
					err = e
					break
				}
				got = append(got, p)
			}
			if int(calls.Load()) != tt.wantCalls {
				t.Errorf("calls: got %d want %d", calls.Load(), tt.wantCalls)
			}
			if tt.wantErr == nil {
				if err != nil || len(got) != 1 || got[0].Code != "A" {
					t.Fatalf("got %v %v", got, err)
				}
				return
			}
			if !tt.wantErr(err) {
				t.Fatalf("wrong error class: %v", err)
			}
		})
	}
}

// drop closes the connection without an answer.
func drop(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		_ = conn.Close()
	}
}

// TestTokenNeverLogged: debug logging of requests, retries and errors
// never shows the token.
func TestTokenNeverLogged(t *testing.T) {
	var logs bytes.Buffer
	var calls atomic.Int32
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			reply(w, 503, "")
			return
		}
		reply(w, 401, `{"message":"Invalid JWT Token"}`)
	})
	c := testClient(t, model.EditionA, srv.URL, func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	_, err := c.CreatePartner(t.Context(), model.Partner{Code: "X", Name: "Y"})
	if !IsAuth(err) {
		t.Fatalf("got %v, want an auth error", err)
	}
	if logs.Len() == 0 {
		t.Fatal("nothing logged")
	}
	for _, s := range []string{logs.String(), err.Error()} {
		if strings.Contains(s, testToken) {
			t.Fatalf("token leaked: %s", s)
		}
	}
}

// TestRetryAfterHonoured: a 429's Retry-After (1 s) is waited, capped by
// RetryMaxWait, instead of the (much shorter) backoff.
func TestRetryAfterHonoured(t *testing.T) {
	var calls atomic.Int32
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			reply(w, 429, "")
			return
		}
		reply(w, 201, `{"id":3}`)
	})
	c := testClient(t, model.EditionA, srv.URL, func(c *Config) {
		c.RetryBaseWait, c.RetryMaxWait = time.Microsecond, 60*time.Millisecond
	})
	start := time.Now()
	out, err := c.CreatePartner(t.Context(), model.Partner{Code: "S", Name: "N"})
	if err != nil || out.ID != 3 {
		t.Fatalf("got %+v %v", out, err)
	}
	if waited := time.Since(start); waited < 60*time.Millisecond {
		t.Errorf("retried after %v, before the capped Retry-After", waited)
	}
}
