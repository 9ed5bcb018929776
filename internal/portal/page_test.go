package portal

import (
	"encoding/json"
	"fmt"
	"reflect"
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

// slowPage is the reference reading of a page: encoding/json only.
func slowPage[W, M any](b []byte, conv func(*W) M) (page[M], error) {
	raw, err := decodePageRaw(b)
	if err != nil {
		return page[M]{}, err
	}
	p := page[M]{TotalItems: raw.TotalItems, Next: raw.Next, HasView: raw.HasView}
	for _, m := range raw.Members {
		var w W
		if err := json.Unmarshal(m, &w); err != nil {
			p.Err = err
			break
		}
		p.Members = append(p.Members, conv(&w))
	}
	return p, nil
}

// samePage fails when the fast and the reference readings differ.
func samePage[M any](t *testing.T, in []byte, got page[M], gotErr error, want page[M], wantErr error) {
	t.Helper()
	if (gotErr != nil) != (wantErr != nil) || (got.Err != nil) != (want.Err != nil) {
		t.Fatalf("%s\nerrors differ: fast %v / %v, encoding/json %v / %v", in, gotErr, got.Err, wantErr, want.Err)
	}
	if gotErr != nil {
		return
	}
	got.Err, want.Err = nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s\n fast %+v\n json %+v", in, got, want)
	}
}

func checkMember[W, M any](t *testing.T, member string, conv func(*W) M) {
	t.Helper()
	for _, env := range []string{`{"hydra:member":[%s],"hydra:totalItems":1}`, `[%s]`, `{"member":[{},%s]}`} {
		in := []byte(fmt.Sprintf(env, member))
		got, gotErr := decodePage(in, conv)
		want, wantErr := slowPage(in, conv)
		samePage(t, in, got, gotErr, want, wantErr)
	}
}

// TestFastDecodersMatch reads members in usual and unusual forms with the
// fast reader and with encoding/json alone: both must agree.
func TestFastDecodersMatch(t *testing.T) {
	members := []string{
		`{"available":5,"incoming":"1","allocated":0,"locked":2,"variant":{"@id":"/api/variants/12","sku":"S","name":"N","ean":"4006381333931","supplier":5}}`,
		`{"available":-3,"variant":12,"createdAt":"2026-11-21T09:30:00+00:00:00","updatedAt":"2026-11-21T09:30:00Z"}`,
		`{"available":"7","variant":"/api/variants/12","createdAt":"2026-11-21T10:30:00+01:00","updatedAt":"2026-11-21 09:30:00"}`,
		`{"available":5.0,"variant":"12","createdAt":null,"updatedAt":"2026-02-30T09:30:00+00:00"}`,
		`{"available":1e2,"variant":{"id":"12","sku":"S\u00e9","name":"caf\u00e9","length":"45.10","width":45.0,"height":-0,"buyPrice":8.99e1}}`,
		`{"Available":5,"variant":{"SKU":"S","Name":"N"}}`,
		`{"available":5,"variant":{"sku":12345,"name":true,"ean":null,"supplier":{"@id":"/api/connections/4","code":"SUP","name":"Sup"}}}`,
		`{"available":5,"variant":{"sku":"S","supplier":"/api/connections/x"},"extra":{"nested":[1,2,{"a":"b"}]},"id":9}`,
		`{"available":5,"variant":{"sku":"S"},"variant":{"name":"N"}}`,
		`{"available":5,"variant":{"sku":"S"},"variant":12}`,
		`{"available":5,"variant":[1]}`,
		`{"available":"x"}`,
		`{"available":99999999999999999999}`,
		`{"available":5,"variant":{"@id":7}}`,
		`{"available":5,"variant":{"@id":"/api/variants/7","id":0}}`,
		`{"available":5,"variant":{"@id":"/api/variants/7/","sku":" S "}}`,
		`{"ſku":"x","available":1}`,
		`{"available":1,"variant":{"sku":"a\"b","name":"tab\there"}}`,
		`null`,
		`"text"`,
		`{}`,
		`{"available":1,"updatedAt":"2026-11-21T24:00:00+00:00"}`,
		`{"available":1,"updatedAt":"2026-11-21T23:59:60+00:00"}`,
	}
	for _, m := range members {
		t.Run(m, func(t *testing.T) {
			checkMember(t, m, (*wStock).model)
			checkMember(t, m, (*skuA).model)
			checkMember(t, m, (*wMovement).model)
		})
	}
	others := []string{
		`{"@id":"/api/connections/3","code":"C","name":"N","relationship":"Manufacturer","zipcode":69003,"city":null}`,
		`{"id":"3","code":"C","state":"  Rhône ","email":"a@b.c","contactName":"X","phone":"+33"}`,
		`{"@id":"/api/stock_movements/8","fromPosition":"available","toPosition":null,"quantity":"-2","movedAt":"2026-11-21T09:30:00+00:00",` +
			`"variant":{"id":12,"sku":"S","company":"/api/companies/42"},"processed":"true","fromLotNumber":"L","fromExpiryDate":"2027-06-30"}`,
		`{"processed":1,"quantity":2.5}`,
		`{"processed":false,"quantity":-0,"variant":{"sku":"V","length":"1e1"}}`,
	}
	for _, m := range others {
		t.Run(m, func(t *testing.T) {
			checkMember(t, m, (*connectionB).model)
			checkMember(t, m, (*supplierA).model)
			checkMember(t, m, (*movementB).model)
			checkMember(t, m, (*variantB).model)
		})
	}
}

