package portalsim

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"
)

// faults injects the failures of a real network and proxy in front of the
// API. Its random source is seeded, so a given request sequence meets the
// same faults.
type faults struct {
	mu                       sync.Mutex
	rng                      *rand.Rand
	fail, throttle, drop     float64
	latency                  time.Duration
	requests                 int
	failed, throttled        int
	dropped, droppedAfterDoc int
}

func (f *faults) set(fail, throttle, drop float64, latency time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail, f.throttle, f.drop, f.latency = fail, throttle, drop, latency
}

// fault is the decision for one request.
type fault int

const (
	noFault fault = iota
	dropBefore
	dropAfter // POST: handle, then drop the response
	throttled
	failJSON
	failHTML
)

// decide draws the fault of one request.
func (f *faults) decide(post bool) (fault, int, time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests++
	r := f.rng.Float64()
	switch {
	case r < f.drop:
		f.dropped++
		if post && f.rng.IntN(2) == 0 {
			f.droppedAfterDoc++
			return dropAfter, 0, f.latency
		}
		return dropBefore, 0, f.latency
	case r < f.drop+f.throttle:
		f.throttled++
		return throttled, http.StatusTooManyRequests, f.latency
	case r < f.drop+f.throttle+f.fail:
		f.failed++
		status := []int{http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable}[f.rng.IntN(3)]
		if f.rng.IntN(3) == 0 {
			return failHTML, status, f.latency
		}
		return failJSON, status, f.latency
	}
	return noFault, 0, f.latency
}

// withFaults wraps the API with latency and injected faults.
func (s *Sim) withFaults(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kind, status, latency := s.faults.decide(r.Method == http.MethodPost)
		if latency > 0 {
			t := time.NewTimer(latency)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		}
		switch kind {
		case dropBefore:
			drop(w)
		case dropAfter:
			next.ServeHTTP(&discard{h: http.Header{}}, r)
			drop(w)
		case throttled:
			w.Header().Set("Retry-After", "1")
			s.writeError(w, status, "Too Many Requests: rate limit exceeded, retry after 1 second.")
		case failHTML:
			text := http.StatusText(status)
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(status)
			fmt.Fprintf(w, "<html>\r\n<head><title>%d %s</title></head>\r\n<body>\r\n<center><h1>%d %s</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n", status, text, status, text)
		case failJSON:
			s.writeError(w, status, "Internal error: the service could not complete the request ("+http.StatusText(status)+"). Retry later.")
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// drop closes the connection without a response.
func drop(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

// discard is a ResponseWriter whose response is lost.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}

// Stats is the body of GET /_sim/stats.
type Stats struct {
	Edition  string         `json:"edition"`
	Ticks    int            `json:"ticks"`
	Counts   map[string]int `json:"counts"`
	Requests int            `json:"requests"`
	// RepeatedCreates counts creates refused because the document's
	// unique key was already used.
	RepeatedCreates int `json:"repeatedCreates"`
	// UndocumentedRequests counts the requests the API documents do not
	// show (an operation they do not list, or a query variable their
	// tables and flows do not give); Undocumented gives them by
	// "METHOD /path" or "GET /path?variable".
	UndocumentedRequests int            `json:"undocumentedRequests"`
	Undocumented         map[string]int `json:"undocumented"`
	// Profile gives every switch's value (see Choices).
	Choices map[string]string `json:"choices"`
	Faults  FaultStats        `json:"faults"`
}

// FaultStats counts injected faults and gives the current settings.
type FaultStats struct {
	FailRate        float64 `json:"failRate"`
	ThrottleRate    float64 `json:"throttleRate"`
	DropRate        float64 `json:"dropRate"`
	Latency         string  `json:"latency"`
	Failed          int     `json:"failed"`
	Throttled       int     `json:"throttled"`
	Dropped         int     `json:"dropped"`
	DroppedAfterDoc int     `json:"droppedAfterCreate"`
}

// Stats returns the document counts and the faults injected so far.
func (s *Sim) Stats() Stats {
	st := Stats{Edition: string(s.opts.Edition), Counts: map[string]int{}}
	s.mu.RLock()
	st.Ticks = s.ticks
	for _, r := range editionResources[s.opts.Edition] {
		st.Counts[string(r)] = len(s.tables[r].items)
	}
	s.mu.RUnlock()
	f := &s.faults
	f.mu.Lock()
	st.Requests = f.requests
	st.RepeatedCreates = s.RepeatedCreates()
	st.UndocumentedRequests, st.Undocumented = s.outside.snapshot()
	if st.Undocumented == nil {
		st.Undocumented = map[string]int{}
	}
	st.Choices = map[string]string{}
	for _, name := range ChoiceNames() {
		st.Choices[name], _ = s.ch.Get(name)
	}
	st.Faults = FaultStats{FailRate: f.fail, ThrottleRate: f.throttle, DropRate: f.drop, Latency: f.latency.String(),
		Failed: f.failed, Throttled: f.throttled, Dropped: f.dropped, DroppedAfterDoc: f.droppedAfterDoc}
	f.mu.Unlock()
	return st
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func (s *Sim) handleTick(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, s.tick())
}

func (s *Sim) handleStats(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, s.Stats())
}

// faultSettings is the body of POST /_sim/faults; absent members keep their
// value. latency is a Go duration ("50ms") or a number of milliseconds.
type faultSettings struct {
	FailRate     *float64        `json:"failRate"`
	ThrottleRate *float64        `json:"throttleRate"`
	DropRate     *float64        `json:"dropRate"`
	Latency      json.RawMessage `json:"latency"`
}

func (s *Sim) handleFaults(w http.ResponseWriter, r *http.Request) {
	var in faultSettings
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "reading fault settings: " + err.Error() + ` (expected {"failRate":0.1,"throttleRate":0,"dropRate":0,"latency":"20ms"})`})
		return
	}
	f := &s.faults
	f.mu.Lock()
	fail, throttle, dropRate, latency := f.fail, f.throttle, f.drop, f.latency
	f.mu.Unlock()
	for _, p := range []struct {
		dst *float64
		src *float64
	}{{&fail, in.FailRate}, {&throttle, in.ThrottleRate}, {&dropRate, in.DropRate}} {
		if p.src != nil {
			*p.dst = *p.src
		}
	}
	if len(in.Latency) > 0 && string(in.Latency) != "null" {
		var d time.Duration
		var err error
		if txt := strings.Trim(string(in.Latency), `"`); strings.HasPrefix(string(in.Latency), `"`) {
			d, err = time.ParseDuration(txt)
		} else {
			var ms float64
			err = json.Unmarshal(in.Latency, &ms)
			d = time.Duration(ms * float64(time.Millisecond))
		}
		if err != nil || d < 0 {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "latency " + string(in.Latency) + " is not a duration: use \"50ms\" or a number of milliseconds"})
			return
		}
		latency = d
	}
	if err := checkRates(fail, throttle, dropRate); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	s.SetFaults(fail, throttle, dropRate, latency)
	writeJSON(w, http.StatusOK, s.Stats().Faults)
}
