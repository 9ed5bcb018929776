package export

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"filebridge/internal/edi"
	"filebridge/internal/edi/edifact"
	"filebridge/internal/model"
)

var (
	e0      = time.Date(2026, 11, 26, 10, 30, 0, 0, time.UTC)
	expiry2 = time.Date(2027, 6, 30, 0, 0, 0, 0, time.UTC)
)

func edifactOpts(release string) Options {
	return Options{Format: EDIFACT, EDIFACT: &edifact.Envelope{
		Header:  edifact.Header{Sender: edifact.Party{ID: "5798000000001", Qual: "14"}, Recipient: edifact.Party{ID: "5412345000013", Qual: "14"}, Ref: "17"},
		Release: release, Time: e0.Add(24 * time.Hour),
	}}
}

// outCases are the rows of each export written as EDIFACT, with the table
// that reads the message back.
var outCases = []struct {
	name    string
	typ     model.ExportType
	release string
	table   *edi.Table
	rows    []any
}{
	{"recadv", model.ExportReceipts, "96A", edifact.OutTables[0], []any{
		ReceiptRow{OrderNumber: "REC-2026-0042", ReferenceNumber: "PO-88123", StatusCode: 80, StatusName: "Received", ReceivedAt: e0, Warehouse: "WH-LYON", SupplierCode: "SUP-001", Position: 1, SKU: "CHAIR-OAK-01", QuantityOrdered: 40, QuantityReceived: 38, LotNumber: "LOT-7781", ExpiryDate: expiry2, OwnerCode: "OWN1"},
		ReceiptRow{OrderNumber: "REC-2026-0042", ReferenceNumber: "PO-88123", StatusCode: 80, StatusName: "Received", ReceivedAt: e0, Warehouse: "WH-LYON", SupplierCode: "SUP-001", Position: 2, SKU: "TABLE-OAK-01", QuantityOrdered: 10, QuantityReceived: 10},
		ReceiptRow{OrderNumber: "REC-2026-0043", StatusCode: 75, StatusName: "Partially received", ReceivedAt: e0.Add(time.Hour), Warehouse: "3", SupplierCode: "SUP-002", Position: 1, SKU: "LAMP-01", QuantityOrdered: 5, QuantityReceived: 2},
	}},
	{"desadv", model.ExportShipments, "96A", edifact.OutTables[1], []any{
		ShipmentRow{OrderNumber: "SO-2026-10001", ExternalOrderNumber: "WEB-558812", FulfillmentNumber: "F-1", ShippedAt: e0, TrackingNumber: "JD0123456789", CarrierCode: "DHL", CarrierName: "DHL Parcel", Position: 1, SKU: "CHAIR-OAK-01", QuantityOrdered: 2, QuantityShipped: 2, LotNumber: "LOT-7781", ExpiryDate: expiry2},
		ShipmentRow{OrderNumber: "SO-2026-10001", ExternalOrderNumber: "WEB-558812", FulfillmentNumber: "F-1", ShippedAt: e0, TrackingNumber: "JD0123456789", CarrierCode: "DHL", CarrierName: "DHL Parcel", Position: 2, SKU: "TABLE-OAK-01", QuantityOrdered: 1, QuantityShipped: 0, QuantityUnfulfillable: 1, ReasonCode: "OUT_OF_STOCK", ReasonComment: "none left: back 12/12"},
		ShipmentRow{OrderNumber: "SO-2026-10002", FulfillmentNumber: "SO-2026-10002", ShippedAt: e0.Add(2 * time.Hour), TrackingNumber: "1Z999?+AA'", Position: 1, SKU: "LAMP-01", QuantityShipped: 4},
	}},
	{"desadv_d01b", model.ExportShipments, "01B", edifact.OutTables[1], []any{
		ShipmentRow{OrderNumber: "SO-2026-20001", FulfillmentNumber: "F-9", ShippedAt: e0, TrackingNumber: "T-1", CarrierCode: "UPS", Position: 1, SKU: "CHAIR-OAK-01", QuantityShipped: 3},
	}},
	{"invrpt_stock", model.ExportStock, "96A", edifact.OutTables[2], []any{
		StockRow{SKU: "CHAIR-OAK-01", Name: "Oak chair", EAN: "4006381333931", Available: 120, Incoming: 40, Allocated: 6, Locked: 2, UpdatedAt: e0},
		StockRow{SKU: "TABLE-OAK-01", Name: "Oak table", Available: 0, Incoming: 10, UpdatedAt: e0},
	}},
	{"invrpt_movements", model.ExportMovements, "96A", edifact.OutTables[3], []any{
		MovementRow{MovedAt: e0, SKU: "CHAIR-OAK-01", FromPosition: "available", ToPosition: "damaged", Quantity: 1, Comment: "forklift"},
		MovementRow{MovedAt: e0.Add(time.Minute), SKU: "LAMP-01", FromPosition: "available", Quantity: 2, Comment: "lost", FromLotNumber: "L1"},
	}},
}

