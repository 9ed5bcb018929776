package portal

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"filebridge/internal/model"
)

func TestParseWireTime(t *testing.T) {
	want := time.Date(2026, 11, 21, 9, 30, 5, 0, time.UTC)
	for _, s := range []string{
		"2026-11-21T09:30:05+00:00", "2026-11-21T09:30:05+00:00:00", "2026-11-21T09:30:05Z",
		"2026-11-21T10:30:05+01:00", "2026-11-21T09:30:05.000+00:00", "2026-11-21T09:30:05", "2026-11-21 09:30:05",
		"2026-11-21T09:30:05+0000",
	} {
		got, err := parseWireTime(s)
		if err != nil || !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("%s: got %v %v", s, got, err)
		}
	}
	if d, err := parseWireTime("2026-11-21"); err != nil || !d.Equal(time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("date: %v %v", d, err)
	}
	if _, err := parseWireTime("21/11/2026"); err == nil {
		t.Error("accepted 21/11/2026")
	}
}

func TestRefForms(t *testing.T) {
	tests := []struct {
		in      string
		id      int64
		sku     string
		wantErr bool
	}{
		{`12`, 12, "", false},
		{`"12"`, 12, "", false},
		{`"/api/variants/12"`, 12, "", false},
		{`{"@id":"/api/variants/12","sku":"S"}`, 12, "S", false},
		{`{"id":"12","sku":"S"}`, 12, "S", false},
		{`null`, 0, "", false},
		{`[1]`, 0, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			r, err := readDoc[model.Stock]([]byte(`{"variant":` + tt.in + `}`))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err %v", err)
			}
			if r.VariantID != tt.id || r.SKU != tt.sku {
				t.Errorf("got %+v", r)
			}
		})
	}
}

