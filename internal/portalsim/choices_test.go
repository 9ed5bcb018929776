package portalsim

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
)

// withChoice serves the documented profile of the edition with one switch
// flipped.
func withChoice(t *testing.T, b bool, name, value string, also ...string) Options {
	t.Helper()
	opts := Options{Seed: 1}
	opts.Edition = edA().Edition
	if b {
		opts.Edition = edB().Edition
	}
	ch, err := Profile(DefaultProfile)
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.SetAll(append(also, name+"="+value)); err != nil {
		t.Fatal(err)
	}
	opts.Choices = &ch
	return opts
}

// touch updates a stored document as the warehouse would.
func (c *tc) touch(r Resource, id int64) {
	c.sim.mu.Lock()
	defer c.sim.mu.Unlock()
	c.sim.clock.touch(c.sim.tables[r].get(id).meta())
}

// masterA creates supplier 1 and SKU 1 (Edition A).
func masterA(c *tc) {
	c.post("/connections", supplierA("SUP-1"))
	c.post("/variants", skuA("SKU-1", 1))
}

func hasKey(ms []map[string]any, key string) bool {
	for _, m := range ms {
		if _, ok := m[key]; ok {
			return true
		}
	}
	return false
}

// TestChoices checks that each switch's two sides behave as the two
// readings of the API documents.
func TestChoices(t *testing.T) {
	tests := []struct {
		name   string
		b      bool // Edition B
		values []string
		also   []string // other switches flipped
		// run exercises the simulator and returns what the side shows.
		run  func(c *tc) string
		want []string // per value
	}{
		{"order-filter", false, []string{"status.code", "fulfillmentStatus.code", "both"}, nil, func(c *tc) string {
			masterA(c)
			c.post("/sales_orders", orderA("SO-1", 1, 1))
			// Orders are created at status 10: a filter on 99 that is honoured lists none.
			return itoa(c.get("/sales_orders?status.code=99").total()) + "," + itoa(c.get("/sales_orders?fulfillmentStatus.code=99").total())
		}, []string{"0,1", "1,0", "0,0"}},
		{"item-reads", true, []string{"404", "403", "served"}, nil, func(c *tc) string {
			c.post("/variants", variantB("V1"))
			return itoa(int64(c.do("GET", "/api/variants/1", nil).status))
		}, []string{"404", "403", "200"}},
		{"create-ids", false, []string{"on", "off"}, nil, func(c *tc) string {
			masterA(c)
			r := c.post("/purchase_orders", receptionA("REC-1", 1, 1, 5))
			_, id := r.body["id"]
			_, iri := r.body["@id"]
			sup := c.post("/connections", supplierA("SUP-2")) // the supplier table lists an id: always given
			return strings.Join([]string{boolStr(id), boolStr(iri), boolStr(r.header.Get("Location") != ""), boolStr(sup.body["id"] != nil)}, ",")
		}, []string{"true,true,true,true", "false,false,false,true"}},
		{"variant-updated-after", true, []string{"on", "off"}, nil, func(c *tc) string {
			c.post("/variants", variantB("V1"))
			return itoa(c.get("/variants?updatedAt%5Bafter%5D=2030-01-01T00:00:00%2B00:00").total())
		}, []string{"0", "1"}},
		{"standard-order-type", false, []string{"on", "off"}, nil, func(c *tc) string {
			masterA(c)
			rec := receptionA("REC-1", 1, 1, 5)
			rec["orderType"] = "STANDARD"
			return itoa(int64(c.do("POST", "/api/purchase_orders", rec).status))
		}, []string{"200", "422"}},
		{"hydra-next", true, []string{"off", "on"}, nil, func(c *tc) string {
			c.post("/variants", variantB("V1"))
			c.post("/variants", variantB("V2"))
			view, _ := c.get("/variants?itemsPerPage=1").body["hydra:view"].(map[string]any)
			_, next := view["hydra:next"]
			return boolStr(next)
		}, []string{"false", "true"}},
		{"timestamps", true, []string{"on", "off"}, nil, func(c *tc) string {
			c.post("/variants", variantB("V1"))
			return boolStr(hasKey(c.get("/variants").members(), "updatedAt"))
		}, []string{"true", "false"}},
		{"list-order", false, []string{"id", "updatedAt"}, nil, func(c *tc) string {
			masterA(c)
			for _, n := range []string{"REC-1", "REC-2", "REC-3"} {
				c.post("/purchase_orders", receptionA(n, 1, 1, 5))
			}
			c.touch(PurchaseOrders, 1)
			return ids(c.get("/purchase_orders"))
		}, []string{"1,2,3", "2,3,1"}},
		{"moving-pages", false, []string{"off", "on"}, []string{"list-order=updatedAt"}, func(c *tc) string {
			masterA(c)
			for _, n := range []string{"REC-1", "REC-2", "REC-3", "REC-4"} {
				c.post("/purchase_orders", receptionA(n, 1, 1, 5))
			}
			// Under list-order updatedAt, the first row of page 1 moves to the
			// end while page 1 is read: row 3 slides onto page 1, unread.
			return ids(c.get("/purchase_orders?itemsPerPage=2")) + "," + ids(c.get("/purchase_orders?itemsPerPage=2&page=2"))
		}, []string{"1,2,3,4", "1,2,4,1"}},
		{"extra-filters", true, []string{"off", "on"}, nil, func(c *tc) string {
			c.post("/variants", variantB("V1"))
			c.post("/variants", variantB("V2"))
			return itoa(c.get("/variants?id=1").total())
		}, []string{"2", "1"}},
		{"consignee-code", true, []string{"refuse", "reuse"}, nil, func(c *tc) string {
			c.post("/connections", connectionB("C1"))
			c.post("/variants", variantB("V1"))
			so := soB("S1", 1, 1)
			so["shipTo"].(map[string]any)["code"] = "C1"
			return itoa(int64(c.do("POST", "/api/sales_orders", so).status))
		}, []string{"422", "200"}},
		{"ship-to-address", false, []string{"off", "on"}, nil, func(c *tc) string {
			masterA(c)
			o := orderA("SO-1", 1, 1)
			delete(o["shipTo"].(map[string]any), "city")
			a := c.do("POST", "/api/sales_orders", o)
			b := c.do("POST", "/api/sales_orders", map[string]any{"company": 42, "orderNumber": "SO-2", "externalOrderNumber": "W2",
				"warehouseLocation": 3, "shipTo": map[string]any{}, "salesOrderLineItems": []any{map[string]any{"variant": 1, "quantity": 1}}})
			return itoa(int64(a.status)) + "," + itoa(int64(b.status))
		}, []string{"200,200", "422,422"}},
		{"warehouse-location", true, []string{"warehouse", "warehouse-client"}, nil, func(c *tc) string {
			c.post("/connections", connectionB("C1"))
			c.post("/variants", variantB("V1"))
			var out []string
			for _, wh := range []int{3, 5, 8, 101} {
				p := poB("P"+itoa(int64(wh)), 1, 1, 5)
				p["warehouseLocation"] = wh
				r := c.do("POST", "/api/purchase_orders", p)
				code, _ := at(r.body, "warehouseLocation.code").(string)
				out = append(out, itoa(int64(r.status))+":"+code)
			}
			return strings.Join(out, " ")
		}, []string{"200:WH-LYON 200:WH-HAMBURG 200:WH-MILANO 422:", "422: 422: 422: 200:WH-LYON"}},
		{"items-per-page", true, []string{"honoured", "ignored"}, nil, func(c *tc) string {
			for i := range 40 {
				c.post("/variants", variantB("V"+itoa(int64(i))))
			}
			r := c.get("/variants?itemsPerPage=100")
			return itoa(int64(len(r.members()))) + "/" + itoa(r.total())
		}, []string{"40/40", "30/40"}},
		{"null-numbers", true, []string{"off", "on"}, nil, func(c *tc) string {
			v := variantB("V1")
			delete(v, "width")
			c.post("/variants", v)
			w := c.get("/variants").members()[0]["width"]
			return boolStr(w == nil)
		}, []string{"false", "true"}},
		{"violation-status", true, []string{"422", "400"}, nil, func(c *tc) string {
			return itoa(int64(c.do("POST", "/api/variants", map[string]any{"company": 42}).status))
		}, []string{"422", "400"}},
		{"create-status", true, []string{"documented", "201"}, nil, func(c *tc) string {
			c.do("POST", "/api/variants", variantB("V1"))
			a := c.do("POST", "/api/connections", connectionB("C1")).status
			b := c.do("POST", "/api/variant_packagings", map[string]any{"variant": "/api/variants/1", "code": "OUTER"}).status
			return itoa(int64(a)) + "," + itoa(int64(b))
		}, []string{"200,201", "201,201"}},
	}
	covered := map[string]bool{"strict-input": true} // TestStrictInput
	for _, tt := range tests {
		covered[tt.name] = true
		for i, v := range tt.values {
			t.Run(tt.name+"="+v, func(t *testing.T) {
				c := start(t, withChoice(t, tt.b, tt.name, v, tt.also...))
				if got := tt.run(c); got != tt.want[i] {
					t.Errorf("%s=%s: got %s, want %s", tt.name, v, got, tt.want[i])
				}
			})
		}
	}
	for _, name := range ChoiceNames() {
		if !covered[name] {
			t.Errorf("switch %s has no test", name)
		}
	}
}

