package server

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// APIMetrics measures the requests filebridge sends to the portals, on the
// HTTP transport of each portal client: latency by portal, resource and
// method, and outcomes by status code, "error" for a request that got no
// response.
type APIMetrics struct {
	latency  *prometheus.HistogramVec
	requests *prometheus.CounterVec
	errors   *prometheus.CounterVec
	now      func() time.Time // the clock latencies are measured on
}

// NewAPIMetrics registers the API metrics with reg.
func NewAPIMetrics(reg prometheus.Registerer) *APIMetrics {
	m := &APIMetrics{
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "filebridge_api_request_duration_seconds",
			Help:    "Time of one request to the portal API, response headers included.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"portal", "resource", "method"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "filebridge_api_requests_total",
			Help: "Requests to the portal API by status code (\"error\": no response).",
		}, []string{"portal", "resource", "method", "code"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "filebridge_api_errors_total",
			Help: "Failed requests to the portal API: kind is network, throttled (429), server (5xx), auth (401/403) or client (other 4xx).",
		}, []string{"portal", "kind"}),
		now: time.Now,
	}
	reg.MustRegister(m.latency, m.requests, m.errors)
	return m
}

// Observer is told the outcome of each request of a portal (the daemon's
// portal health watches them).
type Observer func(portal string, req *http.Request, resp *http.Response, err error)

// Transport wraps base (nil: a clone of http.DefaultTransport) so that every
// request of the named portal is measured and, when observe is set, told
// to it: one wrapper serves the metrics and the health.
func (m *APIMetrics) Transport(portal string, base http.RoundTripper, observe Observer) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport.(*http.Transport).Clone()
	}
	return &measured{m: m, portal: portal, next: base, observe: observe}
}

type measured struct {
	m       *APIMetrics
	portal  string
	next    http.RoundTripper
	observe Observer
}

var _ http.RoundTripper = (*measured)(nil)

func (t *measured) RoundTrip(req *http.Request) (*http.Response, error) {
	start := t.m.now()
	resp, err := t.next.RoundTrip(req)
	res := resourceOf(req.URL.Path)
	t.m.latency.WithLabelValues(t.portal, res, req.Method).Observe(t.m.now().Sub(start).Seconds())
	code, kind := "error", "network"
	if err == nil {
		code = strconv.Itoa(resp.StatusCode)
		kind = errorKind(resp.StatusCode)
	}
	t.m.requests.WithLabelValues(t.portal, res, req.Method, code).Inc()
	if kind != "" {
		t.m.errors.WithLabelValues(t.portal, kind).Inc()
	}
	if t.observe != nil {
		t.observe(t.portal, req, resp, err)
	}
	return resp, err
}

// errorKind classes a status code for filebridge_api_errors_total; "" is
// not an error.
func errorKind(status int) string {
	switch {
	case status < 400:
		return ""
	case status == http.StatusTooManyRequests:
		return "throttled"
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return "auth"
	case status >= 500:
		return "server"
	}
	return "client"
}

// resourceOf is the last path segment that is not an id: "/api/sales_orders/12"
// gives "sales_orders". It keeps the label's values few.
func resourceOf(path string) string {
	for _, s := range slices.Backward(strings.Split(strings.Trim(path, "/"), "/")) {
		if s == "" {
			continue
		}
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			continue
		}
		if len(s) > 40 {
			return "other"
		}
		return s
	}
	return "root"
}
