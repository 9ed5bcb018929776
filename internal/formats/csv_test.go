package formats

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"filebridge/internal/model"
)

const skuHead = "sku,name,ean,quantityPerBox,length,width,height,grossWeight,grossWeightBox,buyPrice,supplierCode"
const skuRow = "CHAIR-OAK-01,Oak chair,4006381333931,1,45,50,90,6.5,7.2,89.90,SUP-001"

func TestReadCSV(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skip("no time zone database")
	}
	semi := func(s string) string { return strings.ReplaceAll(s, ",", ";") }
	tests := []struct {
		name  string
		data  string
		opts  Options
		check func(t *testing.T, r result)
	}{
		{"bom and crlf", "\xEF\xBB\xBF" + skuHead + "\r\n" + skuRow + "\r\n", Options{}, func(t *testing.T, r result) {
			wantDocs(t, r, 1, 0)
			if r.docs[0].Item.SKU != "CHAIR-OAK-01" || r.docs[0].Item.SupplierCode != "SUP-001" {
				t.Errorf("item %+v", r.docs[0].Item)
			}
		}},
		{"quoted newline line numbers", skuHead + "\n" + strings.Replace(skuRow, "Oak chair", "\"Oak\nchair\n\"", 1) + "\n\n" +
			strings.Replace(skuRow, "4006381333931", "4006381333932", 1) + "\n", Options{}, func(t *testing.T, r result) {
			wantIssue(t, r, "ean", "check digit", 6)
			if r.docs[0].Rows[0] != 2 || r.docs[0].Item.Name != "Oak\nchair" {
				t.Errorf("first doc rows %v name %q", r.docs[0].Rows, r.docs[0].Item.Name)
			}
		}},
		{"semicolon", semi(skuHead + "\n" + skuRow + "\n"), Options{}, okDocs(1)},
		{"tab", strings.ReplaceAll(skuHead+"\n"+skuRow+"\n", ",", "\t"), Options{}, okDocs(1)},
		{"pipe", strings.ReplaceAll(skuHead+"\n"+skuRow+"\n", ",", "|"), Options{}, okDocs(1)},
		{"delimiter given", semi(skuHead + "\n" + skuRow + "\n"), Options{Delimiter: ';'}, okDocs(1)},
		{"windows-1252", "code,name\nSUP-1,Malm\xF6 M\xF6bel\n", Options{Type: "suppliers", Charset: "windows-1252"}, func(t *testing.T, r result) {
			wantDocs(t, r, 1, 0)
			if got := r.docs[0].Partner.Name; got != "Malmö Möbel" {
				t.Errorf("name %q", got)
			}
		}},
		{"not utf-8", "code,name\nSUP-1,Nordic\nSUP-2,Malm\xF6\n", Options{Type: "suppliers"}, func(t *testing.T, r result) {
			is, ok := findIssue(r.sum.FileIssues, "", `charset = "windows-1252"`)
			if !ok || is.Row != 3 || !strings.Contains(is.Message, "byte 33") {
				t.Fatalf("issues:%s", dump(r.all()))
			}
			if len(r.errors()) != 1 {
				t.Errorf("want one error:%s", dump(r.all()))
			}
		}},
		{"decimal comma", semi(skuHead) + "\n" + "CHAIR;Oak;4006381333931;1;45,5;50;90;6,5;7,25;1234,90;SUP-001\n", Options{DecimalComma: true}, func(t *testing.T, r result) {
			wantDocs(t, r, 1, 0)
			it := r.docs[0].Item
			if it.Length != "45.5" || it.GrossWeightBox != "7.25" || it.BuyPrice != "1234.9" {
				t.Errorf("item %+v", it)
			}
		}},
		{"decimal comma refuses thousands", semi(skuHead) + "\n" + "CHAIR;Oak;4006381333931;1;45;50;90;6,5;7,2;\"1.234,90\";SUP-001\n", Options{DecimalComma: true}, func(t *testing.T, r result) {
			wantIssue(t, r, "buyPrice", "mixes", 2)
		}},
		{"decimal comma refuses a point", semi(skuHead) + "\n" + "CHAIR;Oak;4006381333931;1;45;50;90;6,5;7,2;1.234;SUP-001\n", Options{DecimalComma: true}, func(t *testing.T, r result) {
			wantIssue(t, r, "buyPrice", "comma", 2)
		}},
		{"dates in a zone", "orderNumber,warehouseLocation,supplierCode,dueAt,sku,quantity\nR1,3,S,2026-12-01 08:00,A,1\nR2,3,S,2026-07-01,A,1\nR3,3,S,2026-12-01T08:00:00Z,A,1\n",
			Options{Location: paris}, func(t *testing.T, r result) {
				wantDocs(t, r, 3, 0)
				for i, want := range []time.Time{
					time.Date(2026, 12, 1, 7, 0, 0, 0, time.UTC),
					time.Date(2026, 6, 30, 22, 0, 0, 0, time.UTC),
					time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC),
				} {
					if got := r.docs[i].Inbound.DueAt; !got.Equal(want) || got.Location() != time.UTC {
						t.Errorf("doc %d due %v, want %v", i, got, want)
					}
				}
			}},
		{"date layout", "orderNumber,warehouseLocation,supplierCode,dueAt,sku,quantity\nR1,3,S,01/12/2026,A,1\n",
			Options{DateLayout: "02/01/2006"}, func(t *testing.T, r result) {
				wantDocs(t, r, 1, 0)
				if got := r.docs[0].Inbound.DueAt; !got.Equal(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)) {
					t.Errorf("due %v", got)
				}
			}},
		{"header aliasing", "SKU,Name,EAN,quantity_per_box,LENGTH,width,height,gross-weight,Gross Weight Box,buy.price,supplier_code\n" + skuRow + "\n", Options{}, okDocs(1)},
		{"columns", "Art.-Nr.,name,ean,quantityPerBox,length,width,height,grossWeight,grossWeightBox,buyPrice,Lieferant\n" + skuRow + "\n",
			Options{Columns: map[string]string{"art.-nr.": "sku", "Lieferant": "supplier_code"}}, func(t *testing.T, r result) {
				wantDocs(t, r, 1, 0)
				if r.docs[0].Item.SKU != "CHAIR-OAK-01" {
					t.Errorf("item %+v", r.docs[0].Item)
				}
			}},
		{"columns issue names the file's column", "Art.-Nr.,name,ean,quantityPerBox,length,width,height,grossWeight,grossWeightBox,buyPrice,supplierCode\n" +
			strings.Replace(skuRow, "CHAIR-OAK-01", "CHAIR-OAK-01-BLACK", 1) + "\n",
			Options{Columns: map[string]string{"Art.-Nr.": "sku"}}, func(t *testing.T, r result) {
				wantIssue(t, r, "Art.-Nr.", "at most 14", 2)
			}},
		{"positions and defaults", "CHAIR-OAK-01;Oak chair;4006381333931;;45;50;90;6.5;7.2;89.90\n",
			Options{Type: "skus", NoHeader: true, Positions: strings.Split("sku,name,ean,quantityPerBox,length,width,height,grossWeight,grossWeightBox,buyPrice", ","),
				Defaults: map[string]string{"supplierCode": "SUP-9", "quantityPerBox": "1"}}, func(t *testing.T, r result) {
				wantDocs(t, r, 1, 0)
				if it := r.docs[0].Item; it.SupplierCode != "SUP-9" || it.QuantityPerBox != "1" || r.docs[0].Rows[0] != 1 {
					t.Errorf("item %+v rows %v", it, r.docs[0].Rows)
				}
			}},
		{"undocumented value warned once", "orderNumber,warehouseLocation,supplierCode,orderType,dueAt,sku,quantity\nR1,3,S,STANDARD,2026-12-01,A,1\nR1,3,S,STANDARD,2026-12-01,B,1\nR2,3,S,STANDARD,2026-12-01,A,1\nR3,3,S,SEMI,2026-12-01,A,1\n",
			Options{Type: "receptions"}, func(t *testing.T, r result) {
				wantDocs(t, r, 3, 0)
				var warned []Issue
				for _, d := range r.docs {
					warned = append(warned, d.Issues...)
				}
				if len(warned) != 1 || !warned[0].Warning || warned[0].Row != 2 || warned[0].Column != "orderType" ||
					!strings.Contains(warned[0].Message, "not one of the orderType values the API documents list") || r.docs[0].Inbound.OrderType != "STANDARD" {
					t.Errorf("want one warning on line 2, STANDARD kept:%s", dump(warned))
				}
			}},
		{"value maps", "orderNumber,warehouseLocation,supplierCode,orderType,dueAt,sku,quantity\nR1,3,S,STANDARD,2026-12-01,A,1\nR2,3,S,C40,2026-12-01,A,1\nR3,3,S,SEMI,2026-12-01,A,1\n",
			Options{Type: "receptions", Values: map[string]map[string]string{"order_type": {"STANDARD": "", " C40 ": "CONT40"}, "colour": {"red": "RED"}}}, func(t *testing.T, r result) {
				wantDocs(t, r, 3, 0)
				var got []string
				for _, d := range r.docs {
					got = append(got, d.Inbound.OrderType)
					if len(d.Issues) != 0 {
						t.Errorf("issues of %s:%s", d.Key, dump(d.Issues))
					}
				}
				if strings.Join(got, ",") != ",CONT40,SEMI" {
					t.Errorf("order types %q, want STANDARD mapped to none and C40 to CONT40", got)
				}
				if _, ok := findIssue(r.sum.FileIssues, "colour", "the map is ignored"); !ok {
					t.Errorf("file issues:%s", dump(r.sum.FileIssues))
				}
			}},
		{"unknown column once", skuHead + ",colour\n" + skuRow + ",red\n" + strings.Replace(skuRow, "CHAIR", "TABLE", 1) + ",blue\n", Options{}, func(t *testing.T, r result) {
			wantDocs(t, r, 2, 0)
			if len(r.sum.FileIssues) != 1 || !r.sum.FileIssues[0].Warning || r.sum.FileIssues[0].Column != "colour" {
				t.Errorf("file issues:%s", dump(r.sum.FileIssues))
			}
		}},
		{"unknown column suggestion", strings.Replace(skuHead, "quantityPerBox", "quantityPerBx", 1) + "\n" + skuRow + "\n", Options{Type: "skus"}, func(t *testing.T, r result) {
			if _, ok := findIssue(r.sum.FileIssues, "quantityPerBx", `did you mean "quantityPerBox"`); !ok {
				t.Errorf("file issues:%s", dump(r.sum.FileIssues))
			}
			if _, ok := findIssue(r.sum.FileIssues, "quantityPerBox", "required column"); !ok {
				t.Errorf("file issues:%s", dump(r.sum.FileIssues))
			}
		}},
		{"missing required column once", strings.Replace(skuHead, ",supplierCode", "", 1) + "\n" + strings.Replace(skuRow, ",SUP-001", "", 1) + "\n" + strings.Replace(strings.Replace(skuRow, ",SUP-001", "", 1), "CHAIR", "T", 1) + "\n",
			Options{}, func(t *testing.T, r result) {
				errs := r.errors()
				if len(errs) != 1 || errs[0].Column != "supplierCode" || errs[0].Row != 0 || r.sum.Valid() {
					t.Errorf("errors:%s", dump(errs))
				}
			}},
		{"duplicate column", skuHead + ",SKU\n" + skuRow + ",X\n", Options{}, func(t *testing.T, r result) {
			errs := r.errors()
			if len(errs) != 1 || !strings.Contains(errs[0].Message, "both give \"sku\"") {
				t.Errorf("errors:%s", dump(errs))
			}
			if r.docs[0].Item.SKU != "CHAIR-OAK-01" {
				t.Errorf("the first column counts: %+v", r.docs[0].Item)
			}
		}},
		{"ragged row", skuHead + "\n" + strings.TrimSuffix(skuRow, ",SUP-001") + "\n" + strings.Replace(skuRow, "CHAIR", "T", 1) + ",,\n", Options{}, func(t *testing.T, r result) {
			wantIssue(t, r, "", "row has 10 cells, the header has 11", 2)
			if n := len(r.errors()); n != 2 { // ragged + empty supplierCode; trailing empty cells are fine
				t.Errorf("errors:%s", dump(r.errors()))
			}
		}},
		{"bare quote", skuHead + "\n" + strings.Replace(skuRow, "Oak chair", `Oak 18" chair`, 1) + "\n" + strings.Replace(skuRow, "CHAIR", "T", 1) + "\n", Options{}, func(t *testing.T, r result) {
			wantIssue(t, r, "", "quote", 2)
			if len(r.docs) != 2 || !r.docs[1].Valid() {
				t.Errorf("reading goes on after a bad quote: %d docs:%s", len(r.docs), dump(r.all()))
			}
		}},
		{"empty file", "", Options{}, func(t *testing.T, r result) {
			if _, ok := findIssue(r.sum.FileIssues, "", "empty"); !ok || r.sum.Valid() {
				t.Errorf("issues:%s", dump(r.all()))
			}
		}},
		{"blank lines only", "\n\r\n;;;\n", Options{}, func(t *testing.T, r result) {
			if _, ok := findIssue(r.sum.FileIssues, "", "empty"); !ok {
				t.Errorf("issues:%s", dump(r.all()))
			}
		}},
		{"header only", skuHead + "\n", Options{}, func(t *testing.T, r result) {
			if len(r.docs) != 0 || len(r.sum.FileIssues) != 1 || !r.sum.FileIssues[0].Warning || r.sum.Type.Name != "skus" {
				t.Errorf("issues:%s", dump(r.all()))
			}
		}},
		{"binary garbage", "\x00\x01\x02\xff\xfe\x80garbage", Options{Type: "skus"}, func(t *testing.T, r result) {
			if len(r.errors()) == 0 || len(r.docs) != 0 {
				t.Errorf("issues:%s", dump(r.all()))
			}
		}},
		{"xlsx named csv", "PK\x03\x04rest", Options{}, func(t *testing.T, r result) {
			if _, ok := findIssue(r.sum.FileIssues, "", "XLSX workbook"); !ok {
				t.Errorf("issues:%s", dump(r.all()))
			}
		}},
		{"undetectable type", "foo,bar\n1,2\n", Options{}, func(t *testing.T, r result) {
			if _, ok := findIssue(r.sum.FileIssues, "", "cannot tell the document type"); !ok {
				t.Errorf("issues:%s", dump(r.all()))
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Edition = A
			r := decodeBytes(t, "F.csv", []byte(tt.data), tt.opts)
			if r.err != nil {
				t.Fatal(r.err)
			}
			tt.check(t, r)
		})
	}
}

