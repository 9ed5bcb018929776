package portal_test

// Tests of the client against the simulator with the open points of the
// API documents read the other way (portalsim.Choices).

import (
	"fmt"
	"testing"

	"filebridge/internal/model"
	"filebridge/internal/portal"
	"filebridge/internal/portalsim"
)

// startDocumented starts the simulator of edition e on the documented
// profile as set changes it, its master data seeded.
func startDocumented(t *testing.T, e model.Edition, seed int64, set func(*portalsim.Choices), mod ...func(*portal.Config)) *simPortal {
	t.Helper()
	ch, err := portalsim.Profile("documented")
	if err != nil {
		t.Fatal(err)
	}
	set(&ch)
	sp := startSim(t, portalsim.Options{Edition: portalsim.Edition(e), Seed: seed, Choices: &ch}, mod...)
	seedMaster(t, sp)
	return sp
}

// TestListMovingWhilePaged: on a portal that orders lists by updatedAt and
// updates a document during every page read (the simulator's moving-pages
// switch), 12 received receptions read 3 per page are each listed once: a
// pass that met a document twice is read again, and what it skipped is
// found there. Before, 3 of the 12 were never listed.
func TestListMovingWhilePaged(t *testing.T) {
	for _, e := range model.Editions {
		t.Run(string(e), func(t *testing.T) {
			sp := startDocumented(t, e, 3, func(ch *portalsim.Choices) { ch.ListOrder, ch.MovingPages = "updatedAt", true }, func(c *portal.Config) { c.ItemsPerPage = 100 })
			ctx := t.Context()
			for i := 1; i <= 12; i++ {
				if _, err := sp.c.CreateInbound(ctx, inbound(e, fmt.Sprintf("REC-%02d", i))); err != nil {
					t.Fatal(err)
				}
			}
			for range 4 {
				sp.sim.Tick()
			}
			codes := []int{model.StatusReceived}
			if e == model.EditionB {
				codes = []int{model.StatusPartial, model.StatusReceived}
			}
			c := sp.client(t) // 3 per page
			for run := 1; run <= 3; run++ {
				got := map[string]int{}
				for _, in := range collect(t, c.Inbounds(ctx, portal.InboundFilter{StatusCodes: codes})) {
					got[in.OrderNumber]++
				}
				for i := 1; i <= 12; i++ {
					if n := got[fmt.Sprintf("REC-%02d", i)]; n != 1 {
						t.Errorf("run %d: REC-%02d listed %d times, want once (listed: %v)", run, i, n, got)
					}
				}
			}
			if n := sp.sim.UndocumentedRequests(); n != 0 {
				t.Errorf("%d requests outside the documents: %+v", n, sp.sim.Stats().Undocumented)
			}
		})
	}
}

// TestUndocumentedOrderType: a reception whose orderType is STANDARD (the
// documents' samples use it, their enum excludes it) is created on a
// portal that accepts it with it, and on one that refuses it without it,
// once, counted as created.
func TestUndocumentedOrderType(t *testing.T) {
	for _, accepts := range []bool{true, false} {
		t.Run(fmt.Sprintf("accepted=%v", accepts), func(t *testing.T) {
			sp := startDocumented(t, model.EditionA, 0, func(ch *portalsim.Choices) { ch.StandardOrderType = accepts })
			ctx := t.Context()
			in := inbound(model.EditionA, "REC-STD")
			in.OrderType = "STANDARD"
			out, err := sp.c.CreateInbound(ctx, in)
			if err != nil || out.ID == 0 || out.Existed {
				t.Fatalf("create: %+v %v", out, err)
			}
			got := collect(t, sp.c.Inbounds(ctx, portal.InboundFilter{OrderNumber: "REC-STD"}))
			want := map[bool]string{true: "STANDARD", false: ""}[accepts]
			if len(got) != 1 || got[0].OrderType != want {
				t.Errorf("the portal holds %+v, want one reception with orderType %q", got, want)
			}
			if st := sp.sim.Stats(); st.RepeatedCreates != 0 || sp.sim.Count(portalsim.PurchaseOrders, "REC-STD") != 1 {
				t.Errorf("repeated creates %d, receptions REC-STD %d", st.RepeatedCreates, sp.sim.Count(portalsim.PurchaseOrders, "REC-STD"))
			}
		})
	}
}

