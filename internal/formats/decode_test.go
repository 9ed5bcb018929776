package formats

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"filebridge/internal/model"
)

// TestConvertFastLikeParse checks that every cell the fast path of doRow
// converts is one parseInto accepts, with the same value.
func TestConvertFastLikeParse(t *testing.T) {
	fields := []model.Field{
		{Name: "name", Type: model.TString, MaxLen: 6},
		{Name: "note", Type: model.TString},
		{Name: "buyPrice", Type: model.TDecimal},
		{Name: "length", Type: model.TDecimal, Positive: true},
		{Name: "ean", Type: model.TEAN},
	}
	r := rand.New(rand.NewPCG(5, 6))
	cells := []string{"1.234", "1,5", "0", "00", "0.0", "12.50", ".5", "5.", "4006381333931", "40063813", "é", "ééé", "abcdefg"}
	for n := 0; n < 20000; n++ {
		b := make([]byte, 1+r.IntN(14))
		for i := range b {
			b[i] = "0123456789.,-e é"[r.IntN(16)]
		}
		cells = append(cells, string(b))
	}
	for _, p := range []parser{{edition: A}, {edition: A, decimalComma: true}, {edition: A, decimalComma: true, xlsx: true}} {
		d := &decoder{p: p}
		for fi := range fields {
			f := &fields[fi]
			for _, s := range cells {
				var fast, slow value
				if !d.convertFast(&fast, f, fastKindOf(f), s) {
					continue
				}
				if msg := d.p.parseInto(&slow, f, s); msg != "" || fast != slow {
					t.Fatalf("%+v field %s cell %q: fast %+v, parseInto %+v %q", p, f.Name, s, fast, slow, msg)
				}
			}
		}
	}
}

// TestDocsRetained keeps every document of a file of some chunks of
// documents and checks that none was overwritten.
func TestDocsRetained(t *testing.T) {
	var b strings.Builder
	b.WriteString(skuHead + "\n")
	const n = 1000
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "SKU-%d,Chair %d,4006381333931,1,45,50,90,6.5,7.2,89.90,SUP-001\n", i, i)
	}
	b.WriteString("SKU-7,Dup,4006381333931,1,45,50,90,6.5,7.2,89.90,SUP-001\n")
	res := decodeBytes(t, "S.csv", []byte(b.String()), Options{Edition: A})
	if len(res.docs) != n+1 {
		t.Fatalf("%d docs", len(res.docs))
	}
	for i, d := range res.docs[:n] {
		if d.Key != fmt.Sprintf("SKU-%d", i) || d.Item.SKU != d.Key || d.Item.Name != fmt.Sprintf("Chair %d", i) ||
			len(d.Rows) != 1 || d.Rows[0] != i+2 || cap(d.Rows) != 1 || len(d.Issues) != 0 {
			t.Fatalf("doc %d: %+v %+v", i, d, d.Item)
		}
	}
	last := res.docs[n]
	if len(last.Issues) != 1 || last.Issues[0].Value != "SKU-7" {
		t.Fatalf("issues %s", dump(last.Issues))
	}
	// The issue's value is a copy, not a part of the file's text.
	if v := last.Issues[0].Value; unsafe.StringData(v) == unsafe.StringData(last.Key) {
		t.Errorf("the issue value shares the document's key")
	}
}
