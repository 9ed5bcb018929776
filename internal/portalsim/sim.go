// Package portalsim simulates the logistics operator's customer-portal API
// (Edition A or B) for the demo, the end-to-end tests and the benchmarks: an
// API Platform-like JSON-LD service with hydra collections, every documented
// filter, bearer auth, validation with constraint violations, seeded
// reference data, a warehouse that moves on by itself, and fault injection.
package portalsim

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Options configure a simulator. The zero value serves Edition A with the
// token "demo-token" for company 42.
type Options struct {
	Edition Edition
	Token   string // default "demo-token"
	Company int64  // default 42
	Seed    int64
	// Tick is how often the warehouse moves on by itself while Serve runs;
	// 0 = only on POST /_sim/tick (or Tick()).
	Tick         time.Duration
	Latency      time.Duration
	FailRate     float64 // share of requests answered 500/502/503
	ThrottleRate float64 // share answered 429 with Retry-After
	DropRate     float64 // share whose connection is closed without a response
	// Envelope is "hydra" (default: hydra:member, hydra:totalItems...) or
	// "plain" (member, totalItems... as API Platform 3 without prefix).
	Envelope string
	// Preload creates this many variants with suppliers and stock at start.
	Preload int
	Logger  *slog.Logger
	// Choices say how the open points of the API documents are read; nil
	// takes the DefaultProfile ("documented"), or "literal" with Literal.
	Choices *Choices
	// Literal takes the "literal" profile when Choices is nil: only what
	// the API documents state (no item reads, hydra:next only on shipping
	// units, no timestamps where the field tables list none, only the
	// documented filters, a repeated consignee code refused).
	Literal bool
	// Clock replaces time.Now (tests). The simulator's timestamps never go
	// back even when it does.
	Clock func() time.Time
}

// Sim is a running simulated portal. It is safe for concurrent use.
type Sim struct {
	opts   Options
	ch     Choices
	log    *slog.Logger
	plain  bool
	faults faults
	// repeated counts creates refused because their unique key is
	// already used: a client sending a document again.
	repeated atomic.Int64
	// outside counts the requests the documents do not show.
	outside outsideCounter

	mu      sync.RWMutex // guards everything below
	clock   clock
	rng     *rand.Rand
	tables  map[Resource]*table
	ticks   int
	lineIDs int64 // ids of fulfillment, unfulfillable and shipping unit lines

	res   map[Resource]*resource
	paths map[string]*resource
}

// New checks the options and builds a simulator with its reference data.
func New(opts Options) (*Sim, error) {
	if opts.Edition == "" {
		opts.Edition = EditionA
	}
	if _, err := parseEdition(string(opts.Edition)); err != nil {
		return nil, fmt.Errorf("creating simulator: %w", err)
	}
	if opts.Token == "" {
		opts.Token = "demo-token"
	}
	if opts.Company == 0 {
		opts.Company = 42
	}
	switch opts.Envelope {
	case "":
		opts.Envelope = "hydra"
	case "hydra", "plain":
	default:
		return nil, fmt.Errorf("creating simulator: envelope %q: use \"hydra\" or \"plain\"", opts.Envelope)
	}
	if opts.Tick < 0 || opts.Latency < 0 || opts.Preload < 0 {
		return nil, errors.New("creating simulator: tick, latency and preload must not be negative")
	}
	if err := checkRates(opts.FailRate, opts.ThrottleRate, opts.DropRate); err != nil {
		return nil, fmt.Errorf("creating simulator: %w", err)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	var ch Choices
	switch {
	case opts.Choices != nil:
		ch = *opts.Choices
	case opts.Literal:
		ch = profiles["literal"]
	default:
		ch = profiles[DefaultProfile]
	}
	if err := ch.check(); err != nil {
		return nil, fmt.Errorf("creating simulator: %w", err)
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	seed := uint64(opts.Seed)
	s := &Sim{
		opts:   opts,
		ch:     ch,
		log:    opts.Logger,
		plain:  opts.Envelope == "plain",
		clock:  clock{now: opts.Clock},
		rng:    rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		tables: map[Resource]*table{},
		res:    map[Resource]*resource{},
		paths:  map[string]*resource{},
	}
	s.faults.rng = rand.New(rand.NewPCG(seed^0x5851f42d4c957f2d, seed))
	s.faults.set(opts.FailRate, opts.ThrottleRate, opts.DropRate, opts.Latency)
	for _, r := range allResources {
		s.tables[r] = newTable()
	}
	for _, r := range editionResources[opts.Edition] {
		d := s.describe(r)
		d.path = r.path()
		d.index()
		s.applyFilterChoices(d)
		s.res[r] = d
		s.paths[d.path] = d
	}
	s.seed(opts.Preload)
	return s, nil
}

// Handler serves /api/... (bearer token required, faults injected) and
// /_sim/... (tick, stats, faults; no token, no faults).
func (s *Sim) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /_sim/tick", s.handleTick)
	mux.HandleFunc("GET /_sim/stats", s.handleStats)
	mux.HandleFunc("POST /_sim/faults", s.handleFaults)
	mux.Handle("/api/", s.withFaults(http.HandlerFunc(s.serveAPI)))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, http.StatusNotFound, "No route found for \""+r.Method+" "+r.URL.Path+"\"")
	})
	return mux
}

