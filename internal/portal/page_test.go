package portal

import (
	"fmt"
	"strings"
	"testing"

	"filebridge/internal/model"
)

// stockPageA builds an Edition A stock page of n members shaped like the
// simulator's (every 7th document's timestamps in the "+00:00:00" form).
func stockPageA(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"@context":"/api/contexts/Stock","@id":"/api/stocks","@type":"hydra:Collection","hydra:member":[`)
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteByte(',')
		}
		ts := `"2026-11-21T23:52:41+00:00"`
		if i%7 == 0 {
			ts = `"2026-11-21T23:52:41+00:00:00"`
		}
		fmt.Fprintf(&b, `{"@id":"/api/stocks/%d","@type":"Stock","id":%d,"available":%d,"incoming":0,"allocated":0,"locked":0,`+
			`"variant":{"@id":"/api/variants/%d","@type":"Variant","id":%d,"company":42,"sku":"PRE-%06d","name":"Preloaded item %d",`+
			`"description1":null,"ean":"20000000%05d","eanBox":null,"quantityPerBox":1,"length":30,"width":20,"height":10,`+
			`"grossWeight":1.5,"grossWeightBox":1.7,"buyPrice":19.9,"supplier":{"@id":"/api/connections/1","@type":"Connection",`+
			`"id":1,"company":42,"code":"PRE-SUP-0001","name":"Preloaded supplier 1","relationship":"Manufacturer",`+
			`"createdAt":%s,"updatedAt":%s},"createdAt":%s,"updatedAt":%s},"createdAt":%s,"updatedAt":%s}`,
			i, i, i%97, i, i, i, i, i, ts, ts, ts, ts, ts, ts)
	}
	fmt.Fprintf(&b, `],"hydra:totalItems":%d,"hydra:view":{"@id":"/api/stocks?page=1","@type":"hydra:PartialCollectionView",`+
		`"hydra:first":"/api/stocks?page=1","hydra:next":"/api/stocks?page=2"}}`, n*3)
	return []byte(b.String())
}

// TestDecodePageEnvelopes reads the envelopes, totals and views the
// portal may send, and checks how errors come out.
func TestDecodePageEnvelopes(t *testing.T) {
	conv := wireTables[model.EditionA].partners.one
	tests := []struct {
		name     string
		in       string
		codes    string
		total    int64
		next     string
		hasView  bool
		pageErr  bool
		memberEr bool
	}{
		{"hydra", `{"hydra:member":[{"code":"A"},{"code":"B"}],"hydra:totalItems":2}`, "A,B", 2, "", false, false, false},
		{"plain", ` {"member":[{"code":"A"}],"totalItems":"9","view":{"next":"/x?page=2"}} `, "A", 9, "/x?page=2", true, false, false},
		{"hydra wins", `{"member":[{"code":"P"}],"hydra:member":[{"code":"H"}]}`, "H", -1, "", false, false, false},
		{"hydra null", `{"hydra:member":null,"member":[{"code":"P"}],"hydra:totalItems":null}`, "P", -1, "", false, false, false},
		{"view no next", `{"hydra:member":[],"hydra:view":{"@id":"x","hydra:last":"y"}}`, "", -1, "", true, false, false},
		{"array", `[{"code":"A"},null]`, "A,", -1, "", false, false, false},
		{"case", `{"Hydra:Member":[{"code":"A"}]}`, "A", -1, "", false, false, false},
		{"member error", `{"hydra:member":[{"code":"A"},{"code":{}},{"code":"C"}]}`, "A", -1, "", false, false, true},
		{"member not an object", `{"hydra:member":[{"code":"A"},7]}`, "A", -1, "", false, false, true},
		{"invalid", `{"hydra:member":[{"code":"A"},{"code":"B",}]}`, "", 0, "", false, true, false},
		{"invalid after member error", `{"hydra:member":[{"code":{}},{"code":"B"]}`, "", 0, "", false, true, false},
		{"truncated", `{"hydra:member":[{"code":"A"}`, "", 0, "", false, true, false},
		{"trailing", `{"hydra:member":[]} x`, "", 0, "", false, true, false},
		{"next not text", `{"hydra:member":[],"hydra:view":{"hydra:next":5}}`, "", 0, "", false, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := decodePage([]byte(tt.in), conv)
			if (err != nil) != tt.pageErr {
				t.Fatalf("page error %v", err)
			}
			if err != nil {
				return
			}
			var codes []string
			for _, m := range p.Members {
				codes = append(codes, m.Code)
			}
			if got := strings.Join(codes, ","); got != tt.codes || p.TotalItems != tt.total || p.Next != tt.next ||
				p.HasView != tt.hasView || (p.Err != nil) != tt.memberEr {
				t.Errorf("got %q total %d next %q view %v err %v", got, p.TotalItems, p.Next, p.HasView, p.Err)
			}
		})
	}
}

// TestDecodeSimulatorShape reads a page shaped like the simulator's.
func TestDecodeSimulatorShape(t *testing.T) {
	in := stockPageA(30)
	got, err := stocksDoc.page(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Members) != 30 || got.TotalItems != 90 || got.Members[6].SKU != "PRE-000007" ||
		got.Members[6].UpdatedAt.IsZero() {
		t.Errorf("got %+v", got.Members[6])
	}
}

// FuzzDecodePage reads any input as a page: it never panics, and a page
// read holds every member before the first that does not fit.
func FuzzDecodePage(f *testing.F) {
	f.Add([]byte(stockPageA(2)))
	f.Add([]byte(`{"member":[{"available":"1","variant":"/api/variants/3"}],"totalItems":1,"view":{"next":null}}`))
	f.Add([]byte(`[{"available":1,"variant":{"id":2,"sku":"a\u0062","supplier":{"code":"C"}},"createdAt":"2026-01-31T00:00:00Z"}]`))
	f.Add([]byte(`2024-02-29T23:59:59+00:00:00`))
	f.Fuzz(func(t *testing.T, b []byte) {
		raw, rawErr := decodePageRaw(b)
		got, err := decodePage(b, stocksDoc.one)
		if (err != nil) != (rawErr != nil) {
			t.Fatalf("%q: page error %v, envelope error %v", b, err, rawErr)
		}
		if err != nil {
			return
		}
		n := len(got.Members)
		if got.Err != nil {
			n++
		}
		if n > len(raw.Members) || (got.Err == nil && len(got.Members) != len(raw.Members)) {
			t.Fatalf("%q: %d members and error %v of %d", b, len(got.Members), got.Err, len(raw.Members))
		}
		if _, err := decodePage(b, wireTables[model.EditionB].movements.one); err != nil {
			t.Fatalf("%q: movements: %v", b, err)
		}
	})
}

// BenchmarkDecodeStockPage reads a page of 10,000 Edition A stocks.
func BenchmarkDecodeStockPage(b *testing.B) {
	in := stockPageA(model.MaxItemsPerPage)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		p, err := stocksDoc.page(in)
		if err != nil || len(p.Members) != model.MaxItemsPerPage {
			b.Fatal(err, len(p.Members))
		}
	}
}
