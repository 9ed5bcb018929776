package journal

import (
	"fmt"
	"sync/atomic"
	"testing"
)

// benchDocs is how many documents the benchmark file holds; results cycle
// over them.
const benchDocs = 1000

func benchFile(b *testing.B) (*DB, int64, []string) {
	d := openTest(b)
	id := claimTest(b, d, "erp", "BENCH.csv", "orders")
	keys := make([]string, benchDocs)
	docs := make([]Document, benchDocs)
	for i := range docs {
		keys[i] = fmt.Sprintf("SO-%06d", i)
		docs[i] = Document{Key: keys[i]}
	}
	if err := d.AddDocuments(b.Context(), id, docs); err != nil {
		b.Fatal(err)
	}
	return d, id, keys
}

// BenchmarkSetResult measures durable (synchronous=FULL) result writes, one
// commit each.
func BenchmarkSetResult(b *testing.B) {
	benchBackends(b, func(b *testing.B) {
		d, id, keys := benchFile(b)
		ctx := b.Context()
		i := 0
		for b.Loop() {
			key := keys[i%benchDocs]
			if err := d.SetResult(ctx, id, key, ResultCreated, "/api/sales_orders/"+key, ""); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// BenchmarkSetResultParallel is SetResult from concurrent submitters, as
// the inbox's bounded-concurrency submission does.
func BenchmarkSetResultParallel(b *testing.B) {
	benchBackends(b, func(b *testing.B) {
		d, id, keys := benchFile(b)
		ctx := b.Context()
		var n atomic.Int64
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				key := keys[int(n.Add(1))%benchDocs]
				if err := d.SetResult(ctx, id, key, ResultCreated, "/api/sales_orders/"+key, ""); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// BenchmarkSetResults is the batched form, 100 documents per commit.
func BenchmarkSetResults(b *testing.B) {
	benchBackends(b, func(b *testing.B) {
		d, id, keys := benchFile(b)
		ctx := b.Context()
		batch := make([]Document, 100)
		i := 0
		for b.Loop() {
			for j := range batch {
				batch[j] = Document{Key: keys[(i*len(batch)+j)%benchDocs], Result: ResultSkipped}
			}
			if err := d.SetResults(ctx, id, batch); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// benchBackends runs a benchmark as the sub-benchmarks "sqlite" and
// "postgres" (openTest follows the name).
func benchBackends(b *testing.B, fn func(b *testing.B)) {
	for _, name := range []string{"sqlite", "postgres"} {
		b.Run(name, fn)
	}
}
