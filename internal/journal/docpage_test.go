package journal

import (
	"fmt"
	"slices"
	"testing"
)

// TestDocumentsPage reads a file's documents a page at a time, all of
// them or only the problems, in row order, with the filter's total.
func TestDocumentsPage(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		d := openTest(t)
		ctx := t.Context()
		id := claimTest(t, d, "erp", "O.csv", "orders")
		var docs []Document
		for i := range 10 {
			r := ResultCreated
			if i%3 == 0 {
				r = ResultInvalid // rows 0, 3, 6, 9
			}
			docs = append(docs, Document{Key: fmt.Sprintf("K-%02d", i), Rows: fmt.Sprint(i + 2), Result: r})
		}
		if err := d.AddDocuments(ctx, id, docs); err != nil {
			t.Fatal(err)
		}
		keys := func(ds []Document) []string {
			var out []string
			for _, d := range ds {
				out = append(out, d.Key)
			}
			return out
		}
		for _, tc := range []struct {
			name  string
			page  DocPage
			keys  []string
			total int
		}{
			{"all", DocPage{}, keys(docs), 10},
			{"first page", DocPage{Limit: 4}, []string{"K-00", "K-01", "K-02", "K-03"}, 10},
			{"last page", DocPage{Limit: 4, Offset: 8}, []string{"K-08", "K-09"}, 10},
			{"problems", DocPage{Results: Problems}, []string{"K-00", "K-03", "K-06", "K-09"}, 4},
			{"problems, second page", DocPage{Results: Problems, Limit: 3, Offset: 3}, []string{"K-09"}, 4},
			{"past the end", DocPage{Limit: 4, Offset: 40}, nil, 10},
		} {
			got, total, err := d.DocumentsPage(ctx, id, tc.page)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if !slices.Equal(keys(got), tc.keys) || total != tc.total {
				t.Errorf("%s: %q of %d, want %q of %d", tc.name, keys(got), total, tc.keys, tc.total)
			}
		}
	})
}
