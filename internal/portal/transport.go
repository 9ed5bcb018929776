package portal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"filebridge/internal/backoff"
)

// class is what one attempt's answer, or its failure, says: what the
// retry loop does next, and what the limiter learns of the portal's load
// (answered: it grows; overloaded: it halves; else it stays).
type class int

const (
	classOK       class = iota // 2xx, response read; answered
	classReject                // refused for good (4xx): decode the body; answered
	classBusy                  // 429, 408 or not sent in time: send again after a wait; overloaded
	classNotSent               // not sent whole: send again after a wait
	classUnknown               // sent, no (readable) answer: may have been processed, a POST looks up first
	classTimedOut              // as classUnknown, no answer within the timeout; overloaded
	classFailed                // 5xx: as classUnknown; overloaded
	classCanceled              // the caller's context is done
)

// overloaded reports whether the class says the portal is overloaded.
func (cl class) overloaded() bool {
	return cl == classBusy || cl == classTimedOut || cl == classFailed
}

// unknown reports whether the attempt may have been processed.
func (cl class) unknown() bool {
	return cl == classUnknown || cl == classTimedOut || cl == classFailed
}

// sendError is a failed attempt without a usable response.
type sendError struct {
	err        error
	written    bool // the whole request reached the connection
	callerDone bool // the caller's context ended
	timedOut   bool // no answer within the timeout
}

func (e *sendError) Error() string { return e.err.Error() }
func (e *sendError) Unwrap() error { return e.err }

// classify is the one place that decides retry versus reject, from the
// response of an attempt (body already consumed) or its error.
func classify(resp *http.Response, err error) class {
	if err != nil {
		var se *sendError
		if errors.As(err, &se) {
			switch {
			case se.callerDone:
				return classCanceled
			case !se.written && se.timedOut:
				return classBusy
			case !se.written:
				return classNotSent
			case se.timedOut:
				return classTimedOut
			}
		}
		return classUnknown
	}
	switch s := resp.StatusCode; {
	case s >= 200 && s < 300:
		return classOK
	case s == http.StatusTooManyRequests || s == http.StatusRequestTimeout:
		return classBusy
	case s >= 500:
		return classFailed
	}
	return classReject
}

// bufPool recycles request body buffers.
var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// encodeBody streams v as JSON into a pooled buffer; release it with
// releaseBody once every attempt is done.
func encodeBody(v any) (*bytes.Buffer, error) {
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		releaseBody(buf)
		return nil, fmt.Errorf("encoding request body: %w", err)
	}
	return buf, nil
}

func releaseBody(b *bytes.Buffer) {
	if b != nil && b.Cap() <= 1<<20 {
		bufPool.Put(b)
	}
}

// attempt sends one request under the adaptive concurrency limit and
// tells the limiter what its class says about the portal's load.
func (c *Client) attempt(ctx context.Context, method, path string, q url.Values, body []byte, out any) (*http.Response, []byte, class, error) {
	epoch, err := c.lim.acquire(ctx)
	if err != nil {
		return nil, nil, classCanceled, &sendError{err: err, callerDone: true}
	}
	resp, errBody, err := c.roundTrip(ctx, method, path, q, body, out)
	cl := classify(resp, err)
	var retryAfter time.Duration
	if resp != nil && cl.overloaded() {
		retryAfter, _ = c.retryAfter(resp)
	}
	c.lim.release(epoch, cl, retryAfter)
	return resp, errBody, cl, err
}

