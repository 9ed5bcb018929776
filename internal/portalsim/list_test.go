package portalsim

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestPaging(t *testing.T) {
	c := start(t, edA())
	for i := 1; i <= 25; i++ {
		c.post("/connections", supplierA(fmt.Sprintf("S%02d", i)))
	}
	tests := []struct {
		query            string
		first, n         int
		next, prev, last string
	}{
		{"", 1, 25, "", "", "/api/connections?page=1"},
		{"?itemsPerPage=10", 1, 10, "/api/connections?itemsPerPage=10&page=2", "", "/api/connections?itemsPerPage=10&page=3"},
		{"?itemsPerPage=10&page=2", 11, 10, "/api/connections?itemsPerPage=10&page=3", "/api/connections?itemsPerPage=10&page=1", "/api/connections?itemsPerPage=10&page=3"},
		{"?itemsPerPage=10&page=3", 21, 5, "", "/api/connections?itemsPerPage=10&page=2", "/api/connections?itemsPerPage=10&page=3"},
		{"?itemsPerPage=10&page=4", 0, 0, "", "/api/connections?itemsPerPage=10&page=3", "/api/connections?itemsPerPage=10&page=3"},
		{"?page=1&itemsPerPage=0", 0, 0, "", "", ""},
		{"?itemsPerPage=10000", 1, 25, "", "", "/api/connections?itemsPerPage=10000&page=1"},
		{"?name=S1&itemsPerPage=5&page=2", 15, 5, "", "/api/connections?name=S1&itemsPerPage=5&page=1", "/api/connections?name=S1&itemsPerPage=5&page=2"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			r := c.get("/connections" + tt.query)
			m := r.members()
			if len(m) != tt.n || r.total() == 0 {
				t.Fatalf("%d members (total %d), want %d", len(m), r.total(), tt.n)
			}
			if tt.n > 0 && num(m[0]["id"]) != int64(tt.first) {
				t.Errorf("first id %v, want %d", m[0]["id"], tt.first)
			}
			view := r.body["hydra:view"].(map[string]any)
			for k, want := range map[string]string{"hydra:next": tt.next, "hydra:previous": tt.prev, "hydra:last": tt.last} {
				got, _ := view[k].(string)
				if got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
		})
	}
	for _, q := range []string{"page=0", "page=-1", "page=x", "itemsPerPage=-1", "itemsPerPage=10001", "itemsPerPage=1.5", "createdAt[after]=yesterday"} {
		t.Run("400 "+q, func(t *testing.T) {
			r := c.mustDo(400, "GET", "/api/connections?"+q, nil)
			if r.body["@type"] != "hydra:Error" {
				t.Errorf("body %s", r.raw)
			}
		})
	}
}

func TestPlainEnvelope(t *testing.T) {
	o := edA()
	o.Envelope = "plain"
	c := start(t, o)
	c.post("/connections", supplierA("S1"))
	r := c.get("/connections?itemsPerPage=1")
	if r.total() != 1 || len(r.members()) != 1 || r.body["@type"] != "Collection" || at(r.body, "view.@type") != "PartialCollectionView" || at(r.body, "search.template") == nil {
		t.Fatalf("plain envelope: %s", r.raw)
	}
	if r := c.mustDo(422, "POST", "/api/connections", supplierA("S1")); r.body["detail"] == nil {
		t.Errorf("plain violation body: %s", r.raw)
	}
}

func ids(r resp) string {
	var s []string
	for _, m := range r.members() {
		s = append(s, fmt.Sprint(m["id"]))
	}
	return strings.Join(s, ",")
}