func boolStr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// TestProfiles checks the profiles: the documented one is the default,
// other-side flips every switch, each gives every switch a valid value,
// and the command-line form sets and refuses values.
func TestProfiles(t *testing.T) {
	names := ProfileNames()
	if names[0] != DefaultProfile || !slices.Contains(names, "other-side") || !slices.Contains(names, "lenient") {
		t.Fatalf("profiles %v", names)
	}
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := Profile(DefaultProfile)
	if s.Choices() != doc {
		t.Errorf("a simulator without choices serves %+v, want the documented profile", s.Choices())
	}
	other, _ := Profile("other-side")
	for _, name := range ChoiceNames() {
		a, _ := doc.Get(name)
		b, _ := other.Get(name)
		if name == "strict-input" {
			// Not an open point: the documents are explicit, both are strict.
			if a != "on" || b != "on" {
				t.Errorf("%s is %s in documented, %s in other-side", name, a, b)
			}
			continue
		}
		if a == b {
			t.Errorf("switch %s is %s in both documented and other-side", name, a)
		}
	}
	if _, err := Profile("nope"); err == nil || !strings.Contains(err.Error(), "documented") {
		t.Errorf("unknown profile: %v", err)
	}
	ch := doc
	if err := ch.SetAll([]string{"item-reads=403", "hydra-next=true"}); err != nil || ch.ItemReads != "403" || !ch.HydraNext {
		t.Errorf("SetAll: %v, %+v", err, ch)
	}
	for _, bad := range []string{"item-reads=500", "nope=on", "item-reads"} {
		if err := ch.SetAll([]string{bad}); err == nil {
			t.Errorf("SetAll(%q) took it", bad)
		}
	}
	if _, err := New(Options{Choices: &Choices{}}); err == nil {
		t.Error("New took choices without values")
	}
	help := ChoicesHelp()
	for _, name := range append(ChoiceNames(), names...) {
		if !strings.Contains(help, name) {
			t.Errorf("the help does not list %s", name)
		}
	}
}

