package export

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"filebridge/internal/edi"
	"filebridge/internal/edi/x12"
	"filebridge/internal/model"
)

func x12Opts() Options {
	return Options{Format: X12, X12: &x12.Envelope{
		Sender: edi.Party{Qualifier: "ZZ", ID: "WAREHOUSE"}, Receiver: edi.Party{Qualifier: "ZZ", ID: "SHOPERP"},
		Control: 42, Time: time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC),
	}}
}

func sampleShipments() []ShipmentRow {
	var rows []ShipmentRow
	for _, s := range []model.Shipment{
		{OrderNumber: "ORD-1001", ExternalOrderNumber: "PO-77", FulfillmentNumber: "F-1", ShippedAt: t0,
			TrackingNumber: "1Z999AA10123456784", CarrierCode: "UPSN", CarrierName: "UPS",
			Lines: []model.ShipmentLine{{Position: 1, SKU: "CHR-OAK-DIN", QuantityOrdered: 2, QuantityShipped: 2},
				{Position: 2, SKU: "TBL-OAK180-TOP", QuantityOrdered: 1, QuantityShipped: 0, LotNumber: "L-7", ExpiryDate: expiry}}},
		{OrderNumber: "ORD-1002", ShippedAt: t0.Add(time.Hour), TrackingNumber: "JD014600006281234567",
			Lines: []model.ShipmentLine{{Position: 1, SKU: "CHR-OAK-DIN", QuantityOrdered: 5, QuantityShipped: 5}}},
	} {
		rows = append(rows, ShipmentRows(s)...)
	}
	return rows
}

// TestX12Golden writes each export type as its X12 set (944, 945, 846,
// 947): golden interchanges, each parsing back with good envelopes.
func TestX12Golden(t *testing.T) {
	receipts := ReceiptRows(model.Inbound{OrderNumber: "PO-2001", ReferenceNumber: "ASN-88", ReceivedAt: t0, WarehouseCode: "3",
		SupplierCode: "SUP-NORDIC", Lines: []model.InboundLine{
			{Position: 1, SKU: "CHR-OAK-DIN", Quantity: 10, QuantityReceived: 10},
			{Position: 2, SKU: "CHR-BIRCH-STK", Quantity: 6, QuantityReceived: 5, LotNumber: "L-1", ExpiryDate: expiry}}})
	stock := []StockRow{{SKU: "CHR-OAK-DIN", Name: "Oak chair", EAN: "4006381333931", Available: 12, Allocated: 3, Locked: 1, Incoming: 40, UpdatedAt: t0},
		{SKU: "CHR-BIRCH-STK", Available: 0, UpdatedAt: t0}}
	moves := []MovementRow{{MovedAt: t0, SKU: "CHR-OAK-DIN", FromPosition: "available", ToPosition: "locked", Quantity: 2},
		{MovedAt: t0.Add(time.Minute), SKU: "CHR-BIRCH-STK", FromPosition: "available", Quantity: 1}}
	for _, tc := range []struct {
		name string
		enc  func() ([]byte, error)
	}{
		{"944", func() ([]byte, error) { return encode(t, model.ExportReceipts, model.EditionB, x12Opts(), receipts) }},
		{"945", func() ([]byte, error) {
			return encode(t, model.ExportShipments, model.EditionB, x12Opts(), sampleShipments())
		}},
		{"846", func() ([]byte, error) { return encode(t, model.ExportStock, model.EditionA, x12Opts(), stock) }},
		{"947", func() ([]byte, error) { return encode(t, model.ExportMovements, model.EditionB, x12Opts(), moves) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.enc()
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("x12", tc.name+".x12"), got)
			ic, _, err := x12.Parse(got)
			if err != nil {
				t.Fatalf("the %s does not parse back: %v", tc.name, err)
			}
			if ic.Groups[0].Sets[0].ID != tc.name || ic.Control != "000000042" {
				t.Errorf("set %s in interchange %s", ic.Groups[0].Sets[0].ID, ic.Control)
			}
		})
	}
}

// TestX12ShipmentRoundTrip: an outbound 945 parses back to the same
// shipments (order, fulfillment, date, tracking, carrier, lines).
func TestX12ShipmentRoundTrip(t *testing.T) {
	rows := sampleShipments()
	out, err := encode(t, model.ExportShipments, model.EditionB, x12Opts(), rows)
	if err != nil {
		t.Fatal(err)
	}
	ic, _, err := x12.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	back := read945(t, ic)
	var want []ShipmentRow
	for _, r := range rows {
		r.ShippedAt = r.ShippedAt.Truncate(24 * time.Hour) // 945 carries the date
		want = append(want, r)
	}
	if !reflect.DeepEqual(back, want) {
		t.Errorf("read back:\n%+v\nwant:\n%+v", back, want)
	}
}

// read945 reads the shipment rows of 945 sets.
func read945(t *testing.T, ic *x12.Interchange) []ShipmentRow {
	t.Helper()
	date := func(s string) time.Time {
		d, err := time.Parse("20060102", s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	num := func(s string) int64 {
		if s == "" {
			return 0
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	var rows []ShipmentRow
	for _, set := range ic.Groups[0].Sets {
		var head ShipmentRow
		var cur *ShipmentRow
		for _, s := range set.Body() {
			switch s.Tag {
			case "W06":
				head.OrderNumber, head.ShippedAt, head.FulfillmentNumber, head.ExternalOrderNumber = s.Value(2), date(s.Value(3)), s.Value(4), s.Value(6)
			case "W27":
				head.CarrierCode, head.CarrierName = s.Value(2), s.Value(3)
			case "LX":
				rows = append(rows, head)
				cur = &rows[len(rows)-1]
			case "MAN":
				cur.TrackingNumber = s.Value(2)
			case "W12":
				cur.QuantityOrdered, cur.QuantityShipped, cur.SKU = num(s.Value(2)), num(s.Value(3)), s.Value(8)
			case "N9":
				if s.Value(1) == "LI" {
					cur.Position = int(num(s.Value(2)))
				} else if s.Value(1) == "LT" {
					cur.LotNumber = s.Value(2)
				}
			case "G62":
				cur.ExpiryDate = date(s.Value(2))
			}
		}
	}
	return rows
}

// TestX12ExportRefused: a value holding an X12 separator fails the export
// naming its row; a type without a set is refused.
func TestX12ExportRefused(t *testing.T) {
	rows := sampleShipments()
	rows[1].SKU = "CHR*OAK"
	_, err := encode(t, model.ExportShipments, model.EditionB, x12Opts(), rows)
	if err == nil || !strings.Contains(err.Error(), "row 3 (orderNumber ORD-1001)") || !strings.Contains(err.Error(), "W1208") {
		t.Errorf("a separator in a value: %v", err)
	}
	_, err = encode(t, model.ExportItems, model.EditionB, x12Opts(), sampleItems())
	if err == nil || !strings.Contains(err.Error(), "no X12 transaction set") {
		t.Errorf("items as X12: %v", err)
	}
	var buf bytes.Buffer
	if _, err := NewWriter(&buf, MustFor(model.ExportStock, model.EditionA), Options{Format: X12}); err == nil {
		t.Error("an X12 export without envelope is accepted")
	}
}
