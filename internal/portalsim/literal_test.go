package portalsim

import (
	"strings"
	"testing"
)

// TestLiteralB checks what the literal mode leaves out or refuses, beside
// the default mode's answer to the same request.
func TestLiteralB(t *testing.T) {
	for _, literal := range []bool{false, true} {
		name := "default"
		if literal {
			name = "literal"
		}
		t.Run(name, func(t *testing.T) {
			opts := edB()
			if literal {
				opts.Choices, opts.Literal = nil, true
			}
			c := start(t, opts)
			c.post("/connections", connectionB("C1"))
			c.post("/variants", variantB("V1"))
			c.post("/purchase_orders", poB("P1", 1, 1, 5))
			c.post("/sales_orders", soB("S1", 1, 1))
			c.post("/sales_orders", soB("S2", 1, 1))
			c.tick(4)

			// Item reads.
			wantItem := 200
			if literal {
				wantItem = 404
			}
			c.mustDo(wantItem, "GET", "/api/variants/1", nil)

			// Paging: a next link on shipping units only.
			for _, path := range []string{"/sales_orders?itemsPerPage=1", "/shipping_units?itemsPerPage=1"} {
				r := c.get(path)
				view, _ := r.body["hydra:view"].(map[string]any)
				_, hasNext := view["hydra:next"]
				wantNext := !literal || strings.HasPrefix(path, "/shipping_units")
				if hasNext != wantNext || r.total() != 2 || len(r.members()) != 1 {
					t.Errorf("%s: next link %v (want %v), total %d, %d members: %s", path, hasNext, wantNext, r.total(), len(r.members()), r.raw)
				}
			}

			// Timestamps where the field tables list none.
			for _, path := range []string{"/purchase_orders", "/sales_orders", "/connections", "/variants", "/stock_movements"} {
				r := c.get(path)
				for _, m := range r.members() {
					_, has := m["updatedAt"]
					_, hasC := m["createdAt"]
					if (has || hasC) == literal {
						t.Errorf("%s: createdAt/updatedAt given: %v, want %v", path, has || hasC, !literal)
					}
				}
			}
			if r := c.get("/fulfillments"); len(r.members()) == 0 || r.members()[0]["createdAt"] == nil {
				t.Errorf("fulfillments lost their createdAt: %s", r.raw)
			}

			// Undocumented filters are ignored: every sales order comes back.
			wantIDs := "1"
			if literal {
				wantIDs = "1,2"
			}
			if got := ids(c.get("/sales_orders?id=1")); got != wantIDs {
				t.Errorf("sales_orders?id=1: %q, want %q", got, wantIDs)
			}
			if got := ids(c.get("/purchase_orders?status.code[]=75&status.code[]=80&updatedAt[after]=2026-11-21T00:00:00Z")); got != "1" {
				t.Errorf("documented filters of purchase orders: %q, want 1", got)
			}

			// A repeated consignee code.
			body := soB("S3", 1, 1)
			body["shipTo"] = map[string]any{"code": "C1", "name": "Nordic C1", "streetAddress": "x", "city": "y", "zipcode": "1", "countryCode": "SE"}
			if literal {
				r := c.mustDo(422, "POST", "/api/sales_orders", body)
				if !strings.Contains(string(r.raw), "shipTo.code") || !strings.Contains(string(r.raw), msgUsed) {
					t.Errorf("repeated consignee: %s", r.raw)
				}
				body["shipTo"] = 1
			}
			c.post("/sales_orders", body)

			// A packaging's supplier: a string id, literally.
			pk := map[string]any{"variant": "/api/variants/1", "code": "INNER", "supplier": "/api/connections/1"}
			wantPk := 201
			if literal {
				wantPk = 422
			}
			c.mustDo(wantPk, "POST", "/api/variant_packagings", pk)
			pk["code"], pk["supplier"] = "OUTER", "1"
			c.mustDo(201, "POST", "/api/variant_packagings", pk)
			if n := c.sim.Count(VariantPackagings, "OUTER"); n != 1 {
				t.Errorf("packagings OUTER: %d", n)
			}
		})
	}
}

// TestVariantDimensionsB: Edition B variant dimensions are numbers
// without a bound (0 is taken: the documents give Edition A's "greater
// than 0" only), listed as 0 when not given unless null-numbers is on.
func TestVariantDimensionsB(t *testing.T) {
	for _, literal := range []bool{false, true} {
		opts := edB()
		if literal {
			opts.Choices, opts.Literal = nil, true
		}
		c := start(t, opts)
		v := variantB("V0")
		v["length"], v["width"], v["height"], v["grossWeight"] = 0, nil, 0, nil
		c.post("/variants", v)
		m := c.get("/variants?sku=V0").members()
		if len(m) != 1 || num(m[0]["length"]) != 0 || (m[0]["width"] == nil) != !literal {
			t.Errorf("literal %v: variant V0 listed as %v", literal, m)
		}
	}
}
