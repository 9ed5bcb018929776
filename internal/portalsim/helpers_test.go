package portalsim

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"filebridge/internal/templates/gentest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *fakeClock) advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// tc is a test client of one simulator over real HTTP.
type tc struct {
	t     *testing.T
	sim   *Sim
	base  string
	token string
	hc    *http.Client
	clock *fakeClock
}

func start(t *testing.T, opts Options) *tc {
	t.Helper()
	clk := newFakeClock()
	if opts.Clock == nil {
		opts.Clock = clk.now
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return &tc{t: t, sim: s, base: srv.URL, token: s.Token(), hc: srv.Client(), clock: clk}
}

// resp is a decoded response.
type resp struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any
}

func (c *tc) do(method, path string, body any) resp {
	c.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			c.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	req.Header.Set("Accept", "application/ld+json")
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	r := resp{status: res.StatusCode, header: res.Header, raw: raw}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	_ = dec.Decode(&r.body)
	return r
}

// mustDo fails unless the response has the status.
func (c *tc) mustDo(status int, method, path string, body any) resp {
	c.t.Helper()
	r := c.do(method, path, body)
	if r.status != status {
		c.t.Fatalf("%s %s: status %d, want %d: %s", method, path, r.status, status, r.raw)
	}
	return r
}

func (c *tc) post(path string, body any) resp {
	c.t.Helper()
	return c.mustDo(200, "POST", "/api"+path, body)
}

func (c *tc) get(path string) resp { c.t.Helper(); return c.mustDo(200, "GET", "/api"+path, nil) }

func (c *tc) tick(n int) {
	c.t.Helper()
	for range n {
		c.mustDo(200, "POST", "/_sim/tick", nil)
	}
}

// members returns the hydra:member of a collection.
func (r resp) members() []map[string]any {
	list, _ := r.body["hydra:member"].([]any)
	if list == nil {
		list, _ = r.body["member"].([]any)
	}
	out := make([]map[string]any, len(list))
	for i, m := range list {
		out[i] = m.(map[string]any)
	}
	return out
}

func (r resp) total() int64 {
	n, ok := r.body["hydra:totalItems"].(json.Number)
	if !ok {
		n, _ = r.body["totalItems"].(json.Number)
	}
	v, _ := n.Int64()
	return v
}

// at reads a dotted path ("status.code", "lines.0.quantity") from a JSON value.
func at(v any, path string) any {
	for _, p := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			i := 0
			for _, c := range p {
				i = i*10 + int(c-'0')
			}
			if i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func num(v any) int64 {
	n, _ := v.(json.Number).Int64()
	return n
}

// golden compares a JSON body (indented, order kept) with testdata/name.
func golden(t *testing.T, name string, raw []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		t.Fatalf("%s: body is not JSON: %v: %s", name, err, raw)
	}
	buf.WriteByte('\n')
	gentest.Golden(t, filepath.Join("testdata", name+".golden.json"), buf.Bytes(), *update, "-update")
}

// Request bodies used across the tests.

func supplierA(code string) map[string]any {
	return map[string]any{"company": 42, "code": code, "name": "Supplier " + code, "relationship": "Manufacturer"}
}

func skuA(sku string, supplier int64) map[string]any {
	return map[string]any{"company": 42, "sku": sku, "name": "Oak chair " + sku, "description1": "Solid oak dining chair",
		"ean": "4006381333931", "eanBox": "14006381333938", "quantityPerBox": 4, "length": 45, "width": 50, "height": 90,
		"grossWeight": 6.5, "grossWeightBox": 27.2, "buyPrice": 89.90, "supplier": supplier}
}

func receptionA(number string, supplier, variant int64, qty int) map[string]any {
	return map[string]any{"company": 42, "orderNumber": number, "referenceNumber": "PO-88123", "warehouseLocation": 3,
		"supplier": supplier, "orderType": "CONT40", "attributes": map[string]any{"deliveryType": "pallet"},
		"dueAt":                  "2026-12-01T08:00:00+00:00",
		"purchaseOrderLineItems": []any{map[string]any{"position": 1, "variant": variant, "quantity": qty}}}
}

func orderA(number string, variant int64, qty int) map[string]any {
	return map[string]any{"company": 42, "orderNumber": number, "externalOrderNumber": "WEB-" + number, "deliveryMode": "STANDARD",
		"warehouseLocation": 3,
		"shipTo": map[string]any{"name": "Jeanne Martin", "title": "Mme", "firstName": "Jeanne", "lastName": "Martin",
			"streetAddress": "12 rue des Lilas", "city": "Lyon", "countryCode": "FR", "zipcode": 69003, "email": "jeanne.martin@example.org",
			"phone": "+33 6 12 34 56 78", "languageCode": "fr", "attributes": map[string]any{"accessCode": 4521, "floor": "3", "building": "B"}},
		"salesOrderLineItems": []any{map[string]any{"position": 1, "variant": variant, "quantity": qty,
			"purchaseOrderLineItem": map[string]any{"orderNumber": "REC-1", "position": 1}}},
		"serviceLineItems": []any{map[string]any{"position": 1, "serviceType": "TAKE_BACK", "quantity": 1}}}
}

func connectionB(code string) map[string]any {
	return map[string]any{"company": 42, "code": code, "name": "Nordic " + code, "relationship": "Manufacturer", "countryCode": "SE",
		"city": "Malmö", "zipcode": "21120", "streetAddress": "Industrigatan 4", "email": "orders@nordic.example", "phone": "+46 40 123456"}
}

func variantB(sku string) map[string]any {
	return map[string]any{"company": 42, "sku": sku, "name": "Oak chair " + sku, "ean": "4006381333931", "length": 45, "width": 50, "height": 90, "grossWeight": 6.5}
}

func poB(number string, supplier, variant int64, qty int) map[string]any {
	return map[string]any{"company": 42, "orderNumber": number, "referenceNumber": "ERP-1", "warehouseLocation": 3, "supplier": supplier,
		"dueAt":                  "2026-12-01T08:00:00+00:00",
		"purchaseOrderLineItems": []any{map[string]any{"position": 1, "variant": variant, "quantity": qty, "lotNumber": "LOT-7781", "expiryDate": "2027-06-30T00:00:00+00:00"}}}
}

func soB(number string, variant int64, qty int) map[string]any {
	return map[string]any{"company": 42, "orderNumber": number, "externalOrderNumber": "WEB-" + number, "warehouseLocation": 3,
		"shipTo":  map[string]any{"name": "Jeanne Martin", "streetAddress": "12 rue des Lilas", "city": "Lyon", "zipcode": "69003", "countryCode": "FR", "email": "jeanne@example.org"},
		"carrier": 1, "carrierService": 11, "plannedDeliveryDate": "2026-12-03", "deliveryTimeSlotBefore": "17:00",
		"salesOrderLineItems": []any{map[string]any{"position": 1, "variant": variant, "quantity": qty}}}
}

// edA and edB serve the lenient profile, which serves and accepts every
// guess of a client: the tests of what the simulator stores, renders and
// filters. choices_test.go tests the other profiles.
func edA() Options { return Options{Edition: EditionA, Seed: 1, Choices: lenient()} }
func edB() Options { return Options{Edition: EditionB, Seed: 1, Choices: lenient()} }

// documented serves the documented profile (the default) instead.
func documented(o Options) Options { o.Choices = nil; return o }

func lenient() *Choices { c := profiles["lenient"]; return &c }