func TestFiltersA(t *testing.T) {
	c := start(t, edA())
	c.post("/connections", supplierA("ACME"))
	c.post("/connections", map[string]any{"company": 42, "code": "NORD", "name": "Nordic Furniture", "relationship": "Manufacturer"})
	c.post("/connections", supplierA("ZED"))
	c.post("/variants", skuA("CHAIR", 1))
	c.post("/variants", skuA("TABLE", 2))
	c.post("/purchase_orders", receptionA("REC-1", 1, 1, 10))
	c.clock.advance(time.Hour)
	c.post("/purchase_orders", receptionA("REC-10", 1, 2, 10))
	c.post("/sales_orders", orderA("SO-1", 1, 1))
	c.post("/sales_orders", orderA("SO-2", 2, 1))
	c.tick(1) // everything to 20
	c.post("/sales_orders", orderA("SO-3", 2, 1))
	c.tick(1) // receptions and SO-1, SO-2 to 80; SO-3 to 20
	t0 := "2026-11-21T08:00:00+00:00"
	t1 := "2026-11-21T09:00:00+00:00"
	tests := []idCase{
		{"/connections?code=NORD", "2"},
		{"/connections?code[]=NORD&code[]=ZED", "2,3"},
		{"/connections?name=furn", "2"},
		{"/connections?name=SUPPLIER", "1,3"},
		{"/connections?relationship=Manufacturer&code=ACME", "1"},
		{"/connections?relationship=Customer", ""},
		{"/connections?unknown=1", "1,2,3"},
		{"/connections?order[id]=desc", "3,2,1"},
		{"/variants?sku=TABLE", "2"},
		{"/variants?code[]=TABLE&code[]=CHAIR", "1,2"},
		{"/variants?name=oak", "1,2"},
		{"/variants?updatedAt[after]=" + url.QueryEscape(t0), "1,2"},
		{"/purchase_orders?orderNumber=rec-1", "1,2"},
		{"/purchase_orders?referenceNumber=PO-88123", "1,2"},
		{"/purchase_orders?status.code=80", "1,2"},
		{"/purchase_orders?status.code[]=10&status.code[]=20", ""},
		{"/purchase_orders?createdAt[before]=" + url.QueryEscape(t0), "1"},
		{"/purchase_orders?createdAt[strictly_before]=" + url.QueryEscape(t0), ""},
		{"/purchase_orders?createdAt[after]=" + t1 + ":00", "2"}, // '+' unescaped reads as a space; +00:00:00 variant
		{"/purchase_orders?createdAt[strictly_after]=" + url.QueryEscape(t1), ""},
		{"/purchase_orders?receivedAt[after]=" + url.QueryEscape(t1), "1,2"},
		{"/purchase_orders?order[createdAt]=desc", "2,1"},
		{"/sales_orders?orderNumber=SO", "1,2,3"},
		{"/sales_orders?externalOrderNumber=WEB-SO-2", "2"},
		{"/sales_orders?status.code=80", "1,2"},
		{"/sales_orders?fulfillmentStatus.code=80", "1,2"},
		{"/sales_orders?status.code[]=20&status.code[]=10", "3"},
		{"/sales_orders?receivedAt[after]=" + url.QueryEscape(t1), "1,2"},
		{"/stocks?variant.id=2", "2"},
		{"/stocks?variant.id[]=/api/variants/1&variant.id[]=2", "1,2"},
		{"/stocks?variant.sku=CHAIR", "1"},
	}
	checkIDs(t, c, tests)
}

