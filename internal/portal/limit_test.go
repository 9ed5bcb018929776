package portal

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"filebridge/internal/model"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// TestLimiterAIMD drives a limiter of 16 through answers and overloads on
// an injected clock and checks the limit after each step.
func TestLimiterAIMD(t *testing.T) {
	type step struct {
		cl         class
		oldEpoch   bool          // the request started before the last decrease
		retryAfter time.Duration // carried by the answer
		wait       time.Duration // clock advance before the answer
		want       int           // allowed requests afterwards
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"answers keep the maximum", []step{
			{cl: classOK, want: 16}, {cl: classOK, want: 16},
		}},
		{"no word on the load keeps the limit", []step{
			{cl: classNotSent, want: 16}, {cl: classBusy, want: 8}, {cl: classNotSent, want: 8},
		}},
		{"overloads of one wave halve once", []step{
			{cl: classBusy, want: 8},
			{cl: classBusy, oldEpoch: true, want: 8},
			{cl: classBusy, oldEpoch: true, want: 8},
			{cl: classBusy, want: 4},
			{cl: classBusy, want: 2},
			{cl: classBusy, want: 1},
			{cl: classBusy, want: 1},
		}},
		{"Retry-After holds the next decrease off", []step{
			{cl: classBusy, retryAfter: time.Second, want: 8},
			{cl: classBusy, wait: 500 * time.Millisecond, want: 8},
			{cl: classBusy, wait: 499 * time.Millisecond, want: 8},
			{cl: classBusy, wait: time.Millisecond, want: 4},
		}},
		{"answers grow the limit by one per round", []step{
			{cl: classBusy, want: 8}, {cl: classBusy, want: 4},
			// 4 → 4.25 → 4.49 → 4.71 → 4.92 → 5.12
			{cl: classOK, want: 4}, {cl: classOK, want: 4}, {cl: classOK, want: 4},
			{cl: classOK, want: 4}, {cl: classOK, want: 5},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := &fakeClock{t: time.Date(2026, 4, 1, 8, 0, 0, 0, time.UTC)}
			l := newLimiter(16, clk.now)
			ctx := t.Context()
			for i, s := range tt.steps {
				clk.advance(s.wait)
				epoch, err := l.acquire(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if s.oldEpoch {
					epoch--
				}
				l.release(epoch, s.cl, s.retryAfter)
				if got := l.current(); got != s.want {
					t.Fatalf("step %d: limit %d, want %d", i, got, s.want)
				}
			}
		})
	}
}

// TestLimiterGrowsBackToMaximum: from one, about max²/2 answers bring the
// limit back to max, and it never goes past it.
func TestLimiterGrowsBackToMaximum(t *testing.T) {
	l := newLimiter(16, (&fakeClock{}).now)
	for range 5 {
		e, _ := l.acquire(t.Context())
		l.release(e, classBusy, 0)
	}
	if got := l.current(); got != 1 {
		t.Fatalf("limit %d after five overloads, want 1", got)
	}
	answers := 0
	for l.current() < 16 {
		e, _ := l.acquire(t.Context())
		l.release(e, classOK, 0)
		answers++
		if answers > 1000 {
			t.Fatal("the limit does not grow back")
		}
	}
	if answers < 100 || answers > 140 {
		t.Errorf("%d answers from 1 to 16, want about 16²/2", answers)
	}
	for range 100 {
		e, _ := l.acquire(t.Context())
		l.release(e, classOK, 0)
	}
	if got := l.current(); got != 16 {
		t.Errorf("limit %d, want it capped at 16", got)
	}
}

