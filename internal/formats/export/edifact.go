package export

import (
	"cmp"
	"fmt"
	"io"
	"strconv"
	"time"

	"filebridge/internal/edi/edifact"
	"filebridge/internal/model"
)

// EDIFACTMessages are the EDIFACT messages of the exports that have one.
var EDIFACTMessages = map[model.ExportType]string{
	model.ExportReceipts:  "RECADV",
	model.ExportShipments: "DESADV",
	model.ExportStock:     "INVRPT",
	model.ExportMovements: "INVRPT",
}

// edifactEncoder writes an export as one EDIFACT interchange: a RECADV per
// reception, a DESADV per fulfillment (per order in Edition A), one INVRPT
// of every stock row or of every movement. Messages are streamed as their
// rows come (rows of one document come together: the source lists
// documents). Where each column lands: edifact.OutTables
// (docs/edi-edifact.md).
type edifactEncoder struct {
	wr  *edifact.Writer
	row func() // writes the row of the export type
	id  edifact.MessageID
	now time.Time
	namedCells
	key     string // the document of the open message
	open    bool
	msgs    int
	lineNum int // line items of the open message
}

func newEDIFACTEncoder(w io.Writer, s *Schema, opts Options) (encoder, error) {
	msg, ok := EDIFACTMessages[s.Type]
	if !ok {
		return nil, fmt.Errorf("the %s export has no EDIFACT message: write it as csv or xlsx", s.Type)
	}
	env := opts.EDIFACT
	if env == nil {
		return nil, fmt.Errorf("an EDIFACT export needs its partner identities and control reference")
	}
	release := env.Release
	switch release {
	case "":
		release = "96A"
	case "96A", "01B":
	default:
		return nil, fmt.Errorf("EDIFACT directory release %q: use 96A or 01B", release)
	}
	now := env.Time.UTC()
	e := &edifactEncoder{wr: edifact.NewWriter(w, env.Header, now, true), id: edifact.ExportID(msg, release), now: now, namedCells: newNamedCells(s)}
	e.row = map[model.ExportType]func(){
		model.ExportReceipts: e.receipt, model.ExportShipments: e.shipment, model.ExportStock: e.stock, model.ExportMovements: e.movement,
	}[s.Type]
	return e, e.wr.Err()
}

func (e *edifactEncoder) header([]string) error { return nil }

// text is the value of column name ("" when empty or absent in the edition).
func (e *edifactEncoder) text(name string) string {
	switch v := e.get(name); {
	case v == nil:
		return ""
	case v.col.Kind == Integer:
		return strconv.FormatInt(v.i, 10)
	default:
		return v.s
	}
}

// qty is an integer column, written even when 0.
func (e *edifactEncoder) qty(name string) string { return strconv.FormatInt(e.integer(name), 10) }

// when is a time column (zero when empty).
func (e *edifactEncoder) when(name string) time.Time {
	if v := e.get(name); v != nil {
		return v.t
	}
	return time.Time{}
}

// dtm is a DTM element of format 203 (CCYYMMDDHHMM, UTC), or 102
// (CCYYMMDD) for a date.
func dtm(qual string, t time.Time, date bool) []string {
	if date {
		return []string{qual, t.Format("20060102"), "102"}
	}
	return []string{qual, t.UTC().Format("200601021504"), "203"}
}

func (e *edifactEncoder) record(vals []value, _ int, _ string) error {
	e.vals = vals
	e.row()
	return e.wr.Err()
}

// begin opens the message of document key (closing the previous one) and
// reports whether it is new.
func (e *edifactEncoder) begin(key string) bool {
	if e.open && key == e.key {
		return false
	}
	e.end()
	e.msgs++
	e.open, e.key, e.lineNum = true, key, 0
	e.wr.Begin(strconv.Itoa(e.msgs), e.id)
	return true
}

func (e *edifactEncoder) end() {
	if e.open {
		e.wr.End()
		e.open = false
	}
}

func (e *edifactEncoder) close() error {
	e.end()
	return e.wr.Close()
}

func (e *edifactEncoder) abort() {}

// opt writes a segment when v is not empty.
func (e *edifactEncoder) opt(tag, v string, elems ...[]string) {
	if v != "" {
		e.wr.Segment(tag, elems...)
	}
}

// lineItem writes the LIN (with the EAN when known) and the PIA naming
// the SKU of a line.
func (e *edifactEncoder) lineItem(pos, sku, ean string) {
	e.lineNum++
	if pos == "" {
		pos = strconv.Itoa(e.lineNum)
	}
	if ean != "" {
		e.wr.Segment("LIN", []string{pos}, nil, []string{ean, "EN"})
	} else {
		e.wr.Segment("LIN", []string{pos})
	}
	e.wr.Segment("PIA", []string{"5"}, []string{sku, "SA"})
}

// batch writes a lot (GIN+BX) and its expiry date (DTM+361).
func (e *edifactEncoder) batch(lotCol, expiryCol string) {
	lot := e.text(lotCol)
	e.opt("GIN", lot, []string{"BX"}, []string{lot})
	if t := e.when(expiryCol); !t.IsZero() {
		e.wr.Segment("DTM", dtm("361", t, true))
	}
}

