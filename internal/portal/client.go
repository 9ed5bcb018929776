// Package portal is filebridge's client of the logistics operator's
// customer-portal REST API, in both editions (A v1.2.0 and B v1.1.0).
//
// It owns one table of both editions' documents (wireTables, wire_docs.go;
// responses are read by the model documents' `wire` tags, read.go, requests
// are the declarations of internal/model),
// hydra paging, bearer authentication, the one function that decides retry
// versus reject (classify), error decoding, and the code-to-id resolution
// cache. It speaks model documents and never imports the file formats.
package portal

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"filebridge/internal/model"
	"filebridge/internal/redact"
)

// retryBaseWait is the first backoff step when Config.RetryBaseWait is
// zero. It is no configuration key: config provisioning (internal/config)
// owns the defaults of every key, and New takes them as given.
const retryBaseWait = 250 * time.Millisecond

// Config configures a Client. The fields of TOML keys (concurrency,
// timeout, retry_max_wait, items_per_page, shipment_status_filter) must be
// set: config provisioning fills their defaults.
type Config struct {
	Edition model.Edition
	// BaseURL is the absolute http(s) URL of the API, including "/api".
	BaseURL string
	// Company is the caller's company id on the portal.
	Company int64
	// Token is the bearer token. It never appears in logs or errors.
	Token string
	// Paths overrides resource paths (resource name -> path starting "/").
	Paths map[string]string
	// Concurrency is the number of requests in flight at most. The client
	// adapts its limit below it to the portal's answers (see Limit).
	Concurrency int
	// Timeout bounds one request, response body included.
	Timeout time.Duration
	// MaxRetries is the number of times a transient failure is retried
	// (0: none; the config package supplies its default of 8).
	MaxRetries int
	// RetryMaxWait caps one backoff wait and a Retry-After.
	RetryMaxWait time.Duration
	// RetryBaseWait is the first backoff step; it doubles per retry.
	RetryBaseWait time.Duration
	// ItemsPerPage is the page size of lists, at most 10000.
	ItemsPerPage int
	// ShipmentStatusFilter is a further name of the Edition A order-list
	// parameter that filters by fulfillment status; both documented names
	// ("fulfillmentStatus.code" and "status.code") are always sent.
	ShipmentStatusFilter string
	// HTTPClient replaces the client's own (which keeps Concurrency idle
	// connections per host).
	HTTPClient *http.Client
	Logger     *slog.Logger
	UserAgent  string
	// Now is the client's clock (nil: time.Now): request latency,
	// Retry-After dates, the adaptive limit and the reference cache.
	Now func() time.Time
}

// Client talks to one portal. It is safe for concurrent use.
type Client struct {
	cfg     Config
	base    *url.URL // without a trailing "/"
	paths   Paths
	wire    *wireTable // the edition's documents
	hc      *http.Client
	ownHC   bool // hc is the client's own: Close releases its connections
	log     *slog.Logger
	lim     *limiter // adaptive bound of the requests in flight
	refs    *refCache
	created keyLocks    // creates of one key, one at a time
	ignored atomic.Bool // the deployment ignores code[] on variants
	// whReading is how the portal reads an Edition B warehouseLocation,
	// once a create told (see warehouseIDs).
	whReading atomic.Int32

	// Every request's URL prefix (base.String()) and header values,
	// shared (a transport only reads them; http.Client copies them for a
	// redirect): Authorization ("Bearer " + token) and User-Agent.
	baseURL string
	hdr     struct{ auth, ua []string }
}