// TestLimiterQueue: requests past the limit wait their turn in order, a
// lower limit lets fewer through, and a waiter that gives up leaves the
// queue and its turn goes to the next.
func TestLimiterQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLimiter(2, time.Now)
		ctx := t.Context()
		e1, _ := l.acquire(ctx)
		e2, _ := l.acquire(ctx)
		var order []int
		done := make(chan int, 3)
		for i := range 3 {
			go func() {
				e, err := l.acquire(ctx)
				if err != nil {
					t.Error(err)
					return
				}
				done <- i
				<-time.After(time.Duration(i+1) * time.Hour) // hold the slot
				l.release(e, classNotSent, 0)
			}()
			synctest.Wait() // queued in this order
		}
		if len(done) != 0 {
			t.Fatal("a request went past the limit")
		}
		// An overload halves the limit to one: releasing both first slots
		// lets one waiter in, not two.
		l.release(e1, classBusy, 0)
		l.release(e2, classNotSent, 0)
		synctest.Wait()
		order = append(order, <-done)
		if len(done) != 0 {
			t.Fatalf("two requests in flight under a limit of %d", l.current())
		}
		time.Sleep(time.Hour) // the first waiter ends
		synctest.Wait()
		order = append(order, <-done)
		time.Sleep(2 * time.Hour)
		synctest.Wait()
		order = append(order, <-done)
		if order[0] != 0 || order[1] != 1 || order[2] != 2 {
			t.Errorf("served in order %v, want 0 1 2", order)
		}
		time.Sleep(3 * time.Hour)
		synctest.Wait()

		// A canceled waiter leaves the queue and the slot goes to the next.
		e, _ := l.acquire(ctx)
		cctx, cancel := context.WithCancel(ctx)
		errc := make(chan error, 1)
		go func() { _, err := l.acquire(cctx); errc <- err }()
		synctest.Wait()
		got := make(chan uint64, 1)
		go func() { e, _ := l.acquire(ctx); got <- e }()
		synctest.Wait()
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("canceled waiter: %v", err)
		}
		l.release(e, classOK, 0)
		synctest.Wait()
		select {
		case <-got:
		default:
			t.Fatal("the slot of a canceled waiter was lost")
		}
	})
}

// TestLimitFollowsAnswers: over real HTTP, one request that meets each
// kind of answer before succeeding leaves the limit of 8 halved for 429,
// 408, 5xx and timeouts, and untouched for refusals and broken
// connections.
func TestLimitFollowsAnswers(t *testing.T) {
	tests := []struct {
		name   string
		status int // 0: answer nothing until the client times out; -1: drop
		want   int
	}{
		{"429", http.StatusTooManyRequests, 4},
		{"408", http.StatusRequestTimeout, 4},
		{"500", http.StatusInternalServerError, 4},
		{"503", http.StatusServiceUnavailable, 4},
		{"timeout", 0, 4},
		{"404", http.StatusNotFound, 8},
		{"dropped", -1, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n atomic.Int32
			srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
				if n.Add(1) > 1 {
					reply(w, 200, `{"hydra:member":[]}`)
					return
				}
				switch tt.status {
				case 0:
					<-r.Context().Done()
				case -1:
					drop(w)
				default:
					w.Header().Set("Retry-After", "1")
					reply(w, tt.status, `{"detail":"no"}`)
				}
			})
			c := testClient(t, model.EditionA, srv.URL, func(c *Config) { c.Concurrency, c.Timeout = 8, 200*time.Millisecond })
			var out map[string]any
			err := c.get(t.Context(), "/things", nil, &out)
			if tt.status == http.StatusNotFound {
				if err == nil {
					t.Fatal("a 404 was not refused")
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if got := c.Limit(); got != tt.want {
				t.Errorf("limit %d, want %d", got, tt.want)
			}
		})
	}
}

// BenchmarkLimiter measures a slot taken and given back by parallel
// callers, against the plain channel semaphore the adaptive limiter
// replaced: what the limiter costs per request.
func BenchmarkLimiter(b *testing.B) {
	const slots = 8
	b.Run("adaptive", func(b *testing.B) {
		l := newLimiter(slots, time.Now)
		ctx := context.Background()
		b.SetParallelism(16) // 32 callers for 8 slots: most wait
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				e, err := l.acquire(ctx)
				if err != nil {
					b.Error(err)
					return
				}
				l.release(e, classOK, 0)
			}
		})
	})
	b.Run("channel", func(b *testing.B) {
		sem := make(chan struct{}, slots)
		ctx := context.Background()
		b.SetParallelism(16)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				select {
				case sem <- struct{}{}:
				case <-ctx.Done():
					return
				}
				<-sem
			}
		})
	})
}
