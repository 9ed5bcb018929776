package model

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestBody checks the rules of the request filled from a declaration:
// codes not sent but their ids, defaults, objects left out when empty,
// attributes from a map, a Ref as an id or an embedded document with the
// order's code, timestamps in UTC with "+00:00".
func TestBody(t *testing.T) {
	due := time.Date(2026, 12, 1, 9, 0, 0, 0, time.FixedZone("CET", 3600))
	tests := []struct {
		name string
		e    Edition
		k    Kind
		doc  any
		want string
	}{
		{"supplier: the default relationship", EditionA, KindPartner, Partner{Code: "S", Name: "N"},
			`{"company":7,"code":"S","name":"N","relationship":"Manufacturer"}`},
		{"reception: supplier id, attributes, due time", EditionA, KindInbound,
			Inbound{OrderNumber: "R", SupplierCode: "S", SupplierID: 5, WarehouseLocation: 3, DueAt: due,
				Attributes: map[string]string{"deliveryType": "pallet"},
				Lines:      []InboundLine{{Position: 1, SKU: "X", VariantID: 12, Quantity: 4, Item: &Item{Name: "n"}}}},
			`{"company":7,"orderNumber":"R","warehouseLocation":3,"supplier":5,"attributes":{"deliveryType":"pallet"},"dueAt":"2026-12-01T08:00:00+00:00","purchaseOrderLineItems":[{"position":1,"variant":12,"quantity":4}]}`},
		{"order: empty objects left out, no lines", EditionA, KindOutbound,
			Outbound{OrderNumber: "O", ShipTo: &Address{Name: "J"}},
			`{"company":7,"orderNumber":"O","externalOrderNumber":"","warehouseLocation":0,"shipTo":{"name":"J"},"salesOrderLineItems":[]}`},
		{"sales order: consignee by id", EditionB, KindOutbound,
			Outbound{OrderNumber: "O", ShipToCode: "C", ShipToID: 9, CarrierCode: "DHL", CarrierID: 4},
			`{"company":7,"orderNumber":"O","warehouseLocation":0,"carrier":4,"shipTo":9,"salesOrderLineItems":[]}`},
		{"sales order: embedded consignee with the order's code", EditionB, KindOutbound,
			Outbound{OrderNumber: "O", ShipToCode: "C", ShipTo: &Address{Name: "J & co"}},
			`{"company":7,"orderNumber":"O","warehouseLocation":0,"shipTo":{"company":7,"code":"C","relationship":"Marketplace","name":"J & co"},"salesOrderLineItems":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false) // as the portal client sends
			if err := enc.Encode(Body(tt.e, tt.k, tt.doc, map[string]any{"company": int64(7)})); err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSuffix(b.String(), "\n"); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}
