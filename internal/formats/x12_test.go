package formats

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"filebridge/internal/model"
)

// TestX12Decode reads each inbound set through the decoder, in both
// editions: documents, their keys and lines, and rows numbered by the
// line's segment in the interchange.
func TestX12Decode(t *testing.T) {
	for _, tc := range []struct {
		file    string
		edition model.Edition
		typ     string
		keys    []string
		lines   int
		rows    []int // the rows of the first document
	}{
		{"940.x12", model.EditionA, "orders", []string{"ORD-1001", "ORD-1002", "ORD-1003"}, 4, []int{13, 15}},
		{"940.x12", model.EditionB, "sales_orders", []string{"ORD-1001", "ORD-1002", "ORD-1003"}, 4, []int{13, 15}},
		{"940.x12", model.EditionA, "", []string{"ORD-1001", "ORD-1002", "ORD-1003"}, 4, []int{13, 15}},
		{"943.x12", model.EditionA, "receptions", []string{"PO-2001"}, 2, []int{9, 11}},
		{"943.x12", model.EditionB, "purchase_orders", []string{"PO-2001"}, 2, []int{9, 11}},
		{"832.x12", model.EditionA, "skus", []string{"SKU-1", "SKU-2"}, 0, []int{6}},
		{"832.x12", model.EditionB, "variants", []string{"SKU-1", "SKU-2"}, 0, []int{6}},
	} {
		t.Run(tc.file+"/"+string(tc.edition)+"/"+tc.typ, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "x12", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			res := decodeBytes(t, tc.file, data, Options{Edition: tc.edition, Type: tc.typ})
			if res.err != nil || len(res.errors()) > 0 {
				t.Fatalf("err %v, issues:\n%s", res.err, dump(res.errors()))
			}
			var keys []string
			lines := 0
			for _, d := range res.docs {
				keys = append(keys, d.Key)
				switch {
				case d.Outbound != nil:
					lines += len(d.Outbound.Lines)
				case d.Inbound != nil:
					lines += len(d.Inbound.Lines)
				}
			}
			if strings.Join(keys, ",") != strings.Join(tc.keys, ",") || lines != tc.lines {
				t.Errorf("documents %q with %d lines, want %q with %d", keys, lines, tc.keys, tc.lines)
			}
			if got := res.docs[0].Rows; !slices.Equal(got, tc.rows) {
				t.Errorf("rows of the first document %v, want %v", got, tc.rows)
			}
		})
	}
}

// TestX12Issues checks what a clerk reads about a bad interchange: a value
// named by its set, segment and element; an envelope problem refusing the
// whole file; a set of another document type.
func TestX12Issues(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("testdata", "x12", "940.x12"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		old, new string
		typ      string
		want     string
		docs     int
	}{
		{"empty quantity", "W01*5*EA**VN*CHR-OAK-DIN", "W01**EA**VN*CHR-OAK-DIN", "orders",
			`940.x12 segment 8 W01, element 01 of set 940 0002, column "quantity": `, 3},
		{"bad date", "G62*02*20261203", "G62*02*20261340", "sales_orders",
			`940.x12 segment 8 G62, element 02 of set 940 0001, column "plannedDeliveryDate" (value "2026-13-40"): `, 3},
		{"wrong count", "SE*10*0003", "SE*11*0003", "orders",
			`940.x12: the X12 interchange is malformed, nothing of it is submitted and its 997 acknowledgement rejects it: transaction set 940 0003: segment 10 SE, element 01: SE01 says "11" segments, the set has 10 (ST to SE)`, 0},
		{"other type", "", "", "receptions",
			`transaction set 940 0001 (Warehouse Shipping Order) is not of the document type of this file (inbound)`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := strings.Replace(string(good), tc.old, tc.new, 1)
			ed := model.EditionA
			if tc.typ == "sales_orders" {
				ed = model.EditionB
			}
			res := decodeBytes(t, "940.x12", []byte(in), Options{Edition: ed, Type: tc.typ})
			if res.err != nil {
				t.Fatal(res.err)
			}
			found := false
			for _, is := range res.errors() {
				found = found || strings.Contains(is.Error(), tc.want)
			}
			if !found {
				t.Errorf("no issue saying %q in:\n%s", tc.want, dump(res.errors()))
			}
			if len(res.docs) != tc.docs {
				t.Errorf("%d documents, want %d", len(res.docs), tc.docs)
			}
		})
	}
}
