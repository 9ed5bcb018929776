package portal

import (
	"context"
	"sync"
	"time"
)

// limiter bounds the requests in flight to one portal and adapts the bound
// to the portal's answers (AIMD): every answered request adds 1/limit, so
// the limit grows by one per round of answers up to max; an overloaded
// one halves it (never below one).
//
// Requests already in flight when the limit halved were sent under the old
// limit: their overloads tell nothing new and do not halve it again
// (each decrease starts a new epoch, and only a request started in the
// current epoch can end it). A Retry-After keeps further decreases off for
// as long as it asks, so a burst of 429s answered to one wave of requests
// costs one halving, not one per request.
type limiter struct {
	now func() time.Time
	max int

	mu        sync.Mutex
	limit     float64 // current limit; floor(limit) requests may be in flight
	inFlight  int
	epoch     uint64    // number of decreases so far
	calmUntil time.Time // no decrease before this time
	waiting   []*waiter // FIFO
}

// waiter is a request waiting for a slot; ready is closed when it got one
// (in epoch).
type waiter struct {
	ready chan struct{}
	epoch uint64
}

// newLimiter returns a limiter of max requests in flight, starting at max.
func newLimiter(max int, now func() time.Time) *limiter {
	if now == nil {
		now = time.Now
	}
	return &limiter{now: now, max: max, limit: float64(max)}
}

// current returns the number of requests that may be in flight now.
func (l *limiter) current() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return int(l.limit)
}

// acquire waits for a slot, in the order of arrival, and returns the epoch
// it was granted in (to hand back to release).
func (l *limiter) acquire(ctx context.Context) (uint64, error) {
	l.mu.Lock()
	if l.inFlight < int(l.limit) && len(l.waiting) == 0 {
		l.inFlight++
		e := l.epoch
		l.mu.Unlock()
		return e, nil
	}
	w := &waiter{ready: make(chan struct{})}
	l.waiting = append(l.waiting, w)
	l.mu.Unlock()

	select {
	case <-w.ready:
		return w.epoch, nil
	case <-ctx.Done():
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, o := range l.waiting {
		if o == w {
			l.waiting = append(l.waiting[:i], l.waiting[i+1:]...)
			return 0, context.Cause(ctx)
		}
	}
	// Granted meanwhile: pass the slot on.
	l.inFlight--
	l.grant()
	return 0, context.Cause(ctx)
}

// release returns the slot of a request started in epoch, with the class
// of its answer and the Retry-After it carried (0: none).
func (l *limiter) release(epoch uint64, cl class, retryAfter time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inFlight--
	switch {
	case cl == classOK || cl == classReject:
		l.limit = min(l.limit+1/l.limit, float64(l.max))
	case cl.overloaded():
		now := l.now()
		if epoch == l.epoch && !now.Before(l.calmUntil) {
			l.limit = max(l.limit/2, 1)
			l.epoch++
			l.calmUntil = now.Add(retryAfter)
		}
	}
	l.grant()
}

// grant hands free slots to the waiters, first come first served.
func (l *limiter) grant() {
	for len(l.waiting) > 0 && l.inFlight < int(l.limit) {
		w := l.waiting[0]
		l.waiting[0] = nil
		l.waiting = l.waiting[1:]
		l.inFlight++
		w.epoch = l.epoch
		close(w.ready)
	}
}