// TestCreateAnswersWithoutID: on a portal whose create answers carry no id
// for receptions and orders (their field tables list none), each document
// is created once, counted as created, with the id its list shows.
func TestCreateAnswersWithoutID(t *testing.T) {
	for _, e := range model.Editions {
		t.Run(string(e), func(t *testing.T) {
			sp := startDocumented(t, e, 0, func(ch *portalsim.Choices) { ch.CreateIDs = false })
			ctx := t.Context()
			in, err := sp.c.CreateInbound(ctx, inbound(e, "REC-1"))
			if err != nil || in.ID == 0 || in.Existed {
				t.Errorf("reception: %+v %v, want created with its id", in, err)
			}
			out, err := sp.c.CreateOutbound(ctx, outbound(e, "SO-1"))
			if err != nil || out.ID == 0 || out.Existed {
				t.Errorf("order: %+v %v, want created with its id", out, err)
			}
			if n := sp.sim.RepeatedCreates(); n != 0 {
				t.Errorf("%d repeated creates", n)
			}
		})
	}
}

// TestWarehouseLocationReadings: whether a portal reads an Edition B
// order's warehouseLocation as the warehouse's id or as the warehouse
// client's (the documents do not say), every purchase and sales order is
// created once, at the warehouse its file names, never at another
// warehouse whose client has the same id.
func TestWarehouseLocationReadings(t *testing.T) {
	for _, reading := range []string{"warehouse", "warehouse-client"} {
		t.Run(reading, func(t *testing.T) {
			sp := startDocumented(t, model.EditionB, 0, func(ch *portalsim.Choices) { ch.WarehouseLocation = reading })
			ctx := t.Context()
			// The last two give the warehouse's id itself, as a file may.
			codes := []string{"WH-LYON", "WH-HAMBURG", "WH-MILANO", "WH-LYON", "WH-HAMBURG", "WH-LYON"}
			ids := map[string]int64{"WH-LYON": 3, "WH-HAMBURG": 5, "WH-MILANO": 8}
			for i, code := range codes {
				in := inbound(model.EditionB, fmt.Sprintf("PO-%d", i))
				o := outbound(model.EditionB, fmt.Sprintf("SO-%d", i))
				in.WarehouseCode, o.WarehouseCode = code, code
				if i >= 4 {
					in.WarehouseCode, o.WarehouseCode = "", ""
					in.WarehouseLocation, o.WarehouseLocation = ids[code], ids[code]
				}
				if out, err := sp.c.CreateInbound(ctx, in); err != nil || out.Existed {
					t.Fatalf("purchase order at %s: %+v %v", code, out, err)
				}
				if out, err := sp.c.CreateOutbound(ctx, o); err != nil || out.Existed {
					t.Fatalf("sales order at %s: %+v %v", code, out, err)
				}
			}
			for i, code := range codes {
				ins := collect(t, sp.c.Inbounds(ctx, portal.InboundFilter{OrderNumber: fmt.Sprintf("PO-%d", i)}))
				if len(ins) != 1 || ins[0].WarehouseCode != code {
					t.Errorf("PO-%d: the portal holds %+v, want one at %s", i, ins, code)
				}
				outs := collect(t, sp.c.Outbounds(ctx, portal.OutboundFilter{OrderNumber: fmt.Sprintf("SO-%d", i)}))
				// A sales order shows its warehouse as an id (the warehouse's).
				if want := ids[code]; len(outs) != 1 || outs[0].WarehouseLocation != want {
					t.Errorf("SO-%d: the portal holds %+v, want one at %s (%d)", i, outs, code, want)
				}
			}
			if n := sp.sim.RepeatedCreates(); n != 0 {
				t.Errorf("%d repeated creates", n)
			}
		})
	}
}
