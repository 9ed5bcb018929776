package portalsim

import (
	"fmt"
	"strings"
	"testing"
)

func TestAuth(t *testing.T) {
	c := start(t, edA())
	for _, tt := range []struct{ name, token string }{{"none", ""}, {"wrong", "nope"}} {
		t.Run(tt.name, func(t *testing.T) {
			c.token = tt.token
			r := c.do("GET", "/api/connections", nil)
			if r.status != 401 || r.body["@type"] != "hydra:Error" || r.body["hydra:description"] == "" {
				t.Fatalf("status %d body %s, want 401 hydra:Error", r.status, r.raw)
			}
			if ct := r.header.Get("Content-Type"); ct != contentType {
				t.Errorf("Content-Type %q", ct)
			}
			c.mustDo(200, "GET", "/_sim/stats", nil)
		})
	}
}

func TestCreateGoldenA(t *testing.T) {
	c := start(t, edA())
	golden(t, "a_supplier", c.post("/connections", supplierA("SUP-001")).raw)
	golden(t, "a_sku", c.post("/variants", skuA("CHAIR-OAK-01", 1)).raw)
	golden(t, "a_reception", c.post("/purchase_orders", receptionA("REC-1", 1, 1, 40)).raw)
	golden(t, "a_order", c.post("/sales_orders", orderA("SO-1", 1, 2)).raw)
	c.tick(2)
	golden(t, "a_order_shipped", c.get("/sales_orders/1").raw)
	golden(t, "a_reception_received", c.get("/purchase_orders/1").raw)
	golden(t, "a_stocks", c.get("/stocks").raw)
}

func TestCreateGoldenB(t *testing.T) {
	c := start(t, edB())
	golden(t, "b_connection", c.post("/connections", connectionB("SUP-001")).raw)
	golden(t, "b_variant", c.post("/variants", variantB("CHAIR-OAK-01")).raw)
	pk := c.mustDo(201, "POST", "/api/variant_packagings", map[string]any{"variant": "/api/variants/1", "code": "OUTER_CARTON",
		"ean": "14006381333938", "quantity": 4, "length": 60, "width": 55, "height": 95, "grossWeight": 28, "netWeight": 26,
		"level": "PCB", "type": "BOX", "supplier": "1"})
	golden(t, "b_packaging", pk.raw)
	golden(t, "b_purchase_order", c.post("/purchase_orders", poB("PO-1", 1, 1, 40)).raw)
	golden(t, "b_sales_order", c.post("/sales_orders", soB("SO-1", 1, 2)).raw)
	c.tick(4)
	golden(t, "b_fulfillments", c.get("/fulfillments").raw)
	golden(t, "b_shipping_unit_events", c.get("/shipping_unit_events?itemsPerPage=5").raw)
	golden(t, "b_warehouse_clients", c.get("/warehouse_clients").raw)
	golden(t, "b_carrier_services", c.get("/carrier_services?carrier=/api/carriers/1").raw)
	golden(t, "b_stock_movements", c.get("/stock_movements").raw)
}

func TestItemAndRoutes(t *testing.T) {
	c := start(t, edA())
	c.post("/connections", supplierA("S1"))
	if r := c.get("/connections/1"); r.body["code"] != "S1" || r.body["@id"] != "/api/connections/1" {
		t.Errorf("item: %s", r.raw)
	}
	c.mustDo(404, "GET", "/api/connections/99", nil)
	c.mustDo(404, "GET", "/api/connections/x", nil)
	c.mustDo(404, "GET", "/api/fulfillments", nil) // not in edition A
	c.mustDo(405, "POST", "/api/stocks", map[string]any{})
	c.mustDo(400, "POST", "/api/connections", `{"company": 42,`)
	c.mustDo(400, "POST", "/api/connections", `[1,2]`)
}

