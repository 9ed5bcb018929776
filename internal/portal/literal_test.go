package portal_test

import (
	"testing"

	"filebridge/internal/model"
	"filebridge/internal/portal"
	"filebridge/internal/portalsim"
)

// TestSimConsigneeReused sends two Edition B sales orders to one embedded
// consignee code: the second refers to the connection the first created,
// so that a portal refusing a repeated code (the literal mode) takes it.
// A packaging's supplier goes as the connection's id in a string.
func TestSimConsigneeReused(t *testing.T) {
	for _, mode := range simModes(model.EditionB) {
		t.Run(mode.name, func(t *testing.T) {
			mode.opts.Seed = 3
			sp := startSim(t, mode.opts)
			seedMaster(t, sp)
			ctx := t.Context()
			before := sp.sim.Len(portalsim.Connections)
			for _, number := range []string{"SO-A", "SO-B"} {
				o := outbound(model.EditionB, number)
				o.ShipTo.Code = "CONS-1"
				if out, err := sp.c.CreateOutbound(ctx, o); err != nil || out.ID == 0 {
					t.Fatalf("%s: %+v %v", number, out, err)
				}
			}
			// A fresh client (nothing cached) and a consignee given by code.
			o := outbound(model.EditionB, "SO-C")
			o.ShipTo.Code = ""
			o.ShipToCode = "CONS-1"
			if _, err := sp.client(t).CreateOutbound(ctx, o); err != nil {
				t.Fatalf("SO-C: %v", err)
			}
			if n := sp.sim.Count(portalsim.Connections, "CONS-1"); n != 1 || sp.sim.Len(portalsim.Connections) != before+1 {
				t.Errorf("consignee CONS-1 held %d times, %d connections (was %d)", n, sp.sim.Len(portalsim.Connections), before)
			}
			outs := collect(t, sp.c.Outbounds(ctx, portal.OutboundFilter{}))
			if len(outs) != 3 || outs[0].ShipToID == 0 || outs[0].ShipToID != outs[1].ShipToID || outs[1].ShipToID != outs[2].ShipToID {
				t.Errorf("orders' consignees: %+v", outs)
			}
			if _, err := sp.c.CreatePackaging(ctx, model.Packaging{SKU: "SKU-1", Code: "INNER", Quantity: 2, SupplierCode: "SUP-1"}); err != nil {
				t.Fatalf("packaging: %v", err)
			}
			pk := collect(t, sp.c.Packagings(ctx, portal.PackagingFilter{VariantSKU: "SKU-1"}))
			if len(pk) != 1 || pk[0].SupplierCode != "SUP-1" {
				t.Errorf("packaging supplier: %+v", pk)
			}
		})
	}
}