// TestEDIFACTGolden writes each export as EDIFACT (RECADV, DESADV, INVRPT
// of stock and of movements; D.96A and D.01B), compares it with
// testdata/edifact/NAME.edi, reads it back through the envelope checks and
// the message's table, and checks that every value of every row comes back
// the same (an outbound DESADV parses back to the same shipment).
func TestEDIFACTGolden(t *testing.T) {
	for _, tc := range outCases {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			w, err := NewWriter(&out, MustFor(tc.typ, model.EditionB), edifactOpts(tc.release))
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range tc.rows {
				if err := w.Write(r); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "edifact", tc.name+".edi")
			if *update {
				if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("differs from %s:\n%s", golden, out.Bytes())
			}
			cols := tc.table.Columns(nil)
			var back []edi.Row
			ic, err := edifact.Read(bytes.NewReader(out.Bytes()), func(m *edifact.Message) error {
				if m.ID.Type != tc.table.Set || m.ID.Release != tc.release {
					t.Errorf("message %s, want %s %s", m.ID, tc.table.Set, tc.release)
				}
				back = append(back, tc.table.Rows(m.Segments, cols)...)
				return nil
			})
			if err != nil || ic.Rejected() {
				t.Fatalf("the written interchange does not read back: %v %v", err, ic.Errors)
			}
			if ic.Header.Ref != "17" || ic.Header.Sender.ID != "5798000000001" {
				t.Errorf("header %+v", ic.Header)
			}
			if len(back) != len(tc.rows) {
				t.Fatalf("%d rows read back, want %d", len(back), len(tc.rows))
			}
			for i, r := range tc.rows {
				want := csvValues(r)
				if tc.typ == model.ExportShipments && want["fulfillmentNumber"] == "" {
					want["fulfillmentNumber"] = want["orderNumber"]
				}
				for ci, c := range cols {
					// Quantities are written even when 0.
					if got := back[i].Cells[ci]; got != want[c] && !(got == "0" && want[c] == "") {
						t.Errorf("row %d column %s: wrote %q, read back %q", i+1, c, want[c], got)
					}
				}
			}
		})
	}
}

// TestEDIFACTRefused: an export without an EDIFACT message, or without its
// envelope, or in an unknown release, is refused before anything is written.
func TestEDIFACTRefused(t *testing.T) {
	for _, tc := range []struct {
		typ  model.ExportType
		opts Options
		want string
	}{
		{model.ExportTracking, edifactOpts(""), "has no EDIFACT message"},
		{model.ExportStock, Options{Format: EDIFACT}, "needs its partner identities"},
		{model.ExportStock, edifactOpts("99Z"), "release \"99Z\""},
	} {
		var out bytes.Buffer
		_, err := NewWriter(&out, MustFor(tc.typ, model.EditionB), tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.typ, err, tc.want)
		}
	}
}

// csvValues renders a row's fields by their csv names as the tables read
// them back: zero values empty, instants at the minute in UTC, dates.
func csvValues(row any) map[string]string {
	v := reflect.ValueOf(row)
	out := map[string]string{}
	for i := range v.NumField() {
		tag := v.Type().Field(i).Tag.Get("csv")
		name, opts, _ := strings.Cut(tag, ",")
		f := v.Field(i)
		s := ""
		switch x := f.Interface().(type) {
		case string:
			s = x
		case int:
			if x != 0 {
				s = strconv.Itoa(x)
			}
		case int64:
			if x != 0 {
				s = strconv.FormatInt(x, 10)
			}
		case time.Time:
			if !x.IsZero() && opts == "date" {
				s = x.Format("2006-01-02")
			} else if !x.IsZero() {
				s = x.UTC().Format("2006-01-02T15:04:00Z")
			}
		}
		out[name] = s
	}
	return out
}
