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

// TestListMovingWhilePaged: on a portal that orders lists by updatedAt and
// updates a document during every page read (the simulator's moving-pages
// switch), 12 received receptions read 3 per page are each listed once: a
// pass that met a document twice is read again, and what it skipped is
// found there. Before, 3 of the 12 were never listed.
func TestListMovingWhilePaged(t *testing.T) {
	for _, e := range model.Editions {
		t.Run(string(e), func(t *testing.T) {
			ch, err := portalsim.Profile("documented")
			if err != nil {
				t.Fatal(err)
			}
			ch.ListOrder, ch.MovingPages = "updatedAt", true
			sp := startSim(t, portalsim.Options{Edition: portalsim.Edition(e), Seed: 3, Choices: &ch}, func(c *portal.Config) { c.ItemsPerPage = 100 })
			seedMaster(t, sp)
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
			ch, err := portalsim.Profile("documented")
			if err != nil {
				t.Fatal(err)
			}
			ch.StandardOrderType = accepts
			sp := startSim(t, portalsim.Options{Edition: portalsim.EditionA, Choices: &ch})
			seedMaster(t, sp)
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
			ch, err := portalsim.Profile("documented")
			if err != nil {
				t.Fatal(err)
			}
			ch.CreateIDs = false
			sp := startSim(t, portalsim.Options{Edition: portalsim.Edition(e), Choices: &ch})
			seedMaster(t, sp)
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