// TestDecodeDocuments reads response documents in the tolerant forms the
// portal may send.
func TestDecodeDocuments(t *testing.T) {
	ts := time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)
	tests := []struct {
		name string
		dec  func([]byte) (any, error)
		in   string
		want any
	}{
		{"A order", func(b []byte) (any, error) { return wireTables[model.EditionA].outbounds.one(b) }, `{
			"@id":"/api/sales_orders/5","orderNumber":"SO-1","externalOrderNumber":"W-1","warehouseLocation":3,
			"shipTo":{"name":"J","zipcode":69003,"attributes":{"accessCode":4521,"floor":"3"}},
			"salesOrderLineItems":[{"position":"1","variant":{"@id":"/api/variants/12","sku":"CHAIR"},"quantity":2,"quantityShipped":"2.0"}],
			"fulfillmentStatus":{"code":"80"},"transportationStatus":{"code":80},"shippedAt":"2026-11-21T09:30:00+00:00:00",
			"attributes":{"marketplaceTrackingNumber":"T1","receiptNumber":77}}`,
			model.Outbound{ID: 5, OrderNumber: "SO-1", ExternalOrderNumber: "W-1", WarehouseLocation: 3,
				ShipTo:            &model.Address{Name: "J", Zipcode: "69003", AccessCode: "4521", Floor: "3"},
				Lines:             []model.OutboundLine{{Position: 1, SKU: "CHAIR", VariantID: 12, Quantity: 2, QuantityShipped: 2}},
				FulfillmentStatus: model.Status{Code: 80}, TransportationStatus: model.Status{Code: 80}, ShippedAt: ts,
				Attributes: map[string]string{"marketplaceTrackingNumber": "T1", "receiptNumber": "77"}}},
		{"A SKU", func(b []byte) (any, error) { return wireTables[model.EditionA].items.one(b) }, `{"id":7,"sku":"S","name":"N","quantityPerBox":"4",
			"length":45.0,"grossWeight":"6.50","buyPrice":8.99e1,"supplier":{"id":5,"code":"SUP"}}`,
			model.Item{ID: 7, SKU: "S", Name: "N", QuantityPerBox: "4", Length: "45", GrossWeight: "6.5", BuyPrice: "89.9",
				SupplierID: 5, SupplierCode: "SUP"}},
		{"B purchase order", func(b []byte) (any, error) { return wireTables[model.EditionB].inbounds.one(b) }, `{"id":9,"orderNumber":"PO-1",
			"warehouseLocation":{"id":3,"code":"WH","name":"Lyon"},"supplier":"/api/connections/5",
			"status":{"code":75,"name":"Partially received"},"receivedAt":"2026-11-21T09:30:00Z",
			"purchaseOrderLineItems":[{"position":1,"variant":"/api/variants/12","quantity":10,"quantityReceived":4,"lotNumber":null}]}`,
			model.Inbound{ID: 9, OrderNumber: "PO-1", WarehouseLocation: 3, WarehouseCode: "WH", WarehouseName: "Lyon", SupplierID: 5,
				Status: model.Status{Code: 75, Name: "Partially received"}, ReceivedAt: ts,
				Lines: []model.InboundLine{{Position: 1, VariantID: 12, Quantity: 10, QuantityReceived: 4}}}},
		{"B fulfillment", func(b []byte) (any, error) { return fulfillmentsB.one(b) }, `{"id":3,"fulfillmentNumber":"F-1",
			"fulfilledAt":"2026-11-21T09:30:00+00:00","warehouse":{"id":3,"code":"WH"},"status":{"code":80,"name":"Shipped"},
			"trackingNumber":"TRK","carrier":{"@id":"/api/carriers/7","code":"DHL","name":"DHL Parcel"},
			"salesOrder":{"@id":"/api/sales_orders/5","orderNumber":"SO-1","externalOrderNumber":"W-1"},
			"fulfillmentLineItems":[{"variant":{"sku":"CHAIR"},"salesOrderLineItem":{"position":1,"quantity":3},"quantityFulfilled":2,"lotNumber":"L1","expiryDate":"2027-06-30"}],
			"unfulfillableLineItems":[{"variant":"/api/variants/12","salesOrderLineItem":{"position":1,"quantity":3,"variant":{"sku":"CHAIR"}},"quantityUnfulfillable":1,"reasonCode":{"@id":"/api/reference_codes/4","code":"DAMAGED"},"reasonComment":"box torn"}]}`,
			model.Shipment{ID: 3, FulfillmentNumber: "F-1", OrderNumber: "SO-1", ExternalOrderNumber: "W-1",
				Status: model.Status{Code: 80, Name: "Shipped"}, ShippedAt: ts, TrackingNumber: "TRK", CarrierCode: "DHL",
				CarrierName: "DHL Parcel", WarehouseCode: "WH", Lines: []model.ShipmentLine{
					{Position: 1, SKU: "CHAIR", QuantityOrdered: 3, QuantityShipped: 2, LotNumber: "L1", ExpiryDate: time.Date(2027, 6, 30, 0, 0, 0, 0, time.UTC)},
					{Position: 1, SKU: "CHAIR", QuantityOrdered: 3, QuantityUnfulfillable: 1, ReasonCode: "DAMAGED", ReasonComment: "box torn"},
				}}},
		{"B shipping unit", func(b []byte) (any, error) { return shippingUnitsB.one(b) }, `{"id":4,"shippingUnitNumber":"SU-1",
			"shippingTrackingNumber":"TRK","weight":"2.5","salesOrder":{"orderNumber":"SO-1"},"shippingUnitStatus":{"code":80},
			"shippingUnitEvents":[{"id":8,"occurredAt":"2026-11-21T09:30:00+00:00","message":"Delivered","severity":"1","latitude":45.75,"shippingUnitStatus":{"code":80}}]}`,
			model.ShippingUnit{ID: 4, ShippingUnitNumber: "SU-1", ShippingTrackingNumber: "TRK", OrderNumber: "SO-1",
				Status: model.Status{Code: 80}, Weight: "2.5", Events: []model.TrackingEvent{{ID: 8, ShippingUnitNumber: "SU-1",
					TrackingNumber: "TRK", OrderNumber: "SO-1", Status: model.Status{Code: 80}, OccurredAt: ts, Message: "Delivered",
					Severity: 1, Latitude: "45.75"}}}},
		{"B movement", func(b []byte) (any, error) { return wireTables[model.EditionB].movements.one(b) }, `{"fromPosition":"available","toPosition":null,
			"quantity":"-2","movedAt":"2026-11-21T09:30:00+00:00","variant":{"id":12,"sku":"S","company":"/api/companies/42"},"processed":"true","fromLotNumber":"L"}`,
			model.Movement{SKU: "S", VariantID: 12, FromPosition: "available", FromLotNumber: "L", Quantity: -2, MovedAt: ts, Processed: true}},
		{"B sales order", func(b []byte) (any, error) { return wireTables[model.EditionB].outbounds.one(b) }, `{"id":6,"orderNumber":"SO-2",
			"warehouseLocation":{"@id":"/api/warehouses/3","code":"WH"},"billingTo":"/api/connections/8",
			"shipTo":{"@id":"/api/connections/9","code":"C-9","relationship":"Marketplace","name":"J","zipcode":69003},
			"carrier":null,"requestedCarrier":{"id":7,"code":"DHL"},"carrierService":"/api/carrier_services/2",
			"requestedCarrierService":{"id":5,"code":"EXP"},"plannedDeliveryDate":"2026-11-21",
			"salesOrderLineItems":[{"position":1,"variant":12,"quantity":"3","lotNumber":" L1 ","quantityShipped":1}],
			"shippingUnits":[{"id":4,"shippingUnitNumber":"SU-1","shippingTrackingNumber":"TRK","shippingUnitEvents":[{"id":8,"message":"In transit"}]}]}`,
			model.Outbound{ID: 6, OrderNumber: "SO-2", WarehouseLocation: 3, WarehouseCode: "WH", BillingToID: 8,
				ShipTo: &model.Address{Code: "C-9", Relationship: "Marketplace", Name: "J", Zipcode: "69003"}, ShipToCode: "C-9", ShipToID: 9,
				CarrierID: 7, CarrierCode: "DHL", CarrierServiceID: 2, PlannedDeliveryDate: time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC),
				Lines: []model.OutboundLine{{Position: 1, VariantID: 12, Quantity: 3, LotNumber: "L1", QuantityShipped: 1}},
				ShippingUnits: []model.ShippingUnit{{ID: 4, ShippingUnitNumber: "SU-1", ShippingTrackingNumber: "TRK", OrderNumber: "SO-2",
					Events: []model.TrackingEvent{{ID: 8, ShippingUnitNumber: "SU-1", TrackingNumber: "TRK", Message: "In transit"}}}}}},
		{"A stock", func(b []byte) (any, error) { return stocksDoc.one(b) }, `{"available":5,"incoming":"1","allocated":0,"locked":2,
			"variant":{"@id":"/api/variants/12","sku":"S","name":"N","ean":"4006381333931","supplier":5}}`,
			model.Stock{SKU: "S", VariantID: 12, Name: "N", EAN: "4006381333931", Available: 5, Incoming: 1, Locked: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.dec([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestDecodeID reads the id of create responses: "id", else the last
// segment of "@id"; the one-pass reader (docID.read) takes and refuses
// what json.Unmarshal into a docID does.
func TestDecodeID(t *testing.T) {
	tests := []struct {
		in      string
		id      int64
		wantErr bool
	}{
		{`{"@context":"/api/contexts/Connection","@id":"/api/connections/7","@type":"Connection","id":7,"code":"X"}`, 7, false},
		{` {"supplier":{"id":5,"@id":"/api/connections/5"},"sku":"a\"b","id":"12"}`, 12, false},
		{`{"@id":"/api/variants/9","name":"x"}`, 9, false},
		{`{"list":[1,{"id":3}],"x":true,"y":null,"id":4}`, 4, false},
		{`{"name":"no id"}`, 0, false},
		{`{"n\u0061me":"x","id":3}`, 3, false},
		{`{"\u0069d":3}`, 3, false},
		{`{"ID":5,"@ID":"/api/x/6"}`, 5, false},
		{`{"@Id":"/api/x/6"}`, 6, false},
		{`{"id":1,"id":2}`, 2, false},
		{`{"id":"5.0","@id":null}`, 5, false},
		{`{"id":null,"@id":"/api/x/\u0038"}`, 8, false},
		{`{"@id":"\/api\/x\/6","id":0}`, 6, false},
		{`{"@id":"/api/x/6","@id":null}`, 6, false},
		{`{"id":" 7 "}`, 7, false},
		{"{\"n\xffme\":\"\xfe\",\"id\":3}\n", 3, false},
		{`null`, 0, false},
		{`{}`, 0, false},
		{`{"id":`, 0, true},
		{`{"id":1`, 0, true},
		{`[1]`, 0, true},
		{`"x"`, 0, true},
		{`7`, 0, true},
		{``, 0, true},
		{`{"id":1} {}`, 0, true},
		{`{"id":1} x`, 0, true},
		{`{"id":1,}`, 0, true},
		{`{"id":{"a":1}}`, 0, true},
		{`{"id":"x"}`, 0, true},
		{`{"@id":5}`, 0, true},
		{`{"@id":["/api/x/6"]}`, 0, true},
		{`{"a":[1,}`, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var d, u docID
			err := d.read(strings.NewReader(tt.in), -1)
			uerr := json.Unmarshal([]byte(tt.in), &u)
			if (err != nil) != tt.wantErr || (uerr != nil) != tt.wantErr {
				t.Fatalf("read: %v, Unmarshal: %v; want an error: %v", err, uerr, tt.wantErr)
			}
			if !tt.wantErr && (d.id() != tt.id || u.id() != tt.id) {
				t.Errorf("read %d, Unmarshal %d; want %d", d.id(), u.id(), tt.id)
			}
		})
	}
}

// TestWireTablesComplete: every edition has every kind both editions share,
// served by the edition, with its readers, and a body for the kinds a file
// creates (what the per-edition interface used to guarantee at compile
// time).
func TestWireTablesComplete(t *testing.T) {
	for _, e := range model.Editions {
		w := wireTables[e]
		if w == nil {
			t.Fatalf("no table for edition %s", e)
		}
		checkDoc(t, e, w.partners, true)
		checkDoc(t, e, w.items, true)
		checkDoc(t, e, w.inbounds, true)
		checkDoc(t, e, w.outbounds, true)
		checkDoc(t, e, w.movements, false)
		checkDoc(t, e, stocksDoc, false)
	}
	// A packaging's body needs its variant's IRI: packagingBodyB.
	checkDoc(t, model.EditionB, packagingsB, false)
	checkDoc(t, model.EditionB, warehouseClientsB, false)
	checkDoc(t, model.EditionB, carriersB, false)
	checkDoc(t, model.EditionB, carrierServicesB, false)
	checkDoc(t, model.EditionB, fulfillmentsB, false)
	checkDoc(t, model.EditionB, shippingUnitsB, false)
	checkDoc(t, model.EditionB, eventsB, false)
}

// checkDoc checks one entry of the table: a served collection, a name,
// both readers, and a body and key properties when files create the kind.
func checkDoc[M any](t *testing.T, e model.Edition, d docWire[M], creatable bool) {
	t.Helper()
	if d.res == "" || d.what == "" || !Serves(e, d.res) {
		t.Errorf("edition %s: %+v is not a served collection", e, d.docKind)
	}
	if d.one == nil || d.page == nil {
		t.Errorf("edition %s, %s: a reader is missing", e, d.what)
	}
	if (d.body != nil) != creatable || (creatable && len(d.keys) == 0) {
		t.Errorf("edition %s, %s: body %v, keys %v; want a body and keys: %v", e, d.what, d.body != nil, d.keys, creatable)
	}
}
