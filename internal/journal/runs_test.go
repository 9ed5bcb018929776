package journal

import (
	"errors"
	"testing"
	"time"
)

// TestExportRunPages: the exports page's reads on both backends: runs
// paged per export with their total, one run by id, the kept copies of
// their files, a re-send recorded apart from the export's own runs, and
// documents found by a part of their key.
func TestExportRunPages(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		t0 := time.Date(2026, 11, 21, 2, 0, 0, 0, time.UTC)
		d, _ := openAt(t, t0)
		ctx := t.Context()
		var ids []int64
		for i, ex := range []string{"stock", "stock", "items", "stock"} {
			id, err := d.StartRun(ctx, "erp", ex)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.FinishRun(ctx, ExportRun{ID: id, Rows: i + 1, FileName: ex + ".csv"}); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		tests := []struct {
			name      string
			f         RunFilter
			wantIDs   []int64
			wantTotal int
		}{
			{"all", RunFilter{}, []int64{ids[3], ids[2], ids[1], ids[0]}, 4},
			{"one export", RunFilter{Outbox: "erp", Export: "stock"}, []int64{ids[3], ids[1], ids[0]}, 3},
			{"second page", RunFilter{Outbox: "erp", Export: "stock", Limit: 2, Offset: 2}, []int64{ids[0]}, 3},
			{"another outbox", RunFilter{Outbox: "shop"}, nil, 0},
		}
		for _, tt := range tests {
			runs, total, err := d.RunsPage(ctx, tt.f)
			var got []int64
			for _, r := range runs {
				got = append(got, r.ID)
			}
			if err != nil || total != tt.wantTotal || len(got) != len(tt.wantIDs) {
				t.Fatalf("%s: %v of %d (%v), want %v of %d", tt.name, got, total, err, tt.wantIDs, tt.wantTotal)
			}
			for i := range got {
				if got[i] != tt.wantIDs[i] {
					t.Errorf("%s: %v, want %v", tt.name, got, tt.wantIDs)
				}
			}
		}
		if r, err := d.Run(ctx, ids[2]); err != nil || r.Export != "items" || r.Rows != 3 {
			t.Errorf("Run = %+v, %v", r, err)
		}
		if _, err := d.Run(ctx, 999); !errors.Is(err, ErrNotFound) {
			t.Errorf("Run of no run = %v, want ErrNotFound", err)
		}

		gz := []byte{0x1f, 0x8b, 0, 1, 2, 255}
		if err := d.KeepCopy(ctx, ids[1], 42, gz); err != nil {
			t.Fatal(err)
		}
		if got, size, err := d.Copy(ctx, ids[1]); err != nil || size != 42 || string(got) != string(gz) {
			t.Errorf("Copy = %v, %d, %v", got, size, err)
		}
		if _, _, err := d.Copy(ctx, ids[0]); !errors.Is(err, ErrNotFound) {
			t.Errorf("Copy of a run without one = %v, want ErrNotFound", err)
		}
		if has, err := d.HasCopies(ctx, ids); err != nil || !has[ids[1]] || has[ids[0]] {
			t.Errorf("HasCopies = %v, %v", has, err)
		}

		from, _ := d.Run(ctx, ids[1])
		rid, err := d.RecordResend(ctx, from, "stock.1.csv")
		if err != nil {
			t.Fatal(err)
		}
		if r, err := d.Run(ctx, rid); err != nil || r.ResentFrom != ids[1] || r.FileName != "stock.1.csv" || r.Rows != 2 || r.Running() {
			t.Errorf("the re-send's run = %+v, %v", r, err)
		}
		if s, err := d.ExportSummary(ctx, "erp", "stock"); err != nil || s.Last.ID != ids[3] || s.LastSuccess.ID != ids[3] {
			t.Errorf("ExportSummary counts the re-send: last %d, last success %d (%v); want %d", s.Last.ID, s.LastSuccess.ID, err, ids[3])
		}

		fid, err := d.ClaimFile(ctx, File{Inbox: "erp", Name: "ORDERS_1.csv", State: FileDone, ClaimedAt: t0})
		if err != nil {
			t.Fatal(err)
		}
		if err := d.AddDocuments(ctx, fid, []Document{{Key: "ORD-100_A"}, {Key: "ORD-1000"}, {Key: "SKU-9"}}); err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			q    string
			want []string
			more bool
		}{
			{"ord-100", []string{"ORD-100_A", "ORD-1000"}, false},
			{"100_", []string{"ORD-100_A"}, false}, // _ is no wildcard
			{"%", nil, false},
			{"ORD", []string{"ORD-100_A"}, true}, // limit 1
		} {
			limit := 10
			if tt.more {
				limit = 1
			}
			hits, more, err := d.FindKeys(ctx, tt.q, limit)
			var got []string
			for _, h := range hits {
				got = append(got, h.Key)
				if h.FileName != "ORDERS_1.csv" || h.Inbox != "erp" {
					t.Errorf("%q: hit %+v lacks its file", tt.q, h)
				}
			}
			if err != nil || more != tt.more || len(got) != len(tt.want) {
				t.Errorf("FindKeys(%q) = %v, more %v, %v; want %v, more %v", tt.q, got, more, err, tt.want, tt.more)
				continue
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("FindKeys(%q) = %v, want %v", tt.q, got, tt.want)
				}
			}
		}
	})
}

// TestRejectedPath: a rejected-rows file is listed only when documents
// failed (one is written then); a file that failed on its header has none.
func TestRejectedPath(t *testing.T) {
	tests := []struct {
		name string
		f    File
		want string
	}{
		{"rows rejected", File{State: FileFailed, DocsFailed: 2, ReportPath: "error/A.report.csv"}, "error/A.rejected.csv"},
		{"partial", File{State: FileDone, DocsFailed: 1, ReportPath: "processed/B.report.csv"}, "processed/B.rejected.csv"},
		{"header error", File{State: FileFailed, ReportPath: "error/C.report.csv"}, ""},
		{"done", File{State: FileDone, ReportPath: "processed/D.report.csv"}, ""},
		{"no report", File{State: FileFailed, DocsFailed: 1}, ""},
	}
	for _, tt := range tests {
		if got := tt.f.RejectedPath(); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
