package portal

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"filebridge/internal/model"
)

// TestDiff compares a file's document with the portal's copy, kind by
// kind: what is compared, by id or by code, case-folded or as numbers, and
// what is not compared (the file's or the response's empty fields, and the
// fields the declarations mark nodiff). Violations are compared in any
// order.
func TestDiff(t *testing.T) {
	at := func(h int, zone string, off int) time.Time {
		return time.Date(2026, 12, 1, h, 0, 0, 0, time.FixedZone(zone, off))
	}
	tests := []struct {
		name      string
		e         model.Edition
		k         model.Kind
		want, got any
		diffs     []string
	}{
		{"B partner: folded country and e-mail, empty sides", model.EditionB, model.KindPartner,
			model.Partner{Code: "S1", Name: "Nordic", CountryCode: "se", Email: "A@B.org", City: "Malmö", Phone: "1"},
			model.Partner{Code: "S2", Name: "Nordic AB", CountryCode: "SE", Email: "a@b.org", City: "Lund"},
			[]string{`name: file has "Nordic", portal has "Nordic AB"`, `city: file has "Malmö", portal has "Lund"`}},
		{"A partner: relationship", model.EditionA, model.KindPartner,
			model.Partner{Code: "S1", Name: " N ", Relationship: "Manufacturer"},
			model.Partner{Code: "S1", Name: "N", Relationship: "Customer"},
			[]string{`relationship: file has "Manufacturer", portal has "Customer"`}},
		{"A item: numbers, supplier by id", model.EditionA, model.KindItem,
			model.Item{SKU: "X", Length: "45", Width: "46", BuyPrice: "9.9", SupplierCode: "S1", SupplierID: 5},
			model.Item{SKU: "X", Length: "45.0", Width: "45", BuyPrice: "9.90", SupplierCode: "S1", SupplierID: 6, EAN: "1"},
			[]string{`width: file has "46", portal has "45"`, `supplierCode: file has "5", portal has "6"`}},
		{"A item: supplier by code without ids", model.EditionA, model.KindItem,
			model.Item{SKU: "X", Name: "a", SupplierCode: "S1"},
			model.Item{SKU: "X", Name: "a", SupplierCode: "S2", SupplierID: 6},
			[]string{`supplierCode: file has "S1", portal has "S2"`}},
		{"B packaging: sku not compared, supplier by code", model.EditionB, model.KindPackaging,
			model.Packaging{SKU: "X", Code: "C", Quantity: 4, NetWeight: "2", SupplierCode: "S1", Level: "PCB"},
			model.Packaging{SKU: "Y", Code: "C", Quantity: 5, NetWeight: "2.00", SupplierCode: "S2"},
			[]string{`quantity: file has "4", portal has "5"`, `supplierCode: file has "S1", portal has "S2"`}},
		{"A inbound: times, attributes, line count", model.EditionA, model.KindInbound,
			model.Inbound{OrderNumber: "R", ReferenceNumber: "P1", WarehouseLocation: 3, DueAt: at(9, "CET", 3600),
				Attributes: map[string]string{"deliveryType": "pallet"}, Lines: []model.InboundLine{{Position: 1, SKU: "A", Quantity: 1}}},
			model.Inbound{OrderNumber: "R", ReferenceNumber: "P2", WarehouseLocation: 4, DueAt: at(8, "UTC", 0),
				Lines: []model.InboundLine{{Position: 1, VariantID: 3, Quantity: 1}, {Position: 2, VariantID: 4, Quantity: 1}}},
			[]string{`referenceNumber: file has "P1", portal has "P2"`, `warehouseLocation: file has "3", portal has "4"`, `lines: file has 1 lines, portal has 2`}},
		{"A inbound: due time and attribute differ", model.EditionA, model.KindInbound,
			model.Inbound{OrderNumber: "R", DueAt: at(9, "UTC", 0), Attributes: map[string]string{"deliveryType": "pallet"}},
			model.Inbound{OrderNumber: "R", DueAt: at(8, "UTC", 0), Attributes: map[string]string{"deliveryType": "box"}},
			[]string{`dueAt: file has "2026-12-01T09:00:00+00:00", portal has "2026-12-01T08:00:00+00:00"`, `attributes.deliveryType: file has "pallet", portal has "box"`}},
		{"B inbound: lines by position, by variant id or sku; expiry and warehouse code not compared", model.EditionB, model.KindInbound,
			model.Inbound{OrderNumber: "P", WarehouseCode: "W1", SupplierCode: "S", SupplierID: 2, Lines: []model.InboundLine{
				{Position: 2, SKU: "B", VariantID: 8, Quantity: 5, LotNumber: "L1"},
				{Position: 1, SKU: "A", Quantity: 1, OwnerCode: "O", ExpiryDate: at(0, "UTC", 0)},
			}},
			model.Inbound{OrderNumber: "P", WarehouseCode: "W2", SupplierCode: "T", SupplierID: 2, Lines: []model.InboundLine{
				{Position: 1, SKU: "Z", Quantity: 1, OwnerCode: "P"},
				{Position: 2, SKU: "B", VariantID: 9, Quantity: 6, LotNumber: "L1"},
			}},
			[]string{`sku: line 2: file has "8", portal has "9"`, `quantity: line 2: file has "5", portal has "6"`,
				`sku: line 1: file has "A", portal has "Z"`, `ownerCode: line 1: file has "O", portal has "P"`}},
		{"A outbound: the consignee's compared fields", model.EditionA, model.KindOutbound,
			model.Outbound{OrderNumber: "O", ExternalOrderNumber: "W1", DeliveryMode: "ECO", WarehouseLocation: 3,
				ShipTo: &model.Address{Name: "J", LastName: "M", City: "Lyon", CountryCode: "fr", Phone: "1", Email: "a@b"},
				Lines:  []model.OutboundLine{{SKU: "A", Quantity: 1, ReceptionOrderNumber: "R1"}}},
			model.Outbound{OrderNumber: "O", ExternalOrderNumber: "W2", DeliveryMode: "ECO", WarehouseLocation: 3,
				ShipTo: &model.Address{Name: "J", LastName: "N", City: "Lyon", CountryCode: "FR", Phone: "2", Email: "c@d"},
				Lines:  []model.OutboundLine{{Position: 1, SKU: "A", Quantity: 2, ReceptionOrderNumber: "R2"}}},
			[]string{`externalOrderNumber: file has "W1", portal has "W2"`, `shipTo.lastName: file has "M", portal has "N"`, `quantity: line 1: file has "1", portal has "2"`}},
		{"A outbound: no consignee in the response", model.EditionA, model.KindOutbound,
			model.Outbound{OrderNumber: "O", ShipTo: &model.Address{Name: "J"}},
			model.Outbound{OrderNumber: "O"},
			nil},
		{"B outbound: references by id or code", model.EditionB, model.KindOutbound,
			model.Outbound{OrderNumber: "O", WarehouseCode: "W1", ShipToCode: "C1", ShipToID: 9, BillingToCode: "B1",
				CarrierCode: "DHL", CarrierID: 7, CarrierServiceCode: "EXP", DeliveryTimeSlotBefore: "17:00",
				PlannedDeliveryDate: time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)},
			model.Outbound{OrderNumber: "O", WarehouseCode: "W2", ShipToCode: "C1", ShipToID: 10, BillingToCode: "B2",
				CarrierCode: "UPS", CarrierID: 7, CarrierServiceCode: "STD", CarrierServiceID: 4, DeliveryTimeSlotBefore: "18:00",
				PlannedDeliveryDate: time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)},
			[]string{`shipToCode: file has "9", portal has "10"`, `billingToCode: file has "B1", portal has "B2"`,
				`carrierServiceCode: file has "EXP", portal has "STD"`, `plannedDeliveryDate: file has "2026-12-03", portal has "2026-12-04"`}},
		{"B outbound: an embedded consignee's code is not compared", model.EditionB, model.KindOutbound,
			model.Outbound{OrderNumber: "O", ShipToCode: "C1", ShipTo: &model.Address{Name: "J", Zipcode: "1", Phone: "1", State: "X"}},
			model.Outbound{OrderNumber: "O", ShipToCode: "C2", ShipToID: 4, ShipTo: &model.Address{Name: "J", Zipcode: "2", Phone: "2", State: "Y"}},
			[]string{`shipTo.zipcode: file has "1", portal has "2"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, v := range diffDoc(tt.e, tt.k, tt.want, tt.got) {
				got = append(got, fmt.Sprintf("%s: %s", v.Field, v.Message))
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tt.diffs))
			if !slices.Equal(got, want) {
				t.Errorf("got\n%q\nwant\n%q", got, want)
			}
		})
	}
}
