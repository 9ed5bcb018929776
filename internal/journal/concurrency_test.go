package journal

import (
	"fmt"
	"sync"
	"testing"
)

// TestConcurrentWriters drives every write method from many goroutines at
// once, with readers alongside: the single writer connection must serialise
// them without a single SQLITE_BUSY.
func TestConcurrentWriters(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		d := openTest(t)
		ctx := t.Context()
		const workers, docsPerFile = 16, 10

		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				inbox := fmt.Sprintf("inbox%d", w%3)
				id, err := d.ClaimFile(ctx, File{Inbox: inbox, Name: fmt.Sprintf("F%02d.csv", w), SHA256: fmt.Sprint(w)})
				if err != nil {
					t.Errorf("worker %d: %v", w, err)
					return
				}
				docs := make([]Document, docsPerFile)
				for i := range docs {
					docs[i] = Document{Key: fmt.Sprintf("K%d", i)}
				}
				if err := d.AddDocuments(ctx, id, docs); err != nil {
					t.Errorf("worker %d: %v", w, err)
					return
				}
				for _, doc := range docs {
					if err := d.StartAttempt(ctx, id, doc.Key); err != nil {
						t.Errorf("worker %d: %v", w, err)
						return
					}
					if err := d.SetResult(ctx, id, doc.Key, ResultCreated, "/p/"+doc.Key, ""); err != nil {
						t.Errorf("worker %d: %v", w, err)
						return
					}
				}
				if _, err := d.NextSequence(ctx, inbox, "stock"); err != nil {
					t.Errorf("worker %d: %v", w, err)
				}
				if err := d.SaveCursor(ctx, Cursor{Outbox: inbox, Export: "stock", Keys: []string{fmt.Sprint(w)}}); err != nil {
					t.Errorf("worker %d: %v", w, err)
				}
				if err := d.UpdateFile(ctx, File{ID: id, State: FileDone, DocsTotal: docsPerFile, DocsOK: docsPerFile}); err != nil {
					t.Errorf("worker %d: %v", w, err)
				}
			})
		}
		for r := range 4 {
			wg.Go(func() {
				for range 20 {
					if _, err := d.RecentFiles(ctx, "", 10); err != nil {
						t.Errorf("reader %d: %v", r, err)
						return
					}
					if _, err := d.CreatedKeys(ctx, "", "", []string{"K1", "K2"}); err != nil {
						t.Errorf("reader %d: %v", r, err)
						return
					}
				}
			})
		}
		wg.Wait()

		states, err := d.FileStates(ctx, "")
		if err != nil || states[FileDone] != workers {
			t.Errorf("FileStates = %v, %v; want %d done", states, err, workers)
		}
		var created int
		files, err := d.RecentFiles(ctx, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			counts, err := d.DocumentCounts(ctx, f.ID)
			if err != nil {
				t.Fatal(err)
			}
			created += counts[ResultCreated]
		}
		if created != workers*docsPerFile {
			t.Errorf("%d documents created, want %d", created, workers*docsPerFile)
		}
	})
}

// TestTwoHandlesOneFile writes through two journals on the same file, as
// the daemon and a CLI command in another process would: the busy timeout
// and IMMEDIATE transactions must absorb the contention.
func TestTwoHandlesOneFile(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		ctx := t.Context()
		path := journalTarget(t)
		var dbs [2]*DB
		for i := range dbs {
			d, err := Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			dbs[i] = d
		}
		const perHandle = 3
		const docs = 15
		var wg sync.WaitGroup
		for h, d := range dbs {
			for g := range perHandle {
				wg.Go(func() {
					id, err := d.ClaimFile(ctx, File{Inbox: "erp", Name: fmt.Sprintf("H%d-%d.csv", h, g)})
					if err != nil {
						t.Error(err)
						return
					}
					for i := range docs {
						key := fmt.Sprint(i)
						if err := d.AddDocuments(ctx, id, []Document{{Key: key}}); err != nil {
							t.Error(err)
							return
						}
						if err := d.SetResult(ctx, id, key, ResultExists, "", ""); err != nil {
							t.Error(err)
							return
						}
						if _, err := d.NextSequence(ctx, "erp", "shared"); err != nil {
							t.Error(err)
							return
						}
					}
				})
			}
		}
		wg.Wait()
		n, err := dbs[0].NextSequence(ctx, "erp", "shared")
		if want := int64(2*perHandle*docs + 1); err != nil || n != want {
			t.Errorf("NextSequence = %d, %v; want %d", n, err, want)
		}
	})
}
