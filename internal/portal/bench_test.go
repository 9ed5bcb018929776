package portal_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"filebridge/internal/model"
	"filebridge/internal/portal"
	"filebridge/internal/portalsim"
)

// benchSeq makes partner codes unique across every run of the benchmark.
var benchSeq atomic.Int64

func benchCode() string { return "BN" + strconv.FormatInt(benchSeq.Add(1), 36) }

func benchPartner(code string) model.Partner {
	return model.Partner{Code: code, Name: "Bench partner", Relationship: "Manufacturer", CountryCode: "FR", City: "Lyon"}
}

// runCreates runs b.N creates on conc goroutines and reports creates/s.
func runCreates(b *testing.B, conc int, create func(code string) error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range conc {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				if err := create(benchCode()); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "creates/s")
}

// benchSim serves a fresh Edition B simulator on 127.0.0.1.
func benchSim(tb testing.TB) *httptest.Server {
	sim, err := portalsim.New(portalsim.Options{Edition: portalsim.EditionB, Seed: 1})
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(sim.Handler())
	tb.Cleanup(srv.Close)
	return srv
}

// benchClient is the compared client of srv, at concurrency conc.
func benchClient(tb testing.TB, srv *httptest.Server, conc int) *portal.Client {
	c, err := portal.New(portal.Config{Edition: model.EditionB, BaseURL: srv.URL + "/api", Company: 42,
		Token: "demo-token", Concurrency: conc, Timeout: 30 * time.Second, RetryMaxWait: 2 * time.Minute,
		MaxRetries: 8, ItemsPerPage: 1000})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Close)
	return c
}

// rawClient is the compared bare net/http client, at concurrency conc.
func rawClient(tb testing.TB, conc int) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = conc
	tb.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// BenchmarkCreates compares the client's creates with a bare net/http loop
// posting the same JSON to the same simulator, at several concurrencies.
func BenchmarkCreates(b *testing.B) {
	ctx := context.Background()
	concs := []int{1, 8, 32}
	for _, conc := range concs {
		b.Run(fmt.Sprintf("client/c%d", conc), func(b *testing.B) {
			c := benchClient(b, benchSim(b), conc)
			runCreates(b, conc, func(code string) error {
				_, err := c.CreatePartner(ctx, benchPartner(code))
				return err
			})
		})
	}
	for _, conc := range concs {
		b.Run(fmt.Sprintf("raw/c%d", conc), func(b *testing.B) {
			hc, url := rawClient(b, conc), benchSim(b).URL+"/api/connections"
			runCreates(b, conc, func(code string) error { return rawCreate(ctx, hc, url, code) })
		})
	}
}

// rawCreate is the bare net/http create the client is compared with: the
// client's body and headers, the answer read and its status checked.
func rawCreate(ctx context.Context, hc *http.Client, url, code string) error {
	body := []byte(`{"company":42,"code":"` + code + `","name":"Bench partner","relationship":"Manufacturer","countryCode":"FR","city":"Lyon"}` + "\n")
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer demo-token")
	req.Header.Set("Accept", "application/ld+json")
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}