func okDocs(n int) func(t *testing.T, r result) {
	return func(t *testing.T, r result) { wantDocs(t, r, n, 0) }
}

func wantDocs(t *testing.T, r result, n, invalid int) {
	t.Helper()
	if len(r.docs) != n || r.sum.InvalidDocs != invalid || r.sum.Docs != n {
		t.Fatalf("%d docs (%d invalid), want %d (%d):%s", len(r.docs), r.sum.InvalidDocs, n, invalid, dump(r.all()))
	}
	if invalid == 0 && len(r.errors()) > 0 {
		t.Fatalf("errors:%s", dump(r.errors()))
	}
}

func wantIssue(t *testing.T, r result, column, sub string, row int) {
	t.Helper()
	is, ok := findIssue(r.errors(), column, sub)
	if !ok {
		t.Fatalf("want an error on %q containing %q:%s", column, sub, dump(r.all()))
	}
	if is.Row != row {
		t.Errorf("row %d, want %d: %s", is.Row, row, is.Error())
	}
}

func TestMaxSize(t *testing.T) {
	data := []byte(skuHead + "\n" + skuRow + "\n")
	_, err := Decode(context.Background(), failingReader{}, 200<<20, "BIG.csv", Options{Edition: A}, func(Doc) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "more than the 100.0 MiB allowed") {
		t.Fatalf("err %v", err)
	}
	r := decodeBytes(t, "F.csv", data, Options{Edition: A, MaxSize: 10})
	if r.err == nil || !strings.Contains(r.err.Error(), "split it") {
		t.Fatalf("err %v", r.err)
	}
}

