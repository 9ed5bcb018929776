package journal

import (
	"context"
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

// BenchmarkLocalFile runs the journal calls a one-document local file
// makes, in the order the inbox makes them, from concurrent files as
// file_concurrency does: its figures are the journal's cost a file
// (stmts/op counts the statements the writes ran).
func BenchmarkLocalFile(b *testing.B) {
	benchBackends(b, func(b *testing.B) {
		d := openTest(b)
		ctx := b.Context()
		var n atomic.Int64
		before := d.WriteStats()
		b.SetParallelism(4) // files at once, as file_concurrency
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := benchLocalFile(ctx, d, n.Add(1)); err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.ReportMetric(float64(d.WriteStats().Statements-before.Statements)/float64(b.N), "stmts/op")
	})
}

func benchLocalFile(ctx context.Context, d *DB, i int64) error {
	name := fmt.Sprintf("SUPPLIERS_%06d.csv", i)
	f := File{Inbox: "erp", Name: name, Path: "processing/" + name, Size: 55, SHA256: fmt.Sprintf("%064d", i), Portal: "p"}
	id, err := d.ClaimExclusive(ctx, f)
	if err != nil {
		return err
	}
	f.ID, f.State = id, FileClaimed
	if _, _, err := d.LinkReplay(ctx, f); err != nil {
		return err
	}
	if _, _, err := d.ProcessedHash(ctx, f.Inbox, f.Portal, f.SHA256); err != nil {
		return err
	}
	if _, err := d.Summary(ctx, id); err != nil {
		return err
	}
	f.DocType, f.Rows, f.DocsTotal, f.State = "suppliers", 1, 1, FileSubmitting
	key := fmt.Sprintf("SUP-%06d", i)
	doc := Document{Key: key, Rows: "2", FirstRow: 2, Body: `{"code":"` + key + `"}`, Result: ResultPending}
	if err := d.EndDocuments(ctx, f, `{"Rows":1,"Docs":1}`, []Document{doc}); err != nil {
		return err
	}
	for _, err := range d.FileDocuments(ctx, id, true) {
		if err != nil {
			return err
		}
	}
	if err := d.StartAttempt(ctx, id, key); err != nil {
		return err
	}
	if err := d.SetResult(ctx, id, key, ResultCreated, "/api/suppliers/"+key, ""); err != nil {
		return err
	}
	if _, err := d.DocumentCounts(ctx, id); err != nil {
		return err
	}
	f.FinalPath, f.ReportPath = "processed/2026/03/16/"+name, "processed/2026/03/16/"+name+".report.csv"
	if err := d.UpdateFile(ctx, f); err != nil {
		return err
	}
	if _, err := d.Documents(ctx, id); err != nil {
		return err
	}
	f.State, f.Path, f.DocsOK = FileDone, f.FinalPath, 1
	if err := d.UpdateFile(ctx, f); err != nil {
		return err
	}
	_, err = d.ResolveBy(ctx, f)
	return err
}