// receipt writes a reception line into the RECADV of its reception.
func (e *edifactEncoder) receipt() {
	if num := e.text("orderNumber"); e.begin(num) {
		e.wr.Segment("BGM", []string{"632"}, []string{num}, []string{"9"})
		e.wr.Segment("DTM", dtm("137", e.now, false))
		if t := e.when("receivedAt"); !t.IsZero() {
			e.wr.Segment("DTM", dtm("50", t, false))
		}
		ref, sup, wh := e.text("referenceNumber"), e.text("supplierCode"), e.text("warehouse")
		e.opt("RFF", ref, []string{"ON", ref})
		e.opt("NAD", sup, []string{"SU"}, []string{sup, "", "92"})
		e.opt("NAD", wh, []string{"DP"}, []string{wh, "", "92"})
		if code := e.text("statusCode"); code != "" {
			e.wr.Segment("STS", []string{"1"}, []string{code, "", "", e.text("statusName")})
		}
		e.wr.Segment("CPS", []string{"1"})
	}
	e.lineItem(e.text("position"), e.text("sku"), "")
	e.wr.Segment("QTY", []string{"48", e.qty("quantityReceived")})
	e.wr.Segment("QTY", []string{"21", e.qty("quantityOrdered")})
	e.batch("lotNumber", "expiryDate")
	owner := e.text("ownerCode")
	e.opt("RFF", owner, []string{"AFO", owner})
}

// shipment writes a shipped line into the DESADV of its fulfillment.
func (e *edifactEncoder) shipment() {
	order := e.text("orderNumber")
	num := cmp.Or(e.text("fulfillmentNumber"), order)
	if e.begin(num) {
		e.wr.Segment("BGM", []string{"351"}, []string{num}, []string{"9"})
		e.wr.Segment("DTM", dtm("137", e.now, false))
		if t := e.when("shippedAt"); !t.IsZero() {
			e.wr.Segment("DTM", dtm("11", t, false))
		}
		ext, track := e.text("externalOrderNumber"), e.text("trackingNumber")
		e.wr.Segment("RFF", []string{"ON", order})
		e.opt("RFF", ext, []string{"CR", ext})
		e.opt("RFF", track, []string{"CN", track})
		if code, name := e.text("carrierCode"), e.text("carrierName"); code != "" || name != "" {
			e.wr.Segment("TDT", []string{"20"}, nil, nil, nil, []string{code, "", "", name})
		}
		e.wr.Segment("CPS", []string{"1"})
	}
	e.lineItem(e.text("position"), e.text("sku"), "")
	e.wr.Segment("QTY", []string{"12", e.qty("quantityShipped")})
	if q := e.text("quantityOrdered"); q != "" {
		e.wr.Segment("QTY", []string{"21", q})
	}
	if q := e.text("quantityUnfulfillable"); q != "" && q != "0" {
		e.wr.Segment("QVR", []string{q, "12"}, []string{"BP"}, []string{e.text("reasonCode")})
		c := e.text("reasonComment")
		e.opt("FTX", c, []string{"AAI"}, nil, nil, []string{c})
	}
	e.batch("lotNumber", "expiryDate")
	owner := e.text("ownerCode")
	e.opt("RFF", owner, []string{"AFO", owner})
}

// snapshot opens the one INVRPT of a stock or movements export.
func (e *edifactEncoder) snapshot(what string) {
	if e.begin("") {
		e.wr.Segment("BGM", []string{"35"}, []string{e.now.Format("20060102150405") + "-" + what}, []string{"9"})
		e.wr.Segment("DTM", dtm("137", e.now, false))
	}
}

// stock writes the stock of one SKU: available as actual stock (QTY+145),
// incoming as in transit (198), allocated as committed (66), locked as
// held (89).
func (e *edifactEncoder) stock() {
	e.snapshot("STOCK")
	e.lineItem("", e.text("sku"), e.text("ean"))
	name := e.text("name")
	e.opt("IMD", name, []string{"F"}, nil, []string{"", "", "", name})
	e.wr.Segment("INV", nil, nil, nil, []string{"2"})
	for _, q := range [][2]string{{"145", "available"}, {"198", "incoming"}, {"66", "allocated"}, {"89", "locked"}} {
		e.wr.Segment("QTY", []string{q[0], e.qty(q[1])})
	}
	if t := e.when("updatedAt"); !t.IsZero() {
		e.wr.Segment("DTM", dtm("179", t, false))
	}
}

// movement writes one stock movement: out of its from-position (INV+1,
// QTY+199 withdrawal), into its to-position (INV+2, QTY+156) unless it is
// a loss; the positions in LOC+18, the comment in FTX.
func (e *edifactEncoder) movement() {
	e.snapshot("MOVEMENTS")
	e.lineItem("", e.text("sku"), "")
	from, to, q := e.text("fromPosition"), e.text("toPosition"), e.qty("quantity")
	e.wr.Segment("INV", []string{"1"})
	e.wr.Segment("QTY", []string{"199", q})
	e.opt("LOC", from, []string{"18"}, []string{from})
	e.batch("fromLotNumber", "fromExpiryDate")
	e.wr.Segment("DTM", dtm("179", e.when("movedAt"), false))
	if to != "" {
		e.wr.Segment("INV", []string{"2"})
		e.wr.Segment("QTY", []string{"156", q})
		e.wr.Segment("LOC", []string{"18"}, []string{to})
		e.batch("toLotNumber", "toExpiryDate")
	}
	c := e.text("comment")
	e.opt("FTX", c, []string{"AAI"}, nil, nil, []string{c})
}