// Serve serves the handler on ln until ctx is done, moving the warehouse on
// every Options.Tick.
func (s *Sim) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	var tick <-chan time.Time
	if s.opts.Tick > 0 {
		t := time.NewTicker(s.opts.Tick)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-tick:
			sum := s.tick()
			s.log.Debug("warehouse moved on", "tick", sum.Tick, "received", sum.Received, "shipped", sum.Shipped)
		case err := <-errc:
			return fmt.Errorf("serving simulator: %w", err)
		case <-ctx.Done():
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := srv.Shutdown(sctx); err != nil {
				return fmt.Errorf("stopping simulator: %w", err)
			}
			return nil
		}
	}
}

// Count returns how many documents of the resource carry the unique key:
// code (connections, carriers), sku (variants, stocks), orderNumber
// (purchase and sales orders), "<sku>/<code>" or code (packagings),
// fulfillmentNumber, shippingUnitNumber, or the id for other resources.
func (s *Sim) Count(r Resource, key string) int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t := s.tables[r]
	if t == nil {
		return 0
	}
	n := 0
	for _, d := range t.items {
		if k := s.keyOf(r, d); k == key || (r == VariantPackagings && d.(*packaging).Code == key) {
			n++
		}
	}
	return n
}

// keyOf is the unique key Count matches.
func (s *Sim) keyOf(r Resource, d doc) string {
	switch x := d.(type) {
	case *connection:
		return x.Code
	case *carrier:
		return x.Code
	case *carrierService:
		return x.Code
	case *variant:
		return x.SKU
	case *stock:
		return s.variantOf(x.VariantID).SKU
	case *packaging:
		return s.variantOf(x.VariantID).SKU + "/" + x.Code
	case *purchaseOrder:
		return x.OrderNumber
	case *salesOrder:
		return x.OrderNumber
	case *fulfillment:
		return x.FulfillmentNumber
	case *shippingUnit:
		return x.Number
	}
	return strconv.FormatInt(d.meta().ID, 10)
}

// UndocumentedRequests is how many requests the API documents do not show
// the simulator has served (see Stats.Undocumented).
func (s *Sim) UndocumentedRequests() int { n, _ := s.outside.snapshot(); return n }

// RepeatedCreates is how many creates were refused because their
// document's unique key was already used (a document sent twice).
func (s *Sim) RepeatedCreates() int { return int(s.repeated.Load()) }

// Len returns how many documents the resource holds.
func (s *Sim) Len(r Resource) int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if t := s.tables[r]; t != nil {
		return len(t.items)
	}
	return 0
}

// SetFaults changes the fault rates and latency at once. Rates outside 0..1
// are clamped.
func (s *Sim) SetFaults(fail, throttle, drop float64, latency time.Duration) {
	s.faults.set(clamp(fail), clamp(throttle), clamp(drop), max(latency, 0))
}

func clamp(f float64) float64 { return min(max(f, 0), 1) }

