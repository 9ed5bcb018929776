package portalsim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestFaultsDeterministic(t *testing.T) {
	run := func(seed int64) string {
		o := edA()
		o.Seed, o.FailRate, o.ThrottleRate = seed, 0.3, 0.3
		c := start(t, o)
		var b strings.Builder
		for range 40 {
			r := c.do("GET", "/api/connections", nil)
			fmt.Fprintf(&b, "%d ", r.status)
			switch {
			case r.status == 429 && r.header.Get("Retry-After") != "1":
				t.Errorf("429 without Retry-After: 1")
			case r.status >= 500 && r.status != 500 && r.status != 502 && r.status != 503:
				t.Errorf("status %d", r.status)
			}
		}
		return b.String()
	}
	a, b := run(7), run(7)
	if a != b {
		t.Fatalf("same seed, different faults:\n%s\n%s", a, b)
	}
	for _, want := range []string{"200", "429", "50"} {
		if !strings.Contains(a, want) {
			t.Errorf("no %s in %s", want, a)
		}
	}
	if a == run(8) {
		t.Error("another seed gives the same faults")
	}
}

func TestFaultsSimEndpoints(t *testing.T) {
	o := edA()
	o.FailRate = 1
	c := start(t, o)
	c.mustDo(200, "GET", "/_sim/stats", nil) // never faulted
	c.mustDo(200, "POST", "/_sim/tick", nil)
	if r := c.do("GET", "/api/connections", nil); r.status < 500 {
		t.Fatalf("status %d with FailRate 1", r.status)
	}
	c.mustDo(200, "POST", "/_sim/faults", `{"failRate":0,"throttleRate":1,"latency":"1ms"}`)
	if r := c.do("GET", "/api/connections", nil); r.status != 429 {
		t.Fatalf("status %d with ThrottleRate 1", r.status)
	}
	c.mustDo(400, "POST", "/_sim/faults", `{"failRate":0.6,"throttleRate":0.6}`)
	c.mustDo(400, "POST", "/_sim/faults", `{"bogus":1}`)
	c.sim.SetFaults(0, 0, 0, 0)
	c.get("/connections")
	st := c.mustDo(200, "GET", "/_sim/stats", nil)
	if num(at(st.body, "faults.failed")) != 1 || num(at(st.body, "faults.throttled")) != 1 {
		t.Errorf("stats: %s", st.raw)
	}
}

func TestDrops(t *testing.T) {
	o := edA()
	o.DropRate = 1
	c := start(t, o)
	c.hc = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	const n = 20
	for i := range n {
		req, _ := http.NewRequest("POST", c.base+"/api/connections", strings.NewReader(fmt.Sprintf(`{"company":42,"code":"D%d","name":"x","relationship":"Manufacturer"}`, i)))
		req.Header.Set("Authorization", "Bearer demo-token")
		if res, err := c.hc.Do(req); err == nil {
			res.Body.Close()
			t.Fatalf("request %d got a response (%d) with DropRate 1", i, res.StatusCode)
		}
	}
	created := c.sim.Len(Connections)
	if created == 0 || created == n || created != c.sim.Stats().Faults.DroppedAfterDoc {
		t.Errorf("%d of %d dropped creates stored, stats say %d", created, n, c.sim.Stats().Faults.DroppedAfterDoc)
	}
}

func TestLatencyRespectsContext(t *testing.T) {
	o := edA()
	o.Latency = 5 * time.Second
	c := start(t, o)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", c.base+"/api/connections", nil)
	req.Header.Set("Authorization", "Bearer demo-token")
	_, err := c.hc.Do(req)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
}

func BenchmarkCreateVariants(b *testing.B) {
	s, err := New(Options{Edition: "A"})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptestServer(b, s)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	post := func(body string) {
		req, _ := http.NewRequest("POST", srv+"/api/variants", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer demo-token")
		req.Header.Set("Content-Type", "application/json")
		res, err := hc.Do(req)
		if err != nil {
			b.Error(err)
			return
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			b.Errorf("status %d", res.StatusCode)
		}
	}
	req, _ := http.NewRequest("POST", srv+"/api/connections", strings.NewReader(`{"company":42,"code":"S1","name":"S","relationship":"Manufacturer"}`))
	req.Header.Set("Authorization", "Bearer demo-token")
	if res, err := hc.Do(req); err == nil {
		res.Body.Close()
	}
	var n atomic.Int64
	b.SetParallelism(16)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			post(fmt.Sprintf(`{"company":42,"sku":"B%d","name":"n","ean":"4006381333931","quantityPerBox":1,"length":1,"width":1,"height":1,"grossWeight":1,"grossWeightBox":1,"buyPrice":1,"supplier":1}`, i))
		}
	})
}

func httptestServer(b *testing.B, s *Sim) string {
	srv := httptest.NewServer(s.Handler())
	b.Cleanup(srv.Close)
	return srv.URL
}
