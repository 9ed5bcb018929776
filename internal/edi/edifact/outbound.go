package edifact

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"filebridge/internal/formats/export"
	"filebridge/internal/model"
)

// Export writes the rows of one export as an EDIFACT interchange: receipts
// as RECADV (a message per reception), shipments as DESADV (a message per
// fulfillment, or per order when the edition has no fulfillments), stock
// and movements as one INVRPT. Rows of one document come one after the
// other, as the export sources list them.
type Export struct {
	wr      *Writer
	typ     model.ExportType
	release string // "96A" or "01B"
	now     time.Time
	key     string // the open message's document key
	open    bool
	msgs    int
	line    int // line items of the open message
}

// Releases are the directory releases an export may be written in.
var Releases = []string{"96A", "01B"}

// NewExport starts the interchange of an export of type typ: h names the
// partners and the control reference (UNB 0020), release the directory
// (96A or 01B).
func NewExport(w io.Writer, typ model.ExportType, h Header, release string, now time.Time) (*Export, error) {
	switch release {
	case "":
		release = "96A"
	case "96A", "01B":
	default:
		return nil, fmt.Errorf("EDIFACT directory release %q: use 96A or 01B", release)
	}
	switch typ {
	case model.ExportReceipts, model.ExportShipments, model.ExportStock, model.ExportMovements:
	default:
		return nil, fmt.Errorf("the %s export has no EDIFACT message: EDIFACT carries receipts (RECADV), shipments (DESADV), stock and movements (INVRPT)", typ)
	}
	now = now.UTC()
	return &Export{wr: NewWriter(w, h, now, true), typ: typ, release: release, now: now}, nil
}

// msgID is the identifier of the message an export type writes.
func (x *Export) msgID() MessageID {
	id := MessageID{Version: "D", Release: x.release, Agency: "UN"}
	switch x.typ {
	case model.ExportReceipts:
		id.Type, id.Assoc = "RECADV", "EAN003"
	case model.ExportShipments:
		id.Type, id.Assoc = "DESADV", "EAN005"
	default:
		id.Type, id.Assoc = "INVRPT", "EAN008"
	}
	if x.release == "01B" {
		id.Assoc = map[string]string{"RECADV": "EAN004", "DESADV": "EAN007", "INVRPT": "EAN009"}[id.Type]
	}
	return id
}

// begin opens the message of document key (closing the previous one).
func (x *Export) begin(key string) bool {
	if x.open && key == x.key {
		return false
	}
	x.end()
	x.msgs++
	x.open, x.key, x.line = true, key, 0
	x.wr.Begin(strconv.Itoa(x.msgs), x.msgID())
	return true
}

func (x *Export) end() {
	if x.open {
		x.wr.End()
		x.open = false
	}
}

// Messages is the number of messages written so far.
func (x *Export) Messages() int { return x.msgs }

// Close ends the last message and the interchange.
func (x *Export) Close() error {
	x.end()
	return x.wr.Close()
}

// Write writes one row of the export's row type.
func (x *Export) Write(row any) error {
	switch r := row.(type) {
	case export.ReceiptRow:
		x.receipt(r)
	case *export.ReceiptRow:
		x.receipt(*r)
	case export.ShipmentRow:
		x.shipment(r)
	case *export.ShipmentRow:
		x.shipment(*r)
	case export.StockRow:
		x.stock(r)
	case *export.StockRow:
		x.stock(*r)
	case export.MovementRow:
		x.movement(r)
	case *export.MovementRow:
		x.movement(*r)
	default:
		return fmt.Errorf("an EDIFACT %s export cannot write a %T row", x.typ, row)
	}
	return x.wr.err
}