// failingReader fails every read: a too-big file must be refused before.
type failingReader struct{}

func (failingReader) ReadAt([]byte, int64) (int, error) { return 0, errors.New("read") }

func TestFnErrorStops(t *testing.T) {
	data := []byte(skuHead + "\n" + skuRow + "\n" + strings.Replace(skuRow, "CHAIR", "T", 1) + "\n")
	stop := errors.New("stop")
	n := 0
	_, err := Decode(context.Background(), strings.NewReader(string(data)), int64(len(data)), "F.csv", Options{Edition: A}, func(Doc) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Fatalf("err %v after %d docs", err, n)
	}
}

func TestIssueError(t *testing.T) {
	tests := []struct {
		is   Issue
		want string
	}{
		{Issue{File: "ORDERS.csv", Row: 12, Column: "quantity", Value: "-3", Message: "must be greater than 0"}, `ORDERS.csv line 12, column "quantity" (value "-3"): must be greater than 0`},
		{Issue{File: "O.xlsx", Row: 7, Sheet: "Orders", Cell: "D7", Column: "quantity", Message: "is empty"}, `O.xlsx sheet "Orders" cell D7, column "quantity": is empty`},
		{Issue{File: "O.csv", Column: "colour", Message: "ignored", Warning: true}, `O.csv, column "colour": warning: ignored`},
	}
	for _, tt := range tests {
		if got := tt.is.Error(); got != tt.want {
			t.Errorf("got  %s\nwant %s", got, tt.want)
		}
	}
}

