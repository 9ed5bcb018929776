package export

import (
	"bytes"
	"errors"
	"flag"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"filebridge/internal/model"
	"filebridge/internal/templates/gentest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

var (
	t0     = time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)
	expiry = time.Date(2027, 5, 31, 0, 0, 0, 0, time.UTC)
)

// sampleReceipts has the values that tend to get mangled: leading zeros,
// formula starts, delimiters, quotes, line breaks, non-ASCII letters, a
// negative difference, empty optional cells.
func sampleReceipts() []ReceiptRow {
	in := model.Inbound{
		OrderNumber: "PO-0001", ReferenceNumber: `=HYPERLINK("http://evil")`, Status: model.Status{Code: 75},
		ReceivedAt: t0, WarehouseCode: "WH1", SupplierCode: "007", UpdatedAt: t0.Add(time.Minute),
		Lines: []model.InboundLine{
			{Position: 1, SKU: "0012345", Quantity: 10, QuantityReceived: 8, LotNumber: "L-1", ExpiryDate: expiry, OwnerCode: "Größe €"},
			{Position: 2, SKU: "-SKU2", Quantity: 5, QuantityReceived: 5, LotNumber: "a;b,\"c\"\nd"},
			{Position: 3, SKU: "@SKU3", Quantity: 1, QuantityReceived: 0, OwnerCode: "+49 Café"},
		},
	}
	return ReceiptRows(in)
}

func sampleItems() []ItemRow {
	return []ItemRow{
		{SKU: "A1", Name: "Chaise \"Lounge\"", EAN: "0400638133393", Length: "12.5", Width: "0.001", Height: "30", GrossWeight: "-1.25", UpdatedAt: t0},
		{SKU: "A2", Name: "", EAN: "", UpdatedAt: time.Time{}},
	}
}

func encode[R any](t *testing.T, typ model.ExportType, e model.Edition, opts Options, rows []R) ([]byte, error) {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, MustFor(typ, e), opts)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// parisZone loads Europe/Paris, a zone with summer time.
func parisZone(t *testing.T) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	gentest.Golden(t, filepath.Join("testdata", name), got, *update, "-update")
}

func TestCSVGolden(t *testing.T) {
	paris := parisZone(t)
	tests := []struct {
		name string
		typ  model.ExportType
		opts Options
	}{
		{"receipts_default.csv", model.ExportReceipts, Options{}},
		{"receipts_cp1252_crlf.csv", model.ExportReceipts, Options{Charset: Windows1252, CRLF: true, Delimiter: ';'}},
		{"receipts_bom_crlf_paris.csv", model.ExportReceipts, Options{BOM: true, CRLF: true, Location: paris, DateLayout: "02.01.2006 15:04"}},
		{"items_decimal_comma.csv", model.ExportItems, Options{Delimiter: ';', Decimal: ","}},
		{"items_tab.csv", model.ExportItems, Options{Delimiter: '\t'}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []byte
			var err error
			if tt.typ == model.ExportItems {
				got, err = encode(t, tt.typ, model.EditionB, tt.opts, sampleItems())
			} else {
				got, err = encode(t, tt.typ, model.EditionB, tt.opts, sampleReceipts())
			}
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name, got)
		})
	}
}

func TestCSVFormulaNeutralised(t *testing.T) {
	got, err := encode(t, model.ExportReceipts, model.EditionA, Options{}, sampleReceipts())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(got), "\n")
	tests := []struct {
		line int
		want string // substring
	}{
		{1, `"'=HYPERLINK(""http://evil"")"`}, // text starting with =
		{1, ",0012345,10,8,-2,"},              // leading zeros kept; negative difference stays a number
		{2, ",'-SKU2,"},                       // text starting with -
		{4, ",'@SKU3,1,0,-1,"},                // @ (line 3 is the rest of a quoted line break)
		{4, ",'+49 Café,"},                    // +
	}
	for _, tt := range tests {
		if !strings.Contains(lines[tt.line], tt.want) {
			t.Errorf("line %d = %q, want it to contain %q", tt.line+1, lines[tt.line], tt.want)
		}
	}
	for in, want := range map[string]string{"": "", "a=b": "a=b", "=1": "'=1", "\tx": "'\tx", "\rx": "'\rx", "-": "'-"} {
		if got := Neutralize(in); got != want {
			t.Errorf("Neutralize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCSVUnencodableCellNamed(t *testing.T) {
	rows := sampleReceipts()
	rows[1].OwnerCode = "Łódź"
	_, err := encode(t, model.ExportReceipts, model.EditionB, Options{Charset: Windows1252}, rows)
	var ce *CellError
	if !errors.As(err, &ce) || !errors.Is(err, ErrUnencodable) {
		t.Fatalf("error = %v, want a CellError wrapping ErrUnencodable", err)
	}
	if ce.Row != 3 || ce.Column != "ownerCode" || ce.Key != "orderNumber PO-0001" {
		t.Errorf("CellError = %+v, want row 3, column ownerCode, key orderNumber PO-0001", ce)
	}
	for _, want := range []string{"row 3", "ownerCode", "U+0141", "utf-8"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	// The euro sign is in windows-1252 but not in ISO 8859-1.
	_, err = encode(t, model.ExportReceipts, model.EditionB, Options{Charset: Latin1}, sampleReceipts())
	if !errors.Is(err, ErrUnencodable) {
		t.Errorf("latin1 with €: error = %v, want ErrUnencodable", err)
	}
}

func TestCSVOptionsRefused(t *testing.T) {
	s := MustFor(model.ExportStock, model.EditionA)
	for name, o := range map[string]Options{
		"bom with 1252":  {Charset: Windows1252, BOM: true},
		"bad charset":    {Charset: "utf-16"},
		"quote":          {Delimiter: '"'},
		"decimal":        {Decimal: ";"},
		"format":         {Format: "json"},
		"non-ascii 1252": {Charset: Windows1252, Delimiter: '§'},
	} {
		if _, err := NewWriter(&bytes.Buffer{}, s, o); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestWriteWrongRowType(t *testing.T) {
	w, err := NewWriter(&bytes.Buffer{}, MustFor(model.ExportStock, model.EditionA), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ItemRow{}); err == nil {
		t.Error("writing an ItemRow into a stock file: no error")
	}
	if err := w.Write(&StockRow{SKU: "x"}); err != nil {
		t.Errorf("pointer row: %v", err)
	}
}

func TestHeaderOnly(t *testing.T) {
	got, err := encode[StockRow](t, model.ExportStock, model.EditionA, Options{CRLF: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "sku,name,ean,available,incoming,allocated,locked,updatedAt\r\n"; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