// dtm is a date/time element of format 203 (CCYYMMDDHHMM, UTC), or 102
// (CCYYMMDD) for a date.
func dtm(qual string, t time.Time, date bool) []string {
	if date {
		return []string{qual, t.Format("20060102"), "102"}
	}
	return []string{qual, t.UTC().Format("200601021504"), "203"}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// seg writes a segment unless its one value v is empty.
func (x *Export) opt(tag string, v string, elems ...[]string) {
	if v != "" {
		x.wr.Segment(tag, elems...)
	}
}

// lineItem writes the LIN and the PIA naming the SKU of a line.
func (x *Export) lineItem(pos int, sku, ean string) {
	x.line++
	if pos == 0 {
		pos = x.line
	}
	if ean != "" {
		x.wr.Segment("LIN", []string{strconv.Itoa(pos)}, nil, []string{ean, "EN"})
	} else {
		x.wr.Segment("LIN", []string{strconv.Itoa(pos)})
	}
	x.wr.Segment("PIA", []string{"5"}, []string{sku, "SA"})
}

// batch writes the lot (GIN+BX) and expiry date (DTM+361) of a line.
func (x *Export) batch(lot string, expiry time.Time) {
	x.opt("GIN", lot, []string{"BX"}, []string{lot})
	if !expiry.IsZero() {
		x.wr.Segment("DTM", dtm("361", expiry, true))
	}
}

// receipt writes a reception line into the RECADV of its reception.
func (x *Export) receipt(r export.ReceiptRow) {
	if x.begin(r.OrderNumber) {
		x.wr.Segment("BGM", []string{"632"}, []string{r.OrderNumber}, []string{"9"})
		x.wr.Segment("DTM", dtm("137", x.now, false))
		if !r.ReceivedAt.IsZero() {
			x.wr.Segment("DTM", dtm("50", r.ReceivedAt, false))
		}
		x.opt("RFF", r.ReferenceNumber, []string{"ON", r.ReferenceNumber})
		x.opt("NAD", r.SupplierCode, []string{"SU"}, []string{r.SupplierCode, "", "92"})
		x.opt("NAD", r.Warehouse, []string{"DP"}, []string{r.Warehouse, "", "92"})
		if r.StatusCode != 0 {
			x.wr.Segment("STS", []string{"1"}, []string{strconv.Itoa(r.StatusCode), "", "", r.StatusName})
		}
		x.wr.Segment("CPS", []string{"1"})
	}
	x.lineItem(r.Position, r.SKU, "")
	x.wr.Segment("QTY", []string{"48", itoa(r.QuantityReceived)})
	x.wr.Segment("QTY", []string{"21", itoa(r.QuantityOrdered)})
	x.batch(r.LotNumber, r.ExpiryDate)
	x.opt("RFF", r.OwnerCode, []string{"AFO", r.OwnerCode})
}

// shipment writes a shipped line into the DESADV of its fulfillment.
func (x *Export) shipment(r export.ShipmentRow) {
	num := r.FulfillmentNumber
	if num == "" {
		num = r.OrderNumber
	}
	if x.begin(num) {
		x.wr.Segment("BGM", []string{"351"}, []string{num}, []string{"9"})
		x.wr.Segment("DTM", dtm("137", x.now, false))
		if !r.ShippedAt.IsZero() {
			x.wr.Segment("DTM", dtm("11", r.ShippedAt, false))
		}
		x.wr.Segment("RFF", []string{"ON", r.OrderNumber})
		x.opt("RFF", r.ExternalOrderNumber, []string{"CR", r.ExternalOrderNumber})
		x.opt("RFF", r.TrackingNumber, []string{"CN", r.TrackingNumber})
		if r.CarrierCode != "" || r.CarrierName != "" {
			x.wr.Segment("TDT", []string{"20"}, nil, nil, nil, []string{r.CarrierCode, "", "", r.CarrierName})
		}
		x.wr.Segment("CPS", []string{"1"})
	}
	x.lineItem(r.Position, r.SKU, "")
	x.wr.Segment("QTY", []string{"12", itoa(r.QuantityShipped)})
	if r.QuantityOrdered != 0 {
		x.wr.Segment("QTY", []string{"21", itoa(r.QuantityOrdered)})
	}
	if r.QuantityUnfulfillable != 0 {
		x.wr.Segment("QVR", []string{itoa(r.QuantityUnfulfillable), "12"}, []string{"BP"}, []string{r.ReasonCode})
		x.opt("FTX", r.ReasonComment, []string{"AAI"}, nil, nil, []string{r.ReasonComment})
	}
	x.batch(r.LotNumber, r.ExpiryDate)
	x.opt("RFF", r.OwnerCode, []string{"AFO", r.OwnerCode})
}

// snapshot opens the one INVRPT of a stock or movements export.
func (x *Export) snapshot(what string) {
	if x.begin("") {
		x.wr.Segment("BGM", []string{"35"}, []string{x.now.Format("20060102150405") + "-" + what}, []string{"9"})
		x.wr.Segment("DTM", dtm("137", x.now, false))
	}
}

// stock writes the stock of one SKU: available as actual stock (QTY+145),
// incoming as in transit (198), allocated as committed (66), locked as held
// (89).
func (x *Export) stock(r export.StockRow) {
	x.snapshot("STOCK")
	x.lineItem(0, r.SKU, r.EAN)
	x.opt("IMD", r.Name, []string{"F"}, nil, []string{"", "", "", r.Name})
	x.wr.Segment("INV", nil, nil, nil, []string{"2"})
	for _, q := range []struct {
		code string
		n    int64
	}{{"145", r.Available}, {"198", r.Incoming}, {"66", r.Allocated}, {"89", r.Locked}} {
		x.wr.Segment("QTY", []string{q.code, itoa(q.n)})
	}
	if !r.UpdatedAt.IsZero() {
		x.wr.Segment("DTM", dtm("179", r.UpdatedAt, false))
	}
}

// movement writes one stock movement: out of its from-position (INV+1,
// QTY+199 withdrawal), into its to-position (INV+2) unless it is a loss;
// the positions in LOC+18, the comment in FTX.
func (x *Export) movement(r export.MovementRow) {
	x.snapshot("MOVEMENTS")
	x.lineItem(0, r.SKU, "")
	x.wr.Segment("INV", []string{"1"})
	x.wr.Segment("QTY", []string{"199", itoa(r.Quantity)})
	x.opt("LOC", r.FromPosition, []string{"18"}, []string{r.FromPosition})
	x.batch(r.FromLotNumber, r.FromExpiryDate)
	x.wr.Segment("DTM", dtm("179", r.MovedAt, false))
	if r.ToPosition != "" {
		x.wr.Segment("INV", []string{"2"})
		x.wr.Segment("QTY", []string{"156", itoa(r.Quantity)})
		x.wr.Segment("LOC", []string{"18"}, []string{r.ToPosition})
		x.batch(r.ToLotNumber, r.ToExpiryDate)
	}
	x.opt("FTX", r.Comment, []string{"AAI"}, nil, nil, []string{r.Comment})
}
