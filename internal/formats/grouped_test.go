package formats

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"filebridge/internal/model"
)

// TestOrdersAnywhere reads order files whose rows of one order are not
// adjacent (sorted by SKU), in one window and in windows of a few rows:
// the documents come in order of first appearance with all their rows.
func TestOrdersAnywhere(t *testing.T) {
	head := header(A, model.KindOutbound)
	// Order i has i%3+1 lines; the rows are sorted by line, not by order.
	type line struct{ order, pos int }
	var lines []line
	const orders = 40
	for i := 0; i < orders; i++ {
		for p := 1; p <= i%3+1; p++ {
			lines = append(lines, line{i, p})
		}
	}
	slices.SortStableFunc(lines, func(a, b line) int { return a.pos - b.pos })
	var rows []map[string]string
	for _, l := range lines {
		rows = append(rows, exampleRow(A, model.KindOutbound, map[string]string{
			"orderNumber": fmt.Sprintf("SO-%03d", l.order), "position": fmt.Sprint(l.pos), "sku": fmt.Sprintf("SKU-%d", l.pos),
		}))
	}
	// One row without order number is an order of its own, where it is.
	rows = slices.Insert(rows, 5, exampleRow(A, model.KindOutbound, map[string]string{"orderNumber": ""}))
	data := csvFile(',', head, rows...)
	for _, window := range []int{1 << 20, 4, 1} {
		t.Run(fmt.Sprint("window ", window), func(t *testing.T) {
			defer func(w int) { windowRows = w }(windowRows)
			windowRows = window
			res := decodeBytes(t, "SO.csv", data, Options{Edition: A, Type: "orders"})
			if res.err != nil {
				t.Fatal(res.err)
			}
			if res.sum.Rows != len(rows) || res.sum.Docs != orders+1 || res.sum.InvalidDocs != 1 {
				t.Fatalf("summary %+v", res.sum)
			}
			var keys []string
			for _, d := range res.docs {
				keys = append(keys, d.Key)
				if d.Key == "" {
					if !slices.Equal(d.Rows, []int{7}) || d.Valid() {
						t.Errorf("order without number: rows %v, issues %s", d.Rows, dump(d.Issues))
					}
					continue
				}
				var n int
				fmt.Sscanf(d.Key, "SO-%d", &n)
				if len(d.Rows) != n%3+1 || len(d.Outbound.Lines) != n%3+1 || !d.Valid() {
					t.Errorf("order %s: rows %v, %d lines, issues %s", d.Key, d.Rows, len(d.Outbound.Lines), dump(d.Issues))
				}
				for i, l := range d.Outbound.Lines {
					if l.Position != i+1 || l.SKU != fmt.Sprintf("SKU-%d", i+1) {
						t.Errorf("order %s line %d: %+v", d.Key, i, l)
					}
				}
			}
			// First appearance: orders 0..3 on lines 2..5, the row without
			// number on line 7, order 4 on line 6.
			want := []string{"SO-000", "SO-001", "SO-002", "SO-003", "SO-004", ""}
			if !slices.Equal(keys[:6], want) {
				t.Errorf("order of the documents %q, want %q first", strings.Join(keys, " "), want)
			}
		})
	}
}
