package formats

import (
	"fmt"
	"os"
	"path/filepath"
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

// scatteredOrders is orders R1, R2 and R3 of two, two and one rows, the
// rows of each not adjacent: the header, the rows, and the rows of a
// workbook (the header first, numbers as text cells "#..."). R2's second
// row is at warehouse location secondR2.
func scatteredOrders(secondR2 string) (head []string, rows, wbRows [][]string) {
	head = []string{"orderNumber", "warehouseLocation", "supplierCode", "dueAt", "sku", "quantity"}
	rows = [][]string{
		{"R1", "3", "SUP-001", "2026-04-01T08:00:00Z", "A", "2"},
		{"R2", "3", "SUP-001", "2026-04-01T08:00:00Z", "A", "1"},
		{"R1", "3", "SUP-001", "2026-04-01T08:00:00Z", "B", "5"},
		{"R3", "3", "SUP-001", "2026-04-01T08:00:00Z", "B", "1"},
		{"R2", secondR2, "SUP-001", "2026-04-01T08:00:00Z", "C", "1"},
	}
	wbRows = [][]string{head}
	for _, r := range rows {
		wbRows = append(wbRows, []string{r[0], "#" + r[1], r[2], r[3], r[4], "#" + r[5]})
	}
	return head, rows, wbRows
}

// TestOrdersAnywhereSources reads orders apart from a workbook and from a
// CSV file without header (its first data row is read with the header).
func TestOrdersAnywhereSources(t *testing.T) {
	head, rows, wbRows := scatteredOrders("4")
	var csvText strings.Builder
	for _, r := range rows {
		csvText.WriteString(strings.Join(r, ",") + "\n")
	}
	tests := []struct {
		name string
		file string
		data []byte
		opts Options
		// rows of R1, R2, R3 (workbook rows count the header)
		want [][]int
	}{
		{"workbook", "R.xlsx", workbook(t, "Sheet1", false, wbRows, ""), Options{Edition: A}, [][]int{{2, 4}, {3, 6}, {5}}},
		{"no header", "R.csv", []byte(csvText.String()), Options{Edition: A, Type: "receptions", NoHeader: true, Positions: head}, [][]int{{1, 3}, {2, 5}, {4}}},
	}
	for _, tt := range tests {
		for _, window := range []int{1 << 20, 1} {
			t.Run(fmt.Sprint(tt.name, " window ", window), func(t *testing.T) {
				defer func(w int) { windowRows = w }(windowRows)
				windowRows = window
				res := decodeBytes(t, tt.file, tt.data, tt.opts)
				if res.err != nil || len(res.docs) != 3 {
					t.Fatalf("%v, %d docs%s", res.err, len(res.docs), dump(res.all()))
				}
				for i, d := range res.docs {
					if d.Key != fmt.Sprint("R", i+1) || !slices.Equal(d.Rows, tt.want[i]) || len(d.Inbound.Lines) != len(tt.want[i]) {
						t.Errorf("doc %d: key %s rows %v, want rows %v", i, d.Key, d.Rows, tt.want[i])
					}
				}
				// R2 disagrees on warehouseLocation between its two rows.
				if _, ok := findIssue(res.docs[1].Issues, "warehouseLocation", "must agree"); !ok || !res.docs[0].Valid() {
					t.Errorf("R1 valid %v; R2 issues:%s", res.docs[0].Valid(), dump(res.docs[1].Issues))
				}
			})
		}
	}
}

// TestOrdersAnywhereFileProblem: a file problem ends every pass at the same
// row and is reported once; the orders of the rows before are handed on.
func TestOrdersAnywhereFileProblem(t *testing.T) {
	data := "orderNumber,warehouseLocation,supplierCode,dueAt,sku,quantity\n" +
		"R1,3,SUP-001,2026-04-01T08:00:00Z,A,2\n" +
		"R2,3,SUP-001,2026-04-01T08:00:00Z,A,1\n" +
		"R1,3,SUP-001,2026-04-01T08:00:00Z,B,5\n" +
		"R3,3,SUP-\xff,2026-04-01T08:00:00Z,B,1\n" +
		"R2,3,SUP-001,2026-04-01T08:00:00Z,C,1\n"
	for _, window := range []int{1 << 20, 1} {
		defer func(w int) { windowRows = w }(windowRows)
		windowRows = window
		res := decodeBytes(t, "R.csv", []byte(data), Options{Edition: A, Type: "receptions"})
		if res.err != nil || len(res.sum.FileIssues) != 1 || !strings.Contains(res.sum.FileIssues[0].Message, "not valid UTF-8") {
			t.Fatalf("window %d: %v, file issues%s", window, res.err, dump(res.sum.FileIssues))
		}
		if len(res.docs) != 2 || !slices.Equal(res.docs[0].Rows, []int{2, 4}) || !slices.Equal(res.docs[1].Rows, []int{3}) {
			t.Errorf("window %d: %d docs %+v", window, len(res.docs), res.docs)
		}
	}
}

// TestOrdersOpenedOnce: the passes over a file of orders (the index pass,
// one pass per window) read one source rewound, so the file is opened and
// sniffed (format, charset, delimiter, sheet) once, and every pass numbers
// the rows as the file does: a "sep=;" line, a byte order mark, CR line
// ends, a single-byte charset, a workbook, a fixed-width file whose
// header records each pass must meet again, X12 and EDIFACT interchanges.
func TestOrdersOpenedOnce(t *testing.T) {
	head, rows, wbRows := scatteredOrders("3")
	text := func(delim, eol string, withHead bool) string {
		var b strings.Builder
		if withHead {
			b.WriteString(strings.Join(head, delim) + eol)
		}
		for _, r := range rows {
			b.WriteString(strings.Join(r, delim) + eol)
		}
		return b.String()
	}
	testdata := func(dir, name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	receptions := Options{Edition: A, Type: "receptions"}
	latin := receptions
	latin.Charset = "windows-1252"
	noHeader := Options{Edition: A, Type: "receptions", NoHeader: true, Positions: head}
	tests := []struct {
		name string
		file string
		data []byte
		opts Options
		keys []string
		rows [][]int // per document; nil: as the first window size reads them
	}{
		{"sep line", "R.csv", []byte("sep=;\r\n" + text(";", "\r\n", true)), receptions,
			[]string{"R1", "R2", "R3"}, [][]int{{3, 5}, {4, 7}, {6}}},
		{"byte order mark", "R.csv", []byte("\xEF\xBB\xBF" + text(",", "\n", true)), latin,
			[]string{"R1", "R2", "R3"}, [][]int{{2, 4}, {3, 6}, {5}}},
		{"CR line ends, windows-1252", "R.csv", []byte(strings.Replace(text("\t", "\r", true), "SUP-001", "SUP-\xE9", 1)), latin,
			[]string{"R1", "R2", "R3"}, [][]int{{2, 4}, {3, 6}, {5}}},
		{"no header", "R.csv", []byte(text(",", "\n", false)), noHeader,
			[]string{"R1", "R2", "R3"}, [][]int{{1, 3}, {2, 5}, {4}}},
		{"workbook", "R.xlsx", workbook(t, "Sheet1", false, wbRows, ""), Options{Edition: A},
			[]string{"R1", "R2", "R3"}, [][]int{{2, 4}, {3, 6}, {5}}},
		{"fixed width", "orders.txt", testdata("fixed", "orders.txt"), Options{Edition: A, Type: "orders", Format: "fixed", Layout: orderLayout()},
			[]string{"SO-1001", "SO-1002"}, [][]int{{2, 3}, {5}}},
		{"X12", "940.x12", testdata("x12", "940.x12"), Options{Edition: A, Type: "orders"},
			[]string{"ORD-1001", "ORD-1002", "ORD-1003"}, nil},
		{"EDIFACT", "orders.edi", testdata("edifact", "orders.edi"), Options{Edition: A, Type: "orders", Defaults: map[string]string{"warehouseLocation": "3"}},
			nil, nil},
	}
	for _, tt := range tests {
		var first [][]int
		for _, window := range []int{1 << 20, 1} {
			t.Run(fmt.Sprint(tt.name, " window ", window), func(t *testing.T) {
				defer func(w int) { windowRows = w }(windowRows)
				windowRows = window
				before := opens.Load()
				res := decodeBytes(t, tt.file, tt.data, tt.opts)
				if n := opens.Load() - before; n != 1 {
					t.Errorf("the file was opened and sniffed %d times, want 1", n)
				}
				if res.err != nil || len(res.sum.FileIssues) > 0 || len(res.docs) < 2 {
					t.Fatalf("%v, %d docs%s", res.err, len(res.docs), dump(res.all()))
				}
				var keys []string
				var got [][]int
				for _, d := range res.docs {
					keys, got = append(keys, d.Key), append(got, d.Rows)
				}
				want := tt.rows
				if want == nil && first != nil {
					want = first // the rows the file read in one window gives
				} else if want == nil {
					want = got
				}
				if tt.keys != nil && !slices.Equal(keys, tt.keys) || !slices.EqualFunc(got, want, slices.Equal) {
					t.Errorf("documents %q rows %v, want %q rows %v", keys, got, tt.keys, want)
				}
				if window == 1<<20 {
					first = got
				}
			})
		}
	}
}
