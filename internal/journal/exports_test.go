package journal

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"
)

func TestCursors(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		t0 := time.Date(2026, 11, 21, 2, 0, 0, 0, time.UTC)
		d, clock := openAt(t, t0)
		ctx := t.Context()
		at := time.Date(2026, 11, 20, 23, 59, 59, 123456789, time.FixedZone("CET", 3600))

		if _, ok, err := d.Cursor(ctx, "erp", "shipments"); err != nil || ok {
			t.Fatalf("Cursor before save = %v, %v; want not found", ok, err)
		}
		tests := []struct {
			name    string
			save    Cursor
			want    Cursor
			wantErr bool
		}{
			{
				name: "first save",
				save: Cursor{Outbox: "erp", Export: "shipments", At: at, Keys: []string{"SO-1/1", "SO-2/1"}},
				want: Cursor{Outbox: "erp", Export: "shipments", At: at.UTC(), Keys: []string{"SO-1/1", "SO-2/1"}, UpdatedAt: t0},
			},
			{
				name: "replace, no keys",
				save: Cursor{Outbox: "erp", Export: "shipments", At: at.Add(time.Nanosecond)},
				want: Cursor{Outbox: "erp", Export: "shipments", At: at.Add(time.Nanosecond).UTC(), UpdatedAt: t0},
			},
			{
				name: "zero time and odd keys",
				save: Cursor{Outbox: "erp", Export: "receipts", Keys: []string{"", `a"b,c`, "ü"}},
				want: Cursor{Outbox: "erp", Export: "receipts", Keys: []string{"", `a"b,c`, "ü"}, UpdatedAt: t0},
			},
			{name: "no outbox", save: Cursor{Export: "stock"}, wantErr: true},
			{name: "no export", save: Cursor{Outbox: "erp"}, wantErr: true},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				err := d.SaveCursor(ctx, tt.save)
				if (err != nil) != tt.wantErr {
					t.Fatalf("SaveCursor: err = %v, wantErr %v", err, tt.wantErr)
				}
				if tt.wantErr {
					return
				}
				got, ok, err := d.Cursor(ctx, tt.save.Outbox, tt.save.Export)
				if err != nil || !ok {
					t.Fatalf("Cursor = %v, %v", ok, err)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("\n got %+v\nwant %+v", got, tt.want)
				}
			})
		}
		clock.set(t0.Add(time.Hour))
		if err := d.SaveCursor(ctx, Cursor{Outbox: "shop", Export: "stock"}); err != nil {
			t.Fatal(err)
		}
		all, err := d.Cursors(ctx, "")
		if err != nil || len(all) != 3 {
			t.Fatalf("Cursors(all) = %d, %v; want 3", len(all), err)
		}
		erp, err := d.Cursors(ctx, "erp")
		if err != nil || len(erp) != 2 || erp[0].Export != "receipts" || erp[1].Export != "shipments" {
			t.Errorf("Cursors(erp) = %+v, %v", erp, err)
		}
	})
}

func TestNextSequence(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		d := openTest(t)
		ctx := t.Context()
		tests := []struct {
			outbox, export string
			want           int64
		}{
			{"erp", "stock", 1},
			{"erp", "stock", 2},
			{"erp", "shipments", 1},
			{"shop", "stock", 1},
			{"erp", "stock", 3},
		}
		for _, tt := range tests {
			got, err := d.NextSequence(ctx, tt.outbox, tt.export)
			if err != nil || got != tt.want {
				t.Errorf("NextSequence(%s, %s) = %d, %v; want %d", tt.outbox, tt.export, got, err, tt.want)
			}
		}

		t.Run("concurrent callers get distinct numbers", func(t *testing.T) {
			const n = 40
			var wg sync.WaitGroup
			got := make(chan int64, n)
			for range n {
				wg.Go(func() {
					v, err := d.NextSequence(ctx, "erp", "movements")
					if err != nil {
						t.Error(err)
					}
					got <- v
				})
			}
			wg.Wait()
			close(got)
			seen := map[int64]bool{}
			for v := range got {
				if seen[v] || v < 1 || v > n {
					t.Errorf("sequence %d duplicated or out of range", v)
				}
				seen[v] = true
			}
		})
	})
}

func TestExportRuns(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		t0 := time.Date(2026, 11, 21, 2, 0, 0, 0, time.UTC)
		d, clock := openAt(t, t0)
		ctx := t.Context()

		r1, err := d.StartRun(ctx, "erp", "stock")
		if err != nil {
			t.Fatal(err)
		}
		clock.set(t0.Add(3 * time.Second))
		if err := d.FinishRun(ctx, ExportRun{ID: r1, Rows: 120, FileName: "STOCK_1.csv"}); err != nil {
			t.Fatal(err)
		}
		r2, _ := d.StartRun(ctx, "erp", "shipments")
		finished := time.Date(2026, 11, 21, 2, 0, 9, 1, time.UTC)
		if err := d.FinishRun(ctx, ExportRun{ID: r2, FinishedAt: finished, Error: "portal unreachable"}); err != nil {
			t.Fatal(err)
		}
		r3, _ := d.StartRun(ctx, "shop", "stock")
		if err := d.FinishRun(ctx, ExportRun{ID: 999}); !errors.Is(err, ErrNotFound) {
			t.Errorf("FinishRun(unknown) = %v, want ErrNotFound", err)
		}

		me := d.Instance()
		run1 := ExportRun{ID: r1, Outbox: "erp", Export: "stock", State: RunDone, Owner: me, Attempts: 1,
			StartedAt: t0, FinishedAt: t0.Add(3 * time.Second), Rows: 120, FileName: "STOCK_1.csv"}
		run2 := ExportRun{ID: r2, Outbox: "erp", Export: "shipments", State: RunFailed, Owner: me, Attempts: 1,
			StartedAt: t0.Add(3 * time.Second), FinishedAt: finished, Error: "portal unreachable"}
		run3 := ExportRun{ID: r3, Outbox: "shop", Export: "stock", State: RunRunning, Owner: me, Attempts: 1, StartedAt: t0.Add(3 * time.Second)}
		tests := []struct {
			name           string
			outbox, export string
			limit          int
			want           []ExportRun
		}{
			{"all", "", "", 0, []ExportRun{run3, run2, run1}},
			{"limit", "", "", 2, []ExportRun{run3, run2}},
			{"outbox", "erp", "", 0, []ExportRun{run2, run1}},
			{"export", "", "stock", 0, []ExportRun{run3, run1}},
			{"both", "erp", "stock", 1, []ExportRun{run1}},
			{"none", "nope", "", 0, nil},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := d.RecentRuns(ctx, tt.outbox, tt.export, tt.limit)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("\n got %+v\nwant %+v", got, tt.want)
				}
			})
		}
		if !run3.Running() || run1.Running() {
			t.Error("Running() wrong")
		}
	})
}

// Cursors lists the cursors of an outbox (empty: of every outbox); only
// tests use it.
func (d *DB) Cursors(ctx context.Context, outbox string) ([]Cursor, error) {
	out, err := queryAll(ctx, d.r, scanCursor, `SELECT outbox, export, at, keys, updated_at FROM cursors
		WHERE (? = '' OR outbox = ?) ORDER BY outbox, export`, outbox, outbox)
	if err != nil {
		return nil, fmt.Errorf("listing cursors of outbox %q: %w", outbox, err)
	}
	return out, nil
}
