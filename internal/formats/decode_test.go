package formats

import (
	"fmt"
	"strings"
	"testing"
)

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
}

// TestUniqueKeyLengths checks duplicates on both sides of shortKeyLen, and
// keys that differ only by trailing bytes a fixed-size key could confuse.
func TestUniqueKeyLengths(t *testing.T) {
	keys := []string{
		strings.Repeat("K", shortKeyLen-1), strings.Repeat("K", shortKeyLen), strings.Repeat("K", shortKeyLen+1),
		"AB", "AB0", "AB00", "A", strings.Repeat("K", shortKeyLen+2),
	}
	var b strings.Builder
	b.WriteString(skuHead + "\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "%s,Chair,4006381333931,1,45,50,90,6.5,7.2,89.90,SUP-001\n", k)
	}
	for _, k := range keys[:3] { // again: duplicates of lines 2..4
		fmt.Fprintf(&b, "%s,Chair,4006381333931,1,45,50,90,6.5,7.2,89.90,SUP-001\n", k)
	}
	res := decodeBytes(t, "S.csv", []byte(b.String()), Options{Edition: B, Type: "skus"})
	if len(res.docs) != len(keys)+3 {
		t.Fatalf("%d docs", len(res.docs))
	}
	for i, d := range res.docs {
		want := ""
		if i >= len(keys) {
			want = fmt.Sprintf("already appears on line %d", i-len(keys)+2)
		}
		got := ""
		for _, is := range d.Issues {
			if is.Column == "sku" {
				got = is.Message
			}
		}
		if want == "" && got != "" || want != "" && !strings.Contains(got, want) {
			t.Errorf("row %d (%q): issue %q, want %q", i+2, d.Key, got, want)
		}
	}
}
