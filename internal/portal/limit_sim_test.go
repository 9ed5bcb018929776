package portal_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"filebridge/internal/model"
	"filebridge/internal/portal"
	"filebridge/internal/portalsim"
)

// inFlight counts the requests a handler is serving and remembers the
// most at once and the lowest limit the client had while they arrived.
type inFlight struct {
	now, most atomic.Int32
	lowest    atomic.Int32
	limit     func() int
}

func (f *inFlight) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := f.now.Add(1)
		defer f.now.Add(-1)
		for m := f.most.Load(); n > m && !f.most.CompareAndSwap(m, n); m = f.most.Load() {
		}
		l := int32(f.limit())
		for low := f.lowest.Load(); l < low && !f.lowest.CompareAndSwap(low, l); low = f.lowest.Load() {
		}
		next.ServeHTTP(w, r)
	})
}

// TestLimitUnderThrottle: against the simulator answering 30% of the
// requests 429 with Retry-After, many callers creating suppliers through
// a client of concurrency 8 never have more than 8 requests at the portal,
// the limit comes down, every supplier is created exactly once with one
// request more per 429 and none else; once the portal stops throttling the
// limit grows back to 8.
func TestLimitUnderThrottle(t *testing.T) {
	for _, e := range model.Editions {
		t.Run(string(e), func(t *testing.T) {
			sim, err := portalsim.New(portalsim.Options{Edition: portalsim.Edition(e), Seed: 7, ThrottleRate: 0.3})
			if err != nil {
				t.Fatal(err)
			}
			var c *portal.Client
			f := &inFlight{limit: func() int { return c.Limit() }}
			f.lowest.Store(1 << 30)
			srv := httptest.NewServer(f.wrap(sim.Handler()))
			t.Cleanup(srv.Close)
			sp := &simPortal{sim: sim, url: srv.URL}
			c = sp.client(t, func(c *portal.Config) { c.Concurrency = 8 })

			create := func(n int, prefix string) {
				var wg sync.WaitGroup
				var next atomic.Int32
				for range 16 {
					wg.Go(func() {
						for i := int(next.Add(1)); i <= n; i = int(next.Add(1)) {
							if _, err := c.CreatePartner(t.Context(), supplier(e, fmt.Sprintf("%s-%03d", prefix, i))); err != nil {
								t.Error(err)
							}
						}
					})
				}
				wg.Wait()
			}
			const n = 80
			create(n, "T")
			st := sim.Stats()
			if st.Faults.Throttled == 0 {
				t.Fatal("the simulator throttled nothing")
			}
			if want := n + st.Faults.Throttled; st.Requests != want {
				t.Errorf("%d requests for %d creates and %d 429s, want %d", st.Requests, n, st.Faults.Throttled, want)
			}
			for i := 1; i <= n; i++ {
				if got := sim.Count(portalsim.Connections, fmt.Sprintf("T-%03d", i)); got != 1 {
					t.Errorf("supplier T-%03d created %d times", i, got)
				}
			}
			if most := f.most.Load(); most > 8 {
				t.Errorf("%d requests at the portal at once, concurrency is 8", most)
			}
			if low := f.lowest.Load(); low >= 8 {
				t.Errorf("the limit never came down under throttling (lowest %d)", low)
			}

			sim.SetFaults(0, 0, 0, 0)
			create(60, "U")
			if got := c.Limit(); got != 8 {
				t.Errorf("limit %d after 60 answered creates, want it back at 8", got)
			}
		})
	}
}
