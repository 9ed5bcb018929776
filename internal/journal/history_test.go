package journal

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestHistoryReadOnly fills a journal through the writer and reads it with
// a read-only handle opened beside it, as `filebridge files` does while
// `run` writes.
func TestHistoryReadOnly(t *testing.T) {
	w, clock := openAt(t, time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC))
	t0 := clock.now()
	ctx := t.Context()
	type spec struct {
		inbox, name, typ string
		state            FileState
		at               time.Time
	}
	specs := []spec{
		{"erp", "ORDERS_1.csv", "sales_orders", FileDone, t0},
		{"erp", "ORDERS_2.csv", "sales_orders", FileFailed, t0.Add(time.Hour)},
		{"wms", "SKU_1.xlsx", "skus", FileDone, t0.Add(2 * time.Hour)},
		{"erp", "ORDERS_1.csv", "sales_orders", FileDuplicate, t0.Add(25 * time.Hour)},
		{"erp", "ORDERS_3.csv", "sales_orders", FileSubmitting, t0.Add(26 * time.Hour)},
	}
	ids := make([]int64, len(specs))
	for i, s := range specs {
		clock.set(s.at)
		id, err := w.ClaimFile(ctx, File{Inbox: s.inbox, Name: s.name, DocType: s.typ, State: s.state, ClaimedAt: s.at})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = id
	}
	if err := w.AddDocuments(ctx, ids[1], []Document{{Key: "A"}, {Key: "B"}, {Key: "C"}}); err != nil {
		t.Fatal(err)
	}
	if err := w.SetResult(ctx, ids[1], "A", ResultCreated, "p-1", ""); err != nil {
		t.Fatal(err)
	}
	if err := w.SetResult(ctx, ids[1], "B", ResultInvalid, "", "unknown SKU"); err != nil {
		t.Fatal(err)
	}

	r, err := OpenReadOnly(ctx, w.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	tests := []struct {
		name   string
		filter FileFilter
		want   []string
		count  int
	}{
		{"all newest first", FileFilter{}, []string{"ORDERS_3.csv", "ORDERS_1.csv", "SKU_1.xlsx", "ORDERS_2.csv", "ORDERS_1.csv"}, 5},
		{"inbox", FileFilter{Inbox: "wms"}, []string{"SKU_1.xlsx"}, 1},
		{"states", FileFilter{States: []FileState{FileFailed, FileDuplicate}}, []string{"ORDERS_1.csv", "ORDERS_2.csv"}, 2},
		{"type", FileFilter{DocType: "skus"}, []string{"SKU_1.xlsx"}, 1},
		{"since", FileFilter{Since: t0.Add(24 * time.Hour)}, []string{"ORDERS_3.csv", "ORDERS_1.csv"}, 2},
		{"until", FileFilter{Until: t0.Add(time.Hour)}, []string{"ORDERS_1.csv"}, 1},
		{"name part, any case", FileFilter{Name: "orders_"}, []string{"ORDERS_3.csv", "ORDERS_1.csv", "ORDERS_2.csv", "ORDERS_1.csv"}, 4},
		{"page 2", FileFilter{Limit: 2, Offset: 2}, []string{"SKU_1.xlsx", "ORDERS_2.csv"}, 5},
		{"nothing", FileFilter{Inbox: "none"}, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, err := r.Files(ctx, tt.filter)
			wantNames(t, "Files", fs, err, tt.want)
			n, err := r.CountFiles(ctx, tt.filter)
			if err != nil || n != tt.count {
				t.Errorf("CountFiles = %d, %v; want %d", n, err, tt.count)
			}
		})
	}

	t.Run("find", func(t *testing.T) {
		for _, tt := range []struct {
			ref  string
			want []int64
		}{
			{"ORDERS_1.csv", []int64{ids[3], ids[0]}},
			{"#3", []int64{ids[2]}},
			{"2", []int64{ids[1]}},
		} {
			fs, err := r.FindFiles(ctx, tt.ref)
			if err != nil {
				t.Fatalf("FindFiles(%q): %v", tt.ref, err)
			}
			var got []int64
			for _, f := range fs {
				got = append(got, f.ID)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("FindFiles(%q) = %v, want %v", tt.ref, got, tt.want)
			}
		}
		if _, err := r.FindFiles(ctx, "NOPE.csv"); !errors.Is(err, ErrNotFound) {
			t.Errorf("FindFiles(NOPE.csv) = %v, want ErrNotFound", err)
		}
	})

	t.Run("result counts", func(t *testing.T) {
		got, err := r.ResultCounts(ctx, []int64{ids[0], ids[1]})
		if err != nil {
			t.Fatal(err)
		}
		want := map[int64]map[Result]int{ids[1]: {ResultCreated: 1, ResultInvalid: 1, ResultPending: 1}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("ResultCounts = %v, want %v", got, want)
		}
	})

	t.Run("today", func(t *testing.T) {
		got, err := r.InboxDay(ctx, t0.Add(24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]map[FileState]int{"erp": {FileDuplicate: 1, FileSubmitting: 1}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("InboxDay = %v, want %v", got, want)
		}
	})

	t.Run("writes fail", func(t *testing.T) {
		if _, err := r.ClaimFile(ctx, File{Inbox: "erp", Name: "x.csv"}); err == nil {
			t.Error("ClaimFile through the read-only handle succeeded")
		}
	})

	t.Run("sees the writer's new rows", func(t *testing.T) {
		if _, err := w.ClaimFile(ctx, File{Inbox: "erp", Name: "LATE.csv"}); err != nil {
			t.Fatal(err)
		}
		fs, err := r.Files(ctx, FileFilter{Limit: 1})
		if err != nil || len(fs) != 1 || fs[0].Name != "LATE.csv" {
			t.Errorf("Files(limit 1) = %v, %v; want LATE.csv", fileNames(fs), err)
		}
	})
}

func TestOpenReadOnlyMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.db")
	if _, err := OpenReadOnly(t.Context(), path); err == nil || !strings.Contains(err.Error(), "has not run") {
		t.Fatalf("OpenReadOnly of a missing file: %v, want an error saying filebridge has not run", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("OpenReadOnly created the file: %v", err)
	}
}

func TestExportSummary(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		ctx := t.Context()
		t0 := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
		w, _ := openAt(t, t0)
		ok1, _ := w.StartRun(ctx, "erp", "stock")
		if err := w.FinishRun(ctx, ExportRun{ID: ok1, Rows: 3, FileName: "STOCK_1.csv"}); err != nil {
			t.Fatal(err)
		}
		bad, _ := w.StartRun(ctx, "erp", "stock")
		if err := w.FinishRun(ctx, ExportRun{ID: bad, Error: "portal unreachable"}); err != nil {
			t.Fatal(err)
		}
		if err := w.SaveCursor(ctx, Cursor{Outbox: "erp", Export: "stock", At: t0}); err != nil {
			t.Fatal(err)
		}
		r := w // PostgreSQL: instances share the one journal
		if backendOf(t) == "sqlite" {
			ro, err := OpenReadOnly(ctx, w.Path())
			if err != nil {
				t.Fatal(err)
			}
			defer ro.Close()
			r = ro
		}
		s, err := r.ExportSummary(ctx, "erp", "stock")
		if err != nil {
			t.Fatal(err)
		}
		if s.Last.ID != bad || s.LastSuccess.ID != ok1 || s.LastSuccess.FileName != "STOCK_1.csv" || s.LastError.Error != "portal unreachable" || !s.HasCursor || !s.Cursor.At.Equal(t0) {
			t.Errorf("ExportSummary = %+v", s)
		}
		never, err := r.ExportSummary(ctx, "erp", "items")
		if err != nil || never.Last.ID != 0 || never.HasCursor {
			t.Errorf("ExportSummary of an export that never ran = %+v, %v", never, err)
		}
	})
}

// TestHeldFilter selects the files held for master data: open with
// held_since set; a file that failed after its hold is no longer held.
func TestHeldFilter(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		w := openTest(t)
		ctx := t.Context()
		since := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
		files := []File{
			{Inbox: "erp", Name: "ORDERS_1.csv", State: FileClaimed, HeldSince: since, WaitingFor: "SKU X-1; SKU X-2"},
			{Inbox: "erp", Name: "ORDERS_2.csv", State: FileClaimed},
			{Inbox: "erp", Name: "ORDERS_3.csv", State: FileFailed, HeldSince: since, WaitingFor: "SKU X-3"},
			{Inbox: "wms", Name: "ORDERS_4.csv", State: FileSubmitting, HeldSince: since.Add(time.Hour), WaitingFor: "SKU Y"},
		}
		for _, f := range files {
			if _, err := w.ClaimFile(ctx, f); err != nil {
				t.Fatal(err)
			}
		}
		tests := []struct {
			name   string
			filter FileFilter
			want   []string
			codes  [][]string
		}{
			{"all held", FileFilter{Held: true}, []string{"ORDERS_4.csv", "ORDERS_1.csv"}, [][]string{{"SKU Y"}, {"SKU X-1", "SKU X-2"}}},
			{"held of an inbox", FileFilter{Held: true, Inbox: "erp"}, []string{"ORDERS_1.csv"}, [][]string{{"SKU X-1", "SKU X-2"}}},
			{"held and failed is none", FileFilter{Held: true, States: []FileState{FileFailed}}, nil, nil},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := w.Files(ctx, tt.filter)
				if err != nil {
					t.Fatal(err)
				}
				var names []string
				var codes [][]string
				for _, f := range got {
					if !f.Held() {
						t.Errorf("%s: Held() is false", f.Name)
					}
					names, codes = append(names, f.Name), append(codes, f.WaitingList())
				}
				if !reflect.DeepEqual(names, tt.want) || !reflect.DeepEqual(codes, tt.codes) {
					t.Errorf("got %v %q, want %v %q", names, codes, tt.want, tt.codes)
				}
				n, err := w.CountFiles(ctx, tt.filter)
				if err != nil || n != len(tt.want) {
					t.Errorf("count %d (%v), want %d", n, err, len(tt.want))
				}
			})
		}
	})
}
