package portalsim

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"testing"
	"time"
)

// checkStocks fails on a negative stock quantity.
func checkStocks(t *testing.T, c *tc) []map[string]any {
	t.Helper()
	stocks := c.get("/stocks?itemsPerPage=10000").members()
	for _, st := range stocks {
		for _, k := range []string{"available", "incoming", "allocated", "locked"} {
			if num(st[k]) < 0 {
				t.Errorf("stock %v: %s = %v", st["id"], k, st[k])
			}
		}
	}
	return stocks
}

func TestTickA(t *testing.T) {
	c := start(t, edA())
	c.post("/connections", supplierA("S1"))
	c.post("/variants", skuA("K1", 1))
	c.post("/purchase_orders", receptionA("R1", 1, 1, 40))
	c.post("/sales_orders", orderA("O1", 1, 2))
	st := checkStocks(t, c)[0]
	if num(st["incoming"]) != 40 || num(st["allocated"]) != 2 || num(st["available"]) != 0 {
		t.Fatalf("stock after creates: %v", st)
	}
	before := c.get("/purchase_orders/1").body["updatedAt"].(string)
	c.tick(1)
	po := c.get("/purchase_orders/1").body
	if num(at(po, "status.code")) != 20 || po["updatedAt"].(string) <= before {
		t.Fatalf("after 1 tick: status %v updatedAt %v (was %v)", at(po, "status.code"), po["updatedAt"], before)
	}
	if got := ids(c.get("/purchase_orders?updatedAt[after]=" + url.QueryEscape(po["updatedAt"].(string)))); got != "1" {
		t.Errorf("updatedAt[after] its own updatedAt (inclusive) = %q", got)
	}
	c.tick(1)
	po = c.get("/purchase_orders/1").body
	if num(at(po, "status.code")) != 80 || po["receivedAt"] == nil || num(at(po, "purchaseOrderLineItems.0.quantityReceived")) != 40 {
		t.Errorf("reception not received: %v", po)
	}
	so := c.get("/sales_orders/1").body
	if num(at(so, "fulfillmentStatus.code")) != 80 || num(at(so, "transportationStatus.code")) != 80 || so["shippedAt"] == nil ||
		at(so, "attributes.marketplaceTrackingNumber") == nil || num(at(so, "salesOrderLineItems.0.quantityShipped")) != 2 {
		t.Errorf("order not shipped: %v", so)
	}
	st = checkStocks(t, c)[0]
	if num(st["incoming"]) != 0 || num(st["allocated"]) != 0 || num(st["available"])+num(st["locked"]) != 40 {
		t.Errorf("stock after receipt and shipment: %v", st)
	}
}

func TestTickB(t *testing.T) {
	c := start(t, edB())
	c.post("/connections", connectionB("C1"))
	const n = 12
	for i := 1; i <= n; i++ {
		v := variantB(fmt.Sprint("V", i))
		if i%2 == 0 {
			delete(v, "length") // measured by the warehouse at reception
		}
		c.post("/variants", v)
		c.post("/purchase_orders", poB(fmt.Sprint("P", i), 1, int64(i), 10+i))
	}
	c.tick(3)
	for i := 1; i <= n; i++ {
		c.post("/sales_orders", soB(fmt.Sprint("S", i), int64(i), 1+i%3))
	}
	c.tick(5)
	partial := 0
	for _, po := range c.get("/purchase_orders?itemsPerPage=100").members() {
		switch num(at(po, "status.code")) {
		case 80:
		case 75:
			partial++
			if num(at(po, "purchaseOrderLineItems.0.quantityReceived")) >= num(at(po, "purchaseOrderLineItems.0.quantity")) {
				t.Errorf("partial reception without a short line: %v", po)
			}
		default:
			t.Errorf("purchase order %v in status %v after 3 ticks", po["orderNumber"], at(po, "status"))
		}
	}
	if partial == 0 {
		t.Error("no partial reception among", n)
	}
	if got := c.get("/purchase_orders?status.code[]=75&status.code[]=80").total(); got != n {
		t.Errorf("receipts = %d", got)
	}
	for _, so := range c.get("/sales_orders?itemsPerPage=100").members() {
		if num(at(so, "fulfillmentStatus.code")) != 80 || num(at(so, "transportationStatus.code")) != 80 || at(so, "shippingUnits.0.shippingUnitStatus.code") == nil {
			t.Errorf("sales order %v: fulfillment %v transport %v", so["orderNumber"], at(so, "fulfillmentStatus"), at(so, "transportationStatus"))
		}
	}
	if c.sim.Len(Fulfillments) != n || c.sim.Len(ShippingUnits) != n || c.sim.Len(ShippingUnitEvents) != 3*n {
		t.Errorf("fulfillments %d units %d events %d", c.sim.Len(Fulfillments), c.sim.Len(ShippingUnits), c.sim.Len(ShippingUnitEvents))
	}
	unfulfillable := 0
	for _, f := range c.get("/fulfillments?itemsPerPage=100").members() {
		unfulfillable += int(num(f["totalQuantityUnfulfillable"]))
		if f["trackingNumber"] == "" || at(f, "carrier.code") == nil {
			t.Errorf("fulfillment %v without tracking or carrier", f["fulfillmentNumber"])
		}
	}
	if unfulfillable == 0 {
		t.Error("no unfulfillable line")
	}
	if got := c.get("/variants?updatedAt[after]=2026-11-21T08:00:01Z").total(); got != n/2 {
		t.Errorf("%d variants measured, want %d", got, n/2)
	}
	for _, st := range checkStocks(t, c) {
		if num(st["incoming"]) != 0 || num(st["allocated"]) != 0 {
			t.Errorf("stock %v after everything moved: %v", at(st, "variant.sku"), st)
		}
	}
}

func TestTickDeterministic(t *testing.T) {
	run := func() string {
		c := start(t, edB())
		c.post("/connections", connectionB("C1"))
		for i := 1; i <= 6; i++ {
			c.post("/variants", variantB(fmt.Sprint("V", i)))
			c.post("/purchase_orders", poB(fmt.Sprint("P", i), 1, int64(i), 5))
			c.post("/sales_orders", soB(fmt.Sprint("S", i), int64(i), 2))
		}
		c.tick(8)
		return string(c.get("/stocks").raw) + string(c.get("/fulfillments").raw) + string(c.get("/stock_movements").raw)
	}
	if run() != run() {
		t.Error("two runs with one seed differ")
	}
}

func TestServeTicksAndStops(t *testing.T) {
	s, err := New(Options{Edition: "B", Tick: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	res, err := http.Get("http://" + ln.Addr().String() + "/_sim/stats")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	for deadline := time.Now().Add(5 * time.Second); s.Stats().Ticks == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the ticker never ticked")
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}
