package export

import (
	"errors"
	"strings"
	"testing"

	"filebridge/internal/fixedwidth"
	"filebridge/internal/model"
)

func receiptLayout() []fixedwidth.Field {
	return []fixedwidth.Field{
		{Name: "orderNumber", Start: 1, Length: 10},
		{Name: "receivedAt", Start: 11, Length: 12},
		{Name: "position", Start: 23, Length: 3},
		{Name: "sku", Start: 26, Length: 10},
		{Name: "quantityReceived", Start: 36, Length: 6},
		{Name: "difference", Start: 42, Length: 6},
		{Name: "ownerCode", Start: 50, Length: 8, Truncate: true},
		{Name: "expiryDate", Start: 58, Length: 8},
	}
}

// TestFixedGolden writes receipts and items as fixed-width lines (texts
// left-aligned, numbers right-aligned and zero-padded with implied
// decimals, negative numbers signed, empty cells blank, a text cut where
// the column says truncate) and compares them with testdata/*.txt.
func TestFixedGolden(t *testing.T) {
	got, err := encode(t, model.ExportReceipts, model.EditionB, Options{Format: Fixed, Charset: Windows1252, CRLF: true,
		DateLayout: "20060102", Layout: receiptLayout()}, sampleReceipts()[:1])
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "receipts_fixed_cp1252.txt", got)
	got, err = encode(t, model.ExportItems, model.EditionB, Options{Format: Fixed, Layout: itemsLayout}, sampleItems())
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "items_fixed.txt", got)
}

// itemsLayout places four columns of the items export, one with 3 implied
// decimals, one with 2.
var itemsLayout = []fixedwidth.Field{
	{Name: "sku", Start: 1, Length: 4},
	{Name: "length", Start: 5, Length: 7, Decimals: 3},
	{Name: "grossWeight", Start: 12, Length: 7, Decimals: 2},
	{Name: "name", Start: 20, Length: 20},
}

// TestFixedDoesNotFit: a value too long for its column fails the export
// with the line and the column, never cut silently.
func TestFixedDoesNotFit(t *testing.T) {
	tests := []struct {
		name   string
		layout []fixedwidth.Field
		want   string
	}{
		{"text", []fixedwidth.Field{{Name: "sku", Start: 1, Length: 4}, {Name: "name", Start: 5, Length: 6}},
			`row 1 (sku A1), column name: "Chaise \"Lounge\"" has 15 characters, columns 5–10 (name) has 6`},
		{"decimals", []fixedwidth.Field{{Name: "sku", Start: 1, Length: 4}, {Name: "width", Start: 5, Length: 6, Decimals: 2}},
			`row 1 (sku A1), column width: 0.001 has 3 decimals, columns 5–10 (width) keeps 2: does not fit the layout; give the column decimals = 3`},
		{"digits", []fixedwidth.Field{{Name: "sku", Start: 1, Length: 4}, {Name: "height", Start: 5, Length: 3, Decimals: 2}},
			`row 1 (sku A1), column height: 30 needs 4 characters, columns 5–7 (height) has 3: does not fit the layout; lengthen the column`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := encode(t, model.ExportItems, model.EditionB, Options{Format: Fixed, Layout: tt.layout}, sampleItems())
			var ce *CellError
			if !errors.As(err, &ce) || !errors.Is(err, fixedwidth.ErrTooLong) || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error %v, want one starting with %q", err, tt.want)
			}
		})
	}
	_, err := encode(t, model.ExportReceipts, model.EditionB, Options{Format: Fixed, Charset: Latin1, DateLayout: "20060102", Layout: receiptLayout()}, sampleReceipts()[:1])
	if !errors.Is(err, ErrUnencodable) || !strings.Contains(err.Error(), "column ownerCode") {
		t.Fatalf("€ in ISO-8859-1: %v", err)
	}
	_, err = encode(t, model.ExportReceipts, model.EditionB, Options{Format: Fixed, Layout: receiptLayout()}, sampleReceipts()[:1])
	if want := `row 1 (orderNumber PO-0001), column receivedAt: "2026-11-21T09:30:00Z" has 20 characters, columns 11–22 (receivedAt) has 12: does not fit the layout; lengthen the column, or set a shorter date_layout`; err == nil || err.Error() != want {
		t.Fatalf("a date-time too long: %v, want %s", err, want)
	}
}

// TestFixedReadBack: lines written by a layout, cut by the same layout,
// give the values back (numbers with their implied decimals).
func TestFixedReadBack(t *testing.T) {
	got, err := encode(t, model.ExportItems, model.EditionB, Options{Format: Fixed, Layout: itemsLayout}, sampleItems())
	if err != nil {
		t.Fatal(err)
	}
	cut := fixedwidth.NewCutter(fixedwidth.Layout{Fields: itemsLayout}, false)
	var rows []string
	for _, line := range strings.Split(strings.TrimSuffix(string(got), "\n"), "\n") {
		cells, _, problem := cut.Cut(line)
		if problem != "" {
			t.Fatalf("line %q: %s", line, problem)
		}
		rows = append(rows, strings.Join(cells, "|"))
	}
	want := `A1|12.500|-1.25|Chaise "Lounge"` + "\n" + "A2|||"
	if strings.Join(rows, "\n") != want {
		t.Fatalf("read back\n%s\nwant\n%s", strings.Join(rows, "\n"), want)
	}
}