// TestUndocumentedRequests checks that the simulator counts, by operation,
// every request the documents do not show, and none they show.
func TestUndocumentedRequests(t *testing.T) {
	lenient := edB()
	c := start(t, lenient)
	c.post("/connections", connectionB("C1"))
	c.post("/variants", variantB("V1"))
	documented := []string{
		"/variants?sku=V1&itemsPerPage=30&page=1",
		"/variants?updatedAt%5Bafter%5D=2026-01-01T00:00:00%2B00:00",
		"/sales_orders?status.code=80",
		"/fulfillments?createdAt%5Bafter%5D=2026-01-01T00:00:00%2B00:00&order%5BcreatedAt%5D=asc",
		"/connections?code%5B%5D=C1&code%5B%5D=C2",
		"/stocks?variant.sku=V1",
	}
	for _, p := range documented {
		c.get(p)
	}
	if n := c.sim.UndocumentedRequests(); n != 0 {
		t.Fatalf("documented requests counted: %d %v", n, c.sim.Stats().Undocumented)
	}
	c.get("/variants/1")
	c.get("/sales_orders?fulfillmentStatus.code=80&id=3")
	c.get("/variants?id=1")
	c.do("GET", "/api/receptions", nil)
	c.do("DELETE", "/api/variants", nil)
	want := map[string]int{
		"GET /api/variants/{id}":                       1,
		"GET /api/sales_orders?fulfillmentStatus.code": 1,
		"GET /api/sales_orders?id":                     1,
		"GET /api/variants?id":                         1,
		"GET /api/receptions":                          1,
		"DELETE /api/variants":                         1,
	}
	st := c.sim.Stats()
	if st.UndocumentedRequests != 5 || !maps.Equal(st.Undocumented, want) {
		t.Errorf("undocumented: %d %v, want 5 %v", st.UndocumentedRequests, st.Undocumented, want)
	}
	r := c.mustDo(200, "GET", "/_sim/stats", nil)
	var body struct {
		N  int            `json:"undocumentedRequests"`
		By map[string]int `json:"undocumented"`
	}
	if err := json.Unmarshal(r.raw, &body); err != nil || body.N != 5 || len(body.By) != len(want) {
		t.Errorf("/_sim/stats: %v %s", err, r.raw)
	}

	// Edition A: its flow text names fulfillmentStatus.code for orders;
	// only Edition B's flow text filters variants with updatedAt[after]
	// (which the documented profile honours in both editions).
	a := start(t, Options{Edition: EditionA, Seed: 1})
	masterA(a)
	a.get("/sales_orders?fulfillmentStatus.code=80&status.code=80")
	if n := a.sim.UndocumentedRequests(); n != 0 {
		t.Errorf("Edition A's documented order filters counted: %v", a.sim.Stats().Undocumented)
	}
	after := "/variants?updatedAt%5Bafter%5D=2030-01-01T00:00:00%2B00:00"
	if n := a.get(after).total(); n != 0 {
		t.Errorf("Edition A's SKU list ignored updatedAt[after]: %d", n)
	}
	if st := a.sim.Stats(); st.UndocumentedRequests != 1 || st.Undocumented["GET /api/variants?updatedAt[after]"] != 1 {
		t.Errorf("Edition A's SKU list with updatedAt[after]: %v", st.Undocumented)
	}
}