func TestDetectType(t *testing.T) {
	tests := []struct {
		e      model.Edition
		header string
		want   string
	}{
		{A, "sku,name,ean", "skus"},
		{A, "code,name", "suppliers"},
		{A, "orderNumber,supplierCode,dueAt,sku,quantity", "receptions"},
		{A, "orderNumber,externalOrderNumber,shipTo.city,sku,quantity", "orders"},
		{B, "Order Number,Warehouse Code,Supplier Code,SKU,Quantity", "purchase_orders"},
		{B, "sku,code,ean,quantity,level", "packagings"},
		{B, "code,name,relationship", "connections"},
		{A, "orderNumber,sku,quantity", ""},
		{A, "name,ean", ""},
	}
	for _, tt := range tests {
		dt, err := detectType(tt.e, strings.Split(tt.header, ","))
		if dt.Name != tt.want || (tt.want == "") != (err != nil) {
			t.Errorf("%s %q: %q, %v; want %q", tt.e, tt.header, dt.Name, err, tt.want)
		}
	}
}

func TestRows(t *testing.T) {
	data := skuHead + "\n\n" + strings.Replace(skuRow, "Oak chair", "\"Oak\nchair\"", 1) + "\n" + skuRow + "\n"
	var rows []int
	var names []string
	head, err := Rows(context.Background(), strings.NewReader(data), int64(len(data)), "F.csv", Options{Edition: A}, func(row int, cells []string, _ string) error {
		rows = append(rows, row)
		names = append(names, cells[1])
		return nil
	})
	if err != nil || len(head) != 11 || head[0] != "sku" {
		t.Fatalf("header %v, %v", head, err)
	}
	if len(rows) != 2 || rows[0] != 3 || rows[1] != 5 || names[0] != "Oak\nchair" {
		t.Errorf("rows %v names %q", rows, names)
	}
}