// violation finds the message of a property path in a 422 body.
func violationAt(r resp, path string) (string, bool) {
	list, _ := r.body["violations"].([]any)
	for _, v := range list {
		m := v.(map[string]any)
		if m["propertyPath"] == path {
			return m["message"].(string), true
		}
	}
	return "", false
}

func TestViolations(t *testing.T) {
	with := func(m map[string]any, kv ...any) map[string]any {
		for i := 0; i < len(kv); i += 2 {
			path := strings.Split(kv[i].(string), ".")
			cur := m
			for _, p := range path[:len(path)-1] {
				if p == "0" {
					cur = cur["__list"].(map[string]any)
					continue
				}
				if l, ok := cur[p].([]any); ok {
					cur = map[string]any{"__list": l[0]}
					continue
				}
				cur = cur[p].(map[string]any)
			}
			if kv[i+1] == nil {
				delete(cur, path[len(path)-1])
			} else {
				cur[path[len(path)-1]] = kv[i+1]
			}
		}
		return m
	}
	type tcase struct {
		name, res string
		body      map[string]any
		path, msg string
	}
	// One row per rule of the API documents (the documented profile).
	a := []tcase{
		{"required", "/connections", with(supplierA("S9"), "name", nil), "name", "should not be blank"},
		{"supplier relationship", "/connections", with(supplierA("S9"), "relationship", "Customer"), "relationship", "not a valid choice"},
		{"company", "/connections", with(supplierA("S9"), "company", 7), "company", "not valid"},
		{"company IRI", "/connections", with(supplierA("S9"), "company", "/api/companies/42"), "company", "type int"},
		{"duplicate supplier", "/connections", supplierA("S1"), "code", "already used"},
		{"sku too long", "/variants", skuA("ABCDEFGHIJKLMNO", 1), "sku", "14 characters or less"},
		{"sku required", "/variants", with(skuA("X1", 1), "sku", ""), "sku", "blank"},
		{"ean required", "/variants", with(skuA("X1", 1), "ean", nil), "ean", "blank"},
		{"ean check digit", "/variants", with(skuA("X1", 1), "ean", "4006381333932"), "ean", "control digit"},
		{"greater than 0", "/variants", with(skuA("X1", 1), "length", 0), "length", "greater than 0"},
		{"buyPrice required", "/variants", with(skuA("X1", 1), "buyPrice", nil), "buyPrice", "blank"},
		{"number type", "/variants", with(skuA("X1", 1), "width", "wide"), "width", "of type"},
		{"number as a string", "/variants", with(skuA("X1", 1), "width", "50"), "width", "of type"},
		{"eanBox when quantityPerBox > 1", "/variants", with(skuA("X1", 1), "eanBox", nil), "eanBox", "quantityPerBox"},
		{"unknown supplier", "/variants", skuA("X1", 99), "supplier", "This value is not valid."},
		{"supplier as a numeric string", "/variants", with(skuA("X1", 1), "supplier", "1"), "supplier", "type int"},
		{"supplier as an IRI", "/variants", with(skuA("X1", 1), "supplier", "/api/connections/1"), "supplier", "type int"},
		{"duplicate sku", "/variants", skuA("K1", 1), "sku", "already used"},
		{"reception number too long", "/purchase_orders", receptionA("REC-123456789012", 1, 1, 5), "orderNumber", "13 characters"},
		{"order type", "/purchase_orders", with(receptionA("R9", 1, 1, 5), "orderType", "BOAT"), "orderType", "valid choice"},
		{"warehouse", "/purchase_orders", with(receptionA("R9", 1, 1, 5), "warehouseLocation", 4), "warehouseLocation", "not valid"},
		{"warehouse as a string", "/purchase_orders", with(receptionA("R9", 1, 1, 5), "warehouseLocation", "3"), "warehouseLocation", "type int"},
		{"unknown variant", "/purchase_orders", receptionA("R9", 1, 77, 5), "purchaseOrderLineItems[0].variant", "not valid"},
		{"variant as an IRI", "/purchase_orders", with(receptionA("R9", 1, 1, 5), "purchaseOrderLineItems.0.variant", "/api/variants/1"), "purchaseOrderLineItems[0].variant", "type int"},
		{"integer quantity", "/purchase_orders", with(receptionA("R9", 1, 1, 5), "purchaseOrderLineItems.0.quantity", 2.5), "purchaseOrderLineItems[0].quantity", "type int"},
		{"line quantity required", "/purchase_orders", with(receptionA("R9", 1, 1, 5), "purchaseOrderLineItems.0.quantity", nil), "purchaseOrderLineItems[0].quantity", "blank"},
		{"dueAt", "/purchase_orders", with(receptionA("R9", 1, 1, 5), "dueAt", "tomorrow"), "dueAt", "datetime"},
		{"dueAt required", "/purchase_orders", with(receptionA("R9", 1, 1, 5), "dueAt", nil), "dueAt", "blank"},
		{"dueAt without offset", "/purchase_orders", with(receptionA("R9", 1, 1, 5), "dueAt", "2026-12-01T08:00:00"), "dueAt", "+00:00"},
		{"dueAt in Z", "/purchase_orders", with(receptionA("R9", 1, 1, 5), "dueAt", "2026-12-01T08:00:00Z"), "dueAt", "+00:00"},
		{"dueAt a date", "/purchase_orders", with(receptionA("R9", 1, 1, 5), "dueAt", "2026-12-01"), "dueAt", "+00:00"},
		{"attributes an object", "/purchase_orders", with(receptionA("R9", 1, 1, 5), "attributes", "pallet"), "attributes", "type object"},
		{"no lines", "/purchase_orders", with(receptionA("R9", 1, 1, 5), "purchaseOrderLineItems", []any{}), "purchaseOrderLineItems", "1 element"},
		{"duplicate reception", "/purchase_orders", receptionA("R1", 1, 1, 5), "orderNumber", "already used"},
		{"order number too long", "/sales_orders", orderA("O-3456789012345678", 1, 1), "orderNumber", "17 characters"},
		{"delivery mode", "/sales_orders", with(orderA("O9", 1, 1), "deliveryMode", "FAST"), "deliveryMode", "valid choice"},
		{"shipTo required", "/sales_orders", with(orderA("O9", 1, 1), "shipTo", nil), "shipTo", "blank"},
		{"shipTo a string field", "/sales_orders", with(orderA("O9", 1, 1), "shipTo.city", 69), "shipTo.city", "type string"},
		{"external number", "/sales_orders", with(orderA("O9", 1, 1), "externalOrderNumber", nil), "externalOrderNumber", "blank"},
		{"service type", "/sales_orders", with(orderA("O9", 1, 1), "serviceLineItems.0.serviceType", nil), "serviceLineItems[0].serviceType", "blank"},
		{"duplicate order", "/sales_orders", orderA("O1", 1, 1), "orderNumber", "already used"},
	}
	b := []tcase{
		{"connection name too long", "/connections", with(connectionB("C9"), "name", strings.Repeat("n", 31)), "name", "30 characters"},
		{"connection code too long", "/connections", with(connectionB("C9"), "code", strings.Repeat("c", 15)), "code", "14 characters"},
		{"connection relationship", "/connections", with(connectionB("C9"), "relationship", "Forwarder"), "relationship", "valid choice"},
		{"connection country", "/connections", with(connectionB("C9"), "countryCode", "XX"), "countryCode", "country"},
		{"connection country name", "/connections", with(connectionB("C9"), "countryCode", "France"), "countryCode", "country"},
		{"connection email", "/connections", with(connectionB("C9"), "email", "nope"), "email", "email"},
		{"connection zipcode a string", "/connections", with(connectionB("C9"), "zipcode", 21120), "zipcode", "type string"},
		{"duplicate connection", "/connections", connectionB("C1"), "code", "already used"},
		{"variant sku too long", "/variants", variantB(strings.Repeat("s", 18)), "sku", "17 characters"},
		{"variant ean", "/variants", with(variantB("V9"), "ean", nil), "ean", "blank"},
		{"duplicate variant", "/variants", variantB("V1"), "sku", "already used"},
		{"packaging level", "/variant_packagings", map[string]any{"variant": "/api/variants/1", "code": "BOX2", "level": "XXL"}, "level", "valid choice"},
		{"packaging variant", "/variant_packagings", map[string]any{"variant": "/api/variants/9", "code": "BOX2"}, "variant", "not valid"},
		{"packaging variant as an integer", "/variant_packagings", map[string]any{"variant": 1, "code": "BOX2"}, "variant", "IRI"},
		{"packaging code", "/variant_packagings", map[string]any{"variant": "/api/variants/1"}, "code", "blank"},
		{"packaging quantity an integer", "/variant_packagings", map[string]any{"variant": "/api/variants/1", "code": "BOX2", "quantity": 2.5}, "quantity", "type int"},
		{"packaging supplier as an integer", "/variant_packagings", map[string]any{"variant": "/api/variants/1", "code": "BOX2", "supplier": 1}, "supplier", "as a string"},
		{"packaging supplier as an IRI", "/variant_packagings", map[string]any{"variant": "/api/variants/1", "code": "BOX2", "supplier": "/api/connections/1"}, "supplier", "as a string"},
		{"duplicate packaging", "/variant_packagings", map[string]any{"variant": "/api/variants/1", "code": "BOX"}, "code", "already used"},
		{"po supplier", "/purchase_orders", poB("P9", 99, 1, 5), "supplier", "not valid"},
		{"po number too long", "/purchase_orders", poB(strings.Repeat("p", 28), 1, 1, 5), "orderNumber", "27 characters"},
		{"po expiry date offset", "/purchase_orders", with(poB("P9", 1, 1, 5), "purchaseOrderLineItems.0.expiryDate", "2027-06-30"), "purchaseOrderLineItems[0].expiryDate", "+00:00"},
		{"duplicate po", "/purchase_orders", poB("P1", 1, 1, 5), "orderNumber", "already used"},
		{"so number too long", "/sales_orders", soB(strings.Repeat("s", 18), 1, 1), "orderNumber", "17 characters"},
		{"so carrier", "/sales_orders", with(soB("S9", 1, 1), "carrier", 9, "carrierService", nil), "carrier", "not valid"},
		{"so carrier as an IRI", "/sales_orders", with(soB("S9", 1, 1), "carrier", "/api/carriers/1", "carrierService", nil), "carrier", "type int"},
		{"so service of another carrier", "/sales_orders", with(soB("S9", 1, 1), "carrierService", 21), "carrierService", "another carrier"},
		{"so shipTo connection", "/sales_orders", with(soB("S9", 1, 1), "shipTo", 99), "shipTo", "not valid"},
		{"so embedded shipTo name", "/sales_orders", with(soB("S9", 1, 1), "shipTo.name", nil), "shipTo.name", "blank"},
		{"so date", "/sales_orders", with(soB("S9", 1, 1), "plannedDeliveryDate", "soon"), "plannedDeliveryDate", "date"},
		{"so date with a time", "/sales_orders", with(soB("S9", 1, 1), "plannedDeliveryDate", "2026-12-03T00:00:00+00:00"), "plannedDeliveryDate", "date"},
		{"so time", "/sales_orders", with(soB("S9", 1, 1), "deliveryTimeSlotBefore", "25:99"), "deliveryTimeSlotBefore", "time"},
		{"duplicate so", "/sales_orders", soB("S1", 1, 1), "orderNumber", "already used"},
	}
	run := func(t *testing.T, c *tc, cases []tcase) {
		for _, tt := range cases {
			t.Run(tt.name, func(t *testing.T) {
				before := c.sim.Len(Resource(strings.TrimPrefix(tt.res, "/")))
				r := c.mustDo(422, "POST", "/api"+tt.res, tt.body)
				msg, ok := violationAt(r, tt.path)
				if !ok || !strings.Contains(msg, tt.msg) {
					t.Fatalf("violation at %s = %q (found %v), want it to contain %q: %s", tt.path, msg, ok, tt.msg, r.raw)
				}
				if r.body["@type"] != "ConstraintViolationList" || !strings.Contains(r.body["hydra:description"].(string), tt.path+": ") {
					t.Errorf("envelope: %s", r.raw)
				}
				if after := c.sim.Len(Resource(strings.TrimPrefix(tt.res, "/"))); after != before {
					t.Errorf("a rejected create stored a document (%d -> %d)", before, after)
				}
			})
		}
	}
	t.Run("A", func(t *testing.T) {
		c := start(t, documented(edA()))
		c.post("/connections", supplierA("S1"))
		c.post("/variants", skuA("K1", 1))
		c.post("/purchase_orders", receptionA("R1", 1, 1, 5))
		c.post("/sales_orders", orderA("O1", 1, 1))
		run(t, c, a)
	})
	t.Run("B", func(t *testing.T) {
		c := start(t, documented(edB()))
		c.post("/connections", connectionB("C1"))
		c.post("/variants", variantB("V1"))
		c.mustDo(201, "POST", "/api/variant_packagings", map[string]any{"variant": "/api/variants/1", "code": "BOX"})
		c.post("/purchase_orders", poB("P1", 1, 1, 5))
		c.post("/sales_orders", soB("S1", 1, 1))
		run(t, c, b)
	})
}

