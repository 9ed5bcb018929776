package outbox

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"filebridge/internal/model"
	"filebridge/internal/portalsim"
)

const benchVariants = 100_000

// BenchmarkStockSnapshot100k exports the stock of 100,000 variants from the
// simulator to a local folder (pages of 10,000), beside
// BenchmarkStockRawPages100k, which only fetches and discards the same
// pages: the difference is what decoding, encoding and writing cost.
// Both report seconds per export and the process's peak RSS during the
// loop (the simulator, in the same process, is part of it).
func BenchmarkStockSnapshot100k(b *testing.B) {
	e := newSimEnv(b, model.EditionA, benchVariants, 1000, nil)
	job := Job{Outbox: "bench", Edition: model.EditionA, Type: model.ExportStock, Filename: "STOCK_{seq}.csv"}
	measure(b, func() {
		res, err := e.runner.Run(b.Context(), job)
		if err != nil {
			b.Fatal(err)
		}
		if res.Rows != benchVariants {
			b.Fatalf("%d rows, want %d", res.Rows, benchVariants)
		}
		if err := os.Remove(e.dir + "/" + res.File); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkStockRawPages100k fetches the pages of the stock snapshot with a
// plain net/http loop and discards them.
func BenchmarkStockRawPages100k(b *testing.B) {
	sim, err := portalsim.New(portalsim.Options{Edition: portalsim.EditionA, Token: "demo-token", Seed: 7, Preload: benchVariants})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(sim.Handler())
	defer srv.Close()
	client := &http.Client{Timeout: time.Minute}
	measure(b, func() {
		n := 0
		for page := 1; ; page++ {
			req, err := http.NewRequestWithContext(b.Context(), http.MethodGet,
				fmt.Sprintf("%s/api/stocks?page=%d&itemsPerPage=%d", srv.URL, page, StockPageSize), nil)
			if err != nil {
				b.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer demo-token")
			req.Header.Set("Accept", "application/ld+json")
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			size, err := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				b.Fatalf("page %d: %s, %v", page, resp.Status, err)
			}
			if n += StockPageSize; n >= benchVariants || size == 0 {
				break
			}
		}
	})
}

// measure runs fn b.N times and reports seconds per run and the peak RSS.
func measure(b *testing.B, fn func()) {
	b.Helper()
	resetPeakRSS()
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		fn()
	}
	b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "s/export")
	if mb := peakRSSMB(); mb > 0 {
		b.ReportMetric(mb, "MB-peak-RSS")
	}
}

// resetPeakRSS resets the kernel's high-water mark of the resident set
// (Linux: write 5 to /proc/self/clear_refs); elsewhere it does nothing.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSSMB reads VmHWM from /proc/self/status, in MiB; 0 when unknown.
func peakRSSMB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				return 0
			}
			return kb / 1024
		}
	}
	return 0
}