// TestDecodePageEnvelopes reads the envelopes, totals and views the
// portal may send, and checks how errors come out.
func TestDecodePageEnvelopes(t *testing.T) {
	conv := (*supplierA).model
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
			want, wantErr := slowPage([]byte(tt.in), conv)
			samePage(t, []byte(tt.in), p, err, want, wantErr)
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
	got, err := wireA{}.stocks(in)
	want, wantErr := slowPage(in, (*wStock).model)
	samePage(t, in, got, err, want, wantErr)
	if len(got.Members) != 30 || got.TotalItems != 90 || got.Members[6].SKU != "PRE-000007" ||
		got.Members[6].UpdatedAt.IsZero() {
		t.Errorf("got %+v", got.Members[6])
	}
}

// FuzzDecodePage compares the fast reading of pages and members with
// encoding/json's.
func FuzzDecodePage(f *testing.F) {
	f.Add([]byte(stockPageA(2)))
	f.Add([]byte(`{"member":[{"available":"1","variant":"/api/variants/3"}],"totalItems":1,"view":{"next":null}}`))
	f.Add([]byte(`[{"available":1,"variant":{"id":2,"sku":"a\u0062","supplier":{"code":"C"}},"createdAt":"2026-01-31T00:00:00Z"}]`))
	f.Add([]byte(`2024-02-29T23:59:59+00:00:00`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, gotErr := decodePage(b, (*wStock).model)
		want, wantErr := slowPage(b, (*wStock).model)
		samePage(t, b, got, gotErr, want, wantErr)
		if got, ok := fastTime(b); ok {
			if want, err := parseWireTime(string(b)); err != nil || !got.Equal(want) {
				t.Fatalf("%q: fast %v, time.Parse %v %v", b, got, want, err)
			}
		}
		gotB, gotErr := decodePage(b, (*movementB).model)
		wantB, wantErr := slowPage(b, (*movementB).model)
		samePage(t, b, gotB, gotErr, wantB, wantErr)
	})
}

// BenchmarkDecodeStockPage reads a page of 10,000 Edition A stocks.
func BenchmarkDecodeStockPage(b *testing.B) {
	in := stockPageA(model.MaxItemsPerPage)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		p, err := wireA{}.stocks(in)
		if err != nil || len(p.Members) != model.MaxItemsPerPage {
			b.Fatal(err, len(p.Members))
		}
	}
}

// BenchmarkDecodeStockPageJSON is the same page read with encoding/json
// alone, for comparison.
func BenchmarkDecodeStockPageJSON(b *testing.B) {
	in := stockPageA(model.MaxItemsPerPage)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := slowPage(in, (*wStock).model); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFastTime checks the fast timestamp reading against time.Parse.
func TestFastTime(t *testing.T) {
	var in []string
	for _, d := range []string{"2026-11-21", "2024-02-29", "2023-02-29", "2026-04-31", "2026-12-31", "2026-13-01",
		"2026-00-10", "2026-01-00", "0000-01-01", "9999-12-31", "2026-1x-01"} {
		for _, h := range []string{"00:00:00", "23:59:59", "24:00:00", "12:60:00", "12:00:60", "1a:00:00"} {
			for _, z := range []string{"+00:00", "+00:00:00", "Z", "+01:00", "z", "+00:0", ".5Z", ""} {
				in = append(in, d+"T"+h+z, d+" "+h+z)
			}
		}
	}
	for _, s := range in {
		got, ok := fastTime([]byte(s))
		if !ok {
			continue
		}
		want, err := parseWireTime(s)
		if err != nil || !got.Equal(want) || got.Location() != want.Location() {
			t.Errorf("%s: fast %v, time.Parse %v %v", s, got, want, err)
		}
	}
	if _, ok := fastTime([]byte("2026-11-21T09:30:05+00:00")); !ok {
		t.Error("the usual form is not read fast")
	}
}