func TestFiltersB(t *testing.T) {
	c := start(t, edB())
	c.post("/connections", connectionB("C1"))
	c.post("/variants", variantB("V1"))
	c.post("/variants", variantB("V2"))
	c.mustDo(201, "POST", "/api/variant_packagings", map[string]any{"variant": "/api/variants/1", "code": "INNER", "ean": "4006381333931"})
	c.mustDo(201, "POST", "/api/variant_packagings", map[string]any{"variant": 2, "code": "INNER"})
	c.post("/sales_orders", soB("S1", 1, 1))
	body := soB("S2", 2, 1)
	delete(body, "carrier")
	delete(body, "carrierService")
	c.post("/sales_orders", body)
	c.tick(4)
	tests := []idCase{
		{"/variant_packagings?variant=/api/variants/2", "2"},
		{"/variant_packagings?variant.sku=V1", "1"},
		{"/variant_packagings?variant.name=v2", "2"},
		{"/variant_packagings?code=INNER&ean=4006381333931", "1"},
		{"/variant_packagings?order[createdAt]=desc&order[id]=desc", "2,1"},
		{"/variant_packagings?updatedAt[after]=2026-11-21T08:00:00Z", "1,2"},
		{"/warehouse_clients?warehouse=/api/warehouses/5", "102"},
		{"/warehouse_clients?company.id=42", "101,102,103"},
		{"/warehouse_clients?company=/api/companies/7", ""},
		{"/carriers?mainTransportation.code=ROAD", "3"},
		{"/carriers?code=UPS", "2"},
		{"/carrier_services?carrier=2", "21,22"},
		{"/fulfillments?salesOrder.orderNumber=S2", "2"},
		{"/fulfillments?order.id=1", "1"},
		{"/fulfillments?carrier.id=1&status.code=80&salesOrder=/api/sales_orders/1", "1"},
		{"/fulfillments?fulfilledAt[after]=2026-11-21T00:00:00Z&order[fulfillmentNumber]=desc", "2,1"},
		{"/shipping_units?shippingUnitStatus.code=80", "1,2"},
		{"/shipping_units?salesOrder.orderNumber=S1", "1"},
		{"/shipping_units?shipTo.name=jeanne", "1,2"},
		{"/shipping_units?completedAt[before]=2020-01-01T00:00:00Z", ""},
		{"/shipping_unit_events?shippingUnitStatus.code=80", "5,6"},
		{"/shipping_unit_events?severity=0&shippingUnitStatus.code=10", "1,2"},
		{"/shipping_unit_events?shippingUnit=/api/shipping_units/2", "2,4,6"},
		{"/purchase_orders?status.code[]=75&status.code[]=80", ""},
	}
	checkIDs(t, c, tests)
	if c.sim.Count(VariantPackagings, "V1/INNER") != 1 || c.sim.Count(VariantPackagings, "INNER") != 2 {
		t.Error("Count of packagings")
	}
}

// idCase is a list query and the ids of the documents it answers, in order.
type idCase struct{ path, want string }

// checkIDs runs list queries.
func checkIDs(t *testing.T, c *tc, tests []idCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if got := ids(c.get(tt.path)); got != tt.want {
				t.Errorf("ids %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAltTimestamps(t *testing.T) {
	c := start(t, edA())
	for i := 1; i <= 8; i++ {
		c.post("/connections", supplierA(fmt.Sprint("S", i)))
	}
	r := c.get("/connections")
	alt := 0
	for _, m := range r.members() {
		ts := m["createdAt"].(string)
		if strings.HasSuffix(ts, "+00:00:00") {
			alt++
		} else if !strings.HasSuffix(ts, "+00:00") || len(ts) != 25 {
			t.Errorf("timestamp %q", ts)
		}
	}
	if alt != 1 {
		t.Errorf("%d of 8 timestamps use +00:00:00, want 1", alt)
	}
}

func TestPreloadStocks(t *testing.T) {
	o := edA()
	o.Preload = 3000
	c := start(t, o)
	r := c.get("/stocks?itemsPerPage=10000")
	if r.total() != 3000 || len(r.members()) != 3000 {
		t.Fatalf("total %d members %d", r.total(), len(r.members()))
	}
	if at(r.members()[0], "variant.supplier.code") != "PRE-SUP-0001" {
		t.Errorf("stock: %v", r.members()[0])
	}
}

func BenchmarkStocks100k(b *testing.B) {
	s, err := New(Options{Edition: "B", Preload: 100000})
	if err != nil {
		b.Fatal(err)
	}
	res := s.res[Stocks]
	b.ResetTimer()
	for b.Loop() {
		q, _ := res.parseQuery("itemsPerPage=10000&page=5")
		s.mu.RLock()
		page := s.tables[Stocks].items[(q.page-1)*q.perPage : q.page*q.perPage]
		members := make([]obj, len(page))
		for i, d := range page {
			members[i] = res.render(d)
		}
		_ = appendJSON(nil, s.envelope(res, q, members, len(s.tables[Stocks].items)))
		s.mu.RUnlock()
	}
}