func checkRates(rates ...float64) error {
	sum := 0.0
	for _, r := range rates {
		if r < 0 || r > 1 {
			return fmt.Errorf("fault rate %v is outside 0..1", r)
		}
		sum += r
	}
	if sum > 1 {
		return fmt.Errorf("fault rates add up to %v, more than 1", sum)
	}
	return nil
}

// serveAPI authenticates and routes a request under /api.
func (s *Sim) serveAPI(w http.ResponseWriter, r *http.Request) {
	auth := r.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok || strings.TrimSpace(tok) != s.opts.Token {
		w.Header().Set("WWW-Authenticate", `Bearer realm="api"`)
		msg := "Full authentication is required to access this resource: send Authorization: Bearer <token>."
		if ok {
			msg = "Invalid token: the bearer token is unknown or expired."
		}
		s.writeError(w, http.StatusUnauthorized, msg)
		return
	}
	path := strings.TrimRight(r.URL.Path, "/")
	res, id := s.paths[path], ""
	if res == nil {
		if i := strings.LastIndexByte(path, '/'); i > 0 {
			res, id = s.paths[path[:i]], path[i+1:]
		}
	}
	s.countOutside(r, res, id)
	if res == nil {
		s.writeError(w, http.StatusNotFound, "No route found for \""+r.Method+" "+r.URL.Path+"\"")
		return
	}
	switch {
	case id == "" && r.Method == http.MethodGet:
		s.list(w, r, res)
	case id == "" && r.Method == http.MethodPost && res.create != nil:
		s.createDoc(w, r, res)
	case id != "" && r.Method == http.MethodGet:
		s.item(w, res, id)
	default:
		allow := "GET"
		if id == "" && res.create != nil {
			allow = "GET, POST"
		}
		w.Header().Set("Allow", allow)
		s.writeError(w, http.StatusMethodNotAllowed, "No route found for \""+r.Method+" "+r.URL.Path+"\": Method Not Allowed (Allow: "+allow+")")
	}
}

// item serves GET /api/<res>/{id}, which the documents do not list: as
// Choices.ItemReads says.
func (s *Sim) item(w http.ResponseWriter, res *resource, id string) {
	switch s.ch.ItemReads {
	case "404":
		s.writeError(w, http.StatusNotFound, "No route found for \"GET "+res.path+"/"+id+"\"")
		return
	case "403":
		s.writeError(w, http.StatusForbidden, "Access Denied.")
		return
	}
	n, err := strconv.ParseInt(id, 10, 64)
	s.mu.RLock()
	var body []byte
	if err == nil {
		if d := s.tables[res.name].get(n); d != nil {
			body = appendJSON(nil, withContext(res, res.render(d)))
		}
	}
	s.mu.RUnlock()
	if body == nil {
		s.writeError(w, http.StatusNotFound, "Not Found: no "+res.typ+" with id "+id+".")
		return
	}
	writeBody(w, http.StatusOK, body)
}

// withContext prefixes a top-level document with its JSON-LD @context.
func withContext(res *resource, o obj) obj {
	return append(obj{{"@context", "/api/contexts/" + res.typ}}, o...)
}

const contentType = "application/ld+json; charset=utf-8"

func writeBody(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeError writes an API Platform error (hydra:Error, or Error with the
// plain envelope).
func (s *Sim) writeError(w http.ResponseWriter, status int, msg string) {
	var o obj
	if s.plain {
		o = obj{{"@context", "/api/contexts/Error"}, {"@type", "Error"}, {"title", "An error occurred"}, {"detail", msg}, {"description", msg}, {"status", status}}
	} else {
		o = obj{{"@context", "/api/contexts/Error"}, {"@type", "hydra:Error"}, {"hydra:title", "An error occurred"}, {"hydra:description", msg}}
	}
	writeBody(w, status, appendJSON(nil, o))
}

// Company is the caller's company id the simulator expects.
func (s *Sim) Company() int64 { return s.opts.Company }

// Token is the bearer token the simulator accepts.
func (s *Sim) Token() string { return s.opts.Token }

// Choices returns how the simulator reads the documents' open points.
func (s *Sim) Choices() Choices { return s.ch }

// Edition is the edition the simulator serves.
func (s *Sim) Edition() Edition { return s.opts.Edition }