func TestEmbeddedConnectionsB(t *testing.T) {
	c := start(t, edB())
	c.post("/connections", connectionB("C1"))
	c.post("/variants", variantB("V1"))
	// An embedded consignee is created; one with an existing code is that connection.
	c.post("/sales_orders", soB("S1", 1, 1))
	if n := c.sim.Len(Connections); n != 2 {
		t.Fatalf("connections = %d, want 2", n)
	}
	body := soB("S2", 1, 1)
	body["shipTo"] = map[string]any{"code": "C1", "name": "Nordic C1", "streetAddress": "x", "city": "y", "zipcode": "1", "countryCode": "SE"}
	body["billingTo"] = "/api/connections/1"
	r := c.post("/sales_orders", body)
	if at(r.body, "shipTo.id") != nil && num(at(r.body, "shipTo.id")) != 1 || num(at(r.body, "billingTo.id")) != 1 {
		t.Errorf("shipTo/billingTo: %s", r.raw)
	}
	if n := c.sim.Len(Connections); n != 2 {
		t.Errorf("connections = %d, want 2", n)
	}
	// A code may be left to the portal's counters.
	r = c.post("/connections", map[string]any{"company": 42, "name": "No code", "relationship": "Customer"})
	if code, _ := r.body["code"].(string); !strings.HasPrefix(code, "CN") {
		t.Errorf("generated code %q", code)
	}
}

func TestConcurrentCreates(t *testing.T) {
	c := start(t, edA())
	c.post("/connections", supplierA("S1"))
	const n = 32
	statuses := make(chan int, n)
	for i := range n {
		go func() {
			body := skuA("RACE", 1)
			body["name"] = fmt.Sprint("racer ", i)
			statuses <- c.do("POST", "/api/variants", body).status
		}()
	}
	won := 0
	for range n {
		switch st := <-statuses; st {
		case 200:
			won++
		case 422:
		default:
			t.Errorf("status %d", st)
		}
	}
	if won != 1 || c.sim.Count(Variants, "RACE") != 1 {
		t.Fatalf("%d creates won, Count = %d; want exactly one", won, c.sim.Count(Variants, "RACE"))
	}
}