// roundTrip sends one request within the per-request timeout. On 2xx it
// decodes the body into out (when not nil); otherwise it returns up to
// maxErrorBody bytes of the body. The returned response's body is always
// drained and closed.
func (c *Client) roundTrip(ctx context.Context, method, path string, q url.Values, body []byte, out any) (*http.Response, []byte, error) {
	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	// WroteRequest fires once the whole request went out: after that, a
	// failure leaves the outcome unknown.
	w := new(wroteTrace)
	w.trace.WroteRequest = w.wrote
	actx = httptrace.WithClientTrace(actx, &w.trace)
	// A *bytes.Reader lets the transport send headers and body in one write.
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(actx, method, c.url(path, q), rd)
	if err != nil {
		return nil, nil, &sendError{err: fmt.Errorf("building request: %w", err), callerDone: true}
	}
	req.Header["Authorization"] = c.hdr.auth
	req.Header["Accept"] = hdrAccept
	req.Header["User-Agent"] = c.hdr.ua
	if body != nil {
		req.Header["Content-Type"] = hdrJSON
	}
	var start time.Time
	debug := c.log.Enabled(ctx, slog.LevelDebug)
	if debug {
		start = c.cfg.Now()
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, nil, c.sendFailure(ctx, err, w.written.Load())
	}
	defer drainClose(resp.Body)
	if debug {
		c.log.LogAttrs(ctx, slog.LevelDebug, "portal request", slog.String("method", method),
			slog.String("path", path), slog.Int("status", resp.StatusCode), slog.Duration("took", c.cfg.Now().Sub(start)))
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		if out != nil {
			var err error
			if br, ok := out.(bodyReader); ok {
				err = br.read(resp.Body, resp.ContentLength)
			} else {
				err = decodeBody(resp.Body, out)
			}
			if err != nil {
				// Processed, but unreadable: the outcome is unknown.
				return nil, nil, c.sendFailure(ctx, fmt.Errorf("reading the %d response: %w", resp.StatusCode, err), true)
			}
		}
		return resp, nil, nil
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	return resp, b, nil
}

// wroteTrace tells whether the whole request went out.
type wroteTrace struct {
	trace   httptrace.ClientTrace
	written atomic.Bool
}

func (w *wroteTrace) wrote(i httptrace.WroteRequestInfo) {
	if i.Err == nil {
		w.written.Store(true)
	}
}

// The values of the Accept and Content-Type headers, shared as the
// Client's hdr.
var (
	hdrAccept = []string{"application/ld+json"}
	hdrJSON   = []string{"application/json"}
)

// sendFailure describes a failed round trip without the URL (which
// carries codes in its query) and without any header.
func (c *Client) sendFailure(ctx context.Context, err error, written bool) *sendError {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	se := &sendError{err: err, written: written}
	var ne net.Error
	switch {
	case ctx.Err() != nil:
		se.callerDone, se.err = true, context.Cause(ctx)
	case errors.Is(err, context.DeadlineExceeded):
		se.timedOut = true
		se.err = fmt.Errorf("no response within %s: %w", c.cfg.Timeout, err)
	case errors.As(err, &ne) && ne.Timeout():
		se.timedOut = true
	}
	return se
}

// bodyReader is an out of its own reading of a success body (rawBody,
// docID); size is the announced length, -1 unknown.
type bodyReader interface {
	read(r io.Reader, size int64) error
}

// decodeBody reads a success body into out (a page).
func decodeBody(r io.Reader, out any) error {
	buf := bufPool.Get().(*bytes.Buffer)
	defer releaseBody(buf)
	buf.Reset()
	if _, err := buf.ReadFrom(r); err != nil {
		return err
	}
	return json.Unmarshal(buf.Bytes(), out)
}

// drainClose reads what is left of a body (bounded) so the connection can
// be reused, then closes it.
func drainClose(b io.ReadCloser) {
	_, _ = io.CopyN(io.Discard, b, 256<<10)
	_ = b.Close()
}

// failure builds the *Error of an attempt that did not succeed: its
// class is the status's (decodeError), Transient without a response.
func failure(method, path string, resp *http.Response, body []byte, err error) *Error {
	var e *Error
	if resp != nil {
		e = decodeError(resp.StatusCode, body)
	} else {
		e = &Error{Class: Transient, Err: err, Message: err.Error()}
	}
	e.Method, e.Path = method, path
	return e
}

// request is one API call for the retry loop (send).
type request struct {
	method, path string
	query        url.Values
	body         []byte        // JSON; nil for a GET
	out          any           // decoded from a 2xx body when not nil
	doing        func() string // what the call does, for a cancellation: "reading /x"
	// unknown, when not nil, runs after an attempt whose outcome is
	// unknown (it may have been processed) and before any resend: stop
	// ends the loop with err (nil: the call took effect after all).
	unknown func(ctx context.Context, e *Error) (stop bool, err error)
}

// send is the one retry loop of every call, reads and creates alike.
// classify decides per attempt; transient failures are sent again after a
// wait (backoff or Retry-After, see wait) up to MaxRetries times, under the
// limiter that attempt goes through. A refusal returns its *Error.
func (c *Client) send(ctx context.Context, r request) error {
	for n := 0; ; n++ {
		resp, body, cl, err := c.attempt(ctx, r.method, r.path, r.query, r.body, r.out)
		switch cl {
		case classOK:
			return nil
		case classCanceled:
			return canceled(ctx, r.doing)
		}
		e := failure(r.method, r.path, resp, body, err)
		if cl == classReject {
			return e
		}
		if cl.unknown() && r.unknown != nil {
			if stop, err := r.unknown(ctx, e); stop {
				return err
			}
		}
		if n >= c.cfg.MaxRetries {
			return e
		}
		if err := c.wait(ctx, n, resp, e); err != nil {
			return err
		}
	}
}

// get reads a resource; a GET changes nothing, so every transient failure
// is sent again.
func (c *Client) get(ctx context.Context, path string, q url.Values, out any) error {
	return c.send(ctx, request{method: http.MethodGet, path: path, query: q, out: out,
		doing: func() string { return "reading " + path }})
}

// wait sleeps before retry number attempt+1: capped exponential backoff
// with full jitter, or the response's Retry-After (capped by RetryMaxWait).
func (c *Client) wait(ctx context.Context, attempt int, resp *http.Response, cause *Error) error {
	d := backoff.Backoff{Initial: c.cfg.RetryBaseWait, Max: c.cfg.RetryMaxWait, Jitter: backoff.FullJitter}.Next(attempt)
	if resp != nil {
		if ra, ok := c.retryAfter(resp); ok {
			d = ra
		}
	}
	c.log.LogAttrs(ctx, slog.LevelWarn, "portal request failed, retrying",
		slog.String("method", cause.Method), slog.String("path", cause.Path),
		slog.Int("status", cause.Status), slog.String("error", cause.Error()),
		slog.Int("retry", attempt+1), slog.Duration("wait", d))
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting to retry %s %s after %q: %w", cause.Method, cause.Path, cause.Error(), context.Cause(ctx))
	}
}

// retryAfter is the response's Retry-After, measured on the client's
// clock and capped by RetryMaxWait; false when it has none that parses.
func (c *Client) retryAfter(resp *http.Response) (time.Duration, bool) {
	ra, ok := parseRetryAfter(resp.Header.Get("Retry-After"), c.cfg.Now())
	return min(ra, c.cfg.RetryMaxWait), ok
}

// parseRetryAfter reads a Retry-After value: delay seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		if n > 1<<31 {
			n = 1 << 31
		}
		return time.Duration(n) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(t.Sub(now), 0), true
}