// New checks cfg and returns a client. Configuration errors say what is
// wrong and how to fix it.
func New(cfg Config) (*Client, error) {
	var problems []string
	bad := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }

	if cfg.Edition != model.EditionA && cfg.Edition != model.EditionB {
		bad("edition %q is unknown: use \"A\" (v1.2.0) or \"B\" (v1.1.0)", cfg.Edition)
	}
	base, err := url.Parse(strings.TrimSpace(cfg.BaseURL))
	switch {
	case cfg.BaseURL == "":
		bad("base URL is missing: give the API's absolute URL, e.g. \"https://portal.example.com/api\"")
	case err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "":
		bad("base URL %q is not an absolute http(s) URL: write it like \"https://portal.example.com/api\"", redact.URL(cfg.BaseURL))
	case base.User != nil:
		bad("base URL must not carry a user or password: give the token through token_env or token_file")
	case base.RawQuery != "" || base.Fragment != "":
		bad("base URL %q must not carry a query or a fragment", redact.URL(cfg.BaseURL))
	}
	if strings.TrimSpace(cfg.Token) == "" {
		bad("token is missing: set the portal's token_env or token_file")
	} else if strings.ContainsAny(cfg.Token, "\r\n") {
		bad("token holds a line break: check the token file")
	}
	if cfg.Company <= 0 {
		bad("company must be the positive id the operator gave you, not %d", cfg.Company)
	}
	var paths Paths
	if cfg.Edition == model.EditionA || cfg.Edition == model.EditionB {
		if paths, err = NewPaths(cfg.Edition, cfg.Paths); err != nil {
			bad("%v", err)
		}
	}
	if cfg.Concurrency < 1 {
		bad("concurrency must be at least 1, not %d", cfg.Concurrency)
	}
	if cfg.ItemsPerPage < 1 || cfg.ItemsPerPage > model.MaxItemsPerPage {
		bad("items per page must be between 1 and %d, not %d", model.MaxItemsPerPage, cfg.ItemsPerPage)
	}
	if cfg.Timeout <= 0 || cfg.RetryMaxWait <= 0 {
		bad("timeout and retry max wait must be positive, not %s and %s", cfg.Timeout, cfg.RetryMaxWait)
	}
	if cfg.RetryBaseWait < 0 || cfg.MaxRetries < 0 {
		bad("retry base wait and max retries must not be negative")
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("configuring portal client: %s", strings.Join(problems, "; "))
	}

	if cfg.RetryBaseWait == 0 {
		cfg.RetryBaseWait = retryBaseWait
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.RetryBaseWait = min(cfg.RetryBaseWait, cfg.RetryMaxWait)
	base.Path = strings.TrimRight(base.Path, "/")
	base.RawPath = ""

	c := &Client{
		cfg:   cfg,
		base:  base,
		paths: paths,
		hc:    cfg.HTTPClient,
		log:   cfg.Logger,
		lim:   newLimiter(cfg.Concurrency, cfg.Now),
		refs:  newRefCache(cfg.Now),
		wire:  wireTables[cfg.Edition],
	}
	c.baseURL = base.String()
	c.hdr.auth = []string{"Bearer " + strings.TrimSpace(cfg.Token)}
	c.hdr.ua = []string{cmp.Or(cfg.UserAgent, "filebridge")}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.hc == nil {
		c.hc, c.ownHC = &http.Client{Transport: newTransport(cfg.Concurrency)}, true
	}
	return c, nil
}

// newTransport is the default transport: enough idle connections per host
// for every request in flight to reuse one.
func newTransport(concurrency int) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	idle := max(concurrency, 2)
	t.MaxIdleConnsPerHost = idle
	t.MaxIdleConns = max(t.MaxIdleConns, idle)
	t.IdleConnTimeout = 90 * time.Second
	return t
}

// Edition returns the client's API edition.
func (c *Client) Edition() model.Edition { return c.cfg.Edition }

// Limit returns how many requests the client lets in flight now: the
// configured concurrency while the portal answers, halved on each wave of
// 429, 5xx and timeouts, growing back by one per round of answers.
func (c *Client) Limit() int { return c.lim.current() }

// Company returns the caller's company id.
func (c *Client) Company() int64 { return c.cfg.Company }

// Path returns the path of a resource relative to the base URL.
func (c *Client) Path(r Resource) string { return c.paths[r] }

// Close releases idle connections of the client's own transport (not of
// a Config.HTTPClient).
func (c *Client) Close() {
	if c.ownHC {
		c.hc.CloseIdleConnections()
	}
}

// IRI returns the IRI of a document: the base URL's path, the resource's
// path and the id ("/api/variants/12").
func (c *Client) IRI(r Resource, id int64) string {
	return c.base.Path + c.paths[r] + "/" + strconv.FormatInt(id, 10)
}

func (c *Client) url(path string, q url.Values) string {
	u := c.baseURL + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// serves returns an Invalid error when the edition has no such resource.
func (c *Client) serves(r Resource, what string) error {
	if Serves(c.cfg.Edition, r) {
		return nil
	}
	return &Error{Class: Invalid, Message: fmt.Sprintf("%s exist only in Edition B; this portal is Edition %s", what, c.cfg.Edition)}
}

// canceled wraps the caller's context error in what the call was doing.
func canceled(ctx context.Context, doing func() string) error {
	return fmt.Errorf("%s: %w", doing(), context.Cause(ctx))
}

func asError(err error) (*Error, bool) { return errors.AsType[*Error](err) }