// TestStrictInput checks the strict-input switch: what the documents
// forbid is refused when it is on (TestViolations gives the rule of each)
// and taken when it is off.
func TestStrictInput(t *testing.T) {
	tests := []struct {
		name string
		b    bool
		res  string
		body func() map[string]any
	}{
		{"reception supplier as a numeric string", false, "/purchase_orders", func() map[string]any {
			r := receptionA("R9", 1, 1, 5)
			r["supplier"] = "1"
			return r
		}},
		{"reception supplier as an IRI", false, "/purchase_orders", func() map[string]any {
			r := receptionA("R9", 1, 1, 5)
			r["supplier"] = "/api/connections/1"
			return r
		}},
		{"dueAt without offset", false, "/purchase_orders", func() map[string]any {
			r := receptionA("R9", 1, 1, 5)
			r["dueAt"] = "2026-12-01T08:00:00"
			return r
		}},
		{"dueAt in Z", false, "/purchase_orders", func() map[string]any {
			r := receptionA("R9", 1, 1, 5)
			r["dueAt"] = "2026-12-01T08:00:00Z"
			return r
		}},
		{"company IRI", false, "/connections", func() map[string]any {
			r := supplierA("S9")
			r["company"] = "/api/companies/42"
			return r
		}},
		{"SKU width as a string", false, "/variants", func() map[string]any {
			r := skuA("K9", 1)
			r["width"] = "50"
			return r
		}},
		{"packaging variant as an integer", true, "/variant_packagings", func() map[string]any {
			return map[string]any{"variant": 1, "code": "BOX9"}
		}},
		{"packaging supplier as an integer", true, "/variant_packagings", func() map[string]any {
			return map[string]any{"variant": "/api/variants/1", "code": "BOX9", "supplier": 1}
		}},
		{"sales order line variant as an IRI", true, "/sales_orders", func() map[string]any {
			r := soB("S9", 1, 1)
			r["salesOrderLineItems"].([]any)[0].(map[string]any)["variant"] = "/api/variants/1"
			return r
		}},
	}
	for _, tt := range tests {
		for _, strict := range []string{"on", "off"} {
			t.Run(tt.name+"/strict-input="+strict, func(t *testing.T) {
				c := start(t, withChoice(t, tt.b, "strict-input", strict))
				if tt.b {
					c.post("/connections", connectionB("C1"))
					c.post("/variants", variantB("V1"))
				} else {
					masterA(c)
				}
				want := 422
				if strict == "off" {
					want = 200
					if tt.res == "/variant_packagings" {
						want = 201
					}
				}
				c.mustDo(want, "POST", "/api"+tt.res, tt.body())
			})
		}
	}
}

// TestMovingPagesLosesRows reproduces issue 22's "rows lost while pages
// are read" under the other-side profile: 12 receptions, 3 per page, one
// updated during each page read, read page by page: 3 of the 12 are never
// served (and 3 served twice), while totalItems stays 12. (The other-side
// profile has both switches on.)
func TestMovingPagesLosesRows(t *testing.T) {
	c := start(t, withChoice(t, false, "moving-pages", "on", "list-order=updatedAt"))
	masterA(c)
	for i := range 12 {
		c.post("/purchase_orders", receptionA("REC-"+itoa(int64(i+1)), 1, 1, 5))
	}
	seen := map[int64]int{}
	for page := 1; page <= 4; page++ {
		r := c.get("/purchase_orders?itemsPerPage=3&page=" + itoa(int64(page)))
		if r.total() != 12 {
			t.Fatalf("page %d: totalItems %d", page, r.total())
		}
		for _, m := range r.members() {
			seen[num(m["id"])]++
		}
	}
	twice := 0
	for _, n := range seen {
		if n > 1 {
			twice++
		}
	}
	if len(seen) != 9 || twice != 3 {
		t.Errorf("%d of 12 receptions served, %d twice; want 9 and 3: %v", len(seen), twice, seen)
	}
}
