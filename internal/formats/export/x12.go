package export

import (
	"cmp"
	"fmt"
	"io"
	"strconv"
	"time"

	"filebridge/internal/edi"
	"filebridge/internal/edi/x12"
	"filebridge/internal/model"
)

// X12Sets are the X12 transaction sets of the exports that have one.
var X12Sets = map[model.ExportType]string{
	model.ExportReceipts:  "944",
	model.ExportShipments: "945",
	model.ExportStock:     "846",
	model.ExportMovements: "947",
}

// x12Encoder writes an export as one X12 interchange: a 944 per reception
// or purchase order, a 945 per order (and fulfillment), one 846 of every
// stock row, one 947 of every movement. Sets are streamed as their rows
// come (rows of one document come together: the source lists documents).
type x12Encoder struct {
	sw  *x12.Writer
	now time.Time    // the interchange's time
	row func() error // writes the row of the export type
	set string
	loc *time.Location
	namedCells
	key   string // the document of the open set
	lines int
	total int64
}

func newX12Encoder(w io.Writer, s *Schema, opts Options) (encoder, error) {
	set, ok := X12Sets[s.Type]
	if !ok {
		return nil, fmt.Errorf("the %s export has no X12 transaction set: write it as csv or xlsx", s.Type)
	}
	if opts.X12 == nil {
		return nil, fmt.Errorf("an X12 export needs its partner identities and control number")
	}
	sw, err := x12.NewWriter(w, *opts.X12, nil)
	if err != nil {
		return nil, err
	}
	e := &x12Encoder{sw: sw, now: opts.X12.Time, set: set, loc: opts.Location, namedCells: newNamedCells(s)}
	e.row = map[model.ExportType]func() error{
		model.ExportShipments: e.shipment, model.ExportReceipts: e.receipt, model.ExportStock: e.stock, model.ExportMovements: e.movement,
	}[s.Type]
	return e, nil
}

func (e *x12Encoder) header([]string) error { return nil }

// text is the value of column name as X12 writes it ("" when the edition
// lacks the column).
func (e *x12Encoder) text(name string) string {
	v := e.get(name)
	if v == nil {
		return ""
	}
	switch v.col.Kind {
	case Integer:
		return strconv.FormatInt(v.i, 10)
	case DateTime, Date:
		return v.t.In(e.loc).Format("20060102")
	case Boolean:
		if v.b {
			return "Y"
		}
		return "N"
	}
	return v.s
}

func seg(tag string, vs ...string) edi.Segment { return x12.Seg(tag, vs...) }

// begin starts the set of document key, ending the one before.
func (e *x12Encoder) begin(key string, head ...edi.Segment) error {
	if e.lines > 0 && key == e.key {
		return nil
	}
	e.end()
	if err := e.sw.Begin(e.set); err != nil {
		return err
	}
	e.key, e.lines, e.total = key, 0, 0
	for _, s := range head {
		e.sw.Segment(s)
	}
	return nil
}

// end writes the open set's summary and closes it.
func (e *x12Encoder) end() {
	if e.lines == 0 {
		return
	}
	switch e.set {
	case "944":
		e.sw.Segment(seg("W14", strconv.FormatInt(e.total, 10)))
	case "945":
		e.sw.Segment(seg("W03", strconv.FormatInt(e.total, 10)))
	case "846":
		e.sw.Segment(seg("CTT", strconv.Itoa(e.lines)))
	}
	e.sw.End()
	e.lines = 0
}

func (e *x12Encoder) record(vals []value, row int, key string) error {
	e.vals = vals
	err := e.row()
	if err == nil {
		err = e.sw.Err()
	}
	if err != nil {
		return &CellError{Row: row, Key: key, Column: "(X12 " + e.set + ")", Err: err}
	}
	return nil
}

// lot writes the lot and expiry of a line.
func (e *x12Encoder) lot(lotCol, expiryCol string) {
	if v := e.text(lotCol); v != "" {
		e.sw.Segment(seg("N9", "LT", v))
	}
	if v := e.text(expiryCol); v != "" {
		e.sw.Segment(seg("G62", "36", v))
	}
}

func (e *x12Encoder) shipment() error {
	order, ful := e.text("orderNumber"), e.text("fulfillmentNumber")
	head := []edi.Segment{seg("W06", "F", order, e.text("shippedAt"), ful, "", e.text("externalOrderNumber"))}
	if c := e.text("carrierCode"); c != "" || e.text("carrierName") != "" {
		head = append(head, seg("W27", "M", c, e.text("carrierName")))
	}
	if err := e.begin(order+"\x00"+ful, head...); err != nil {
		return err
	}
	e.lines++
	e.sw.Segment(seg("LX", strconv.Itoa(e.lines)))
	if t := e.text("trackingNumber"); t != "" {
		e.sw.Segment(seg("MAN", "CP", t))
	}
	ordered, shipped := e.integer("quantityOrdered"), e.integer("quantityShipped")
	status, diff := "CC", ""
	if ordered > 0 {
		if shipped < ordered {
			status = "PR"
		}
		diff = strconv.FormatInt(ordered-shipped, 10)
	}
	e.sw.Segment(seg("W12", status, e.text("quantityOrdered"), strconv.FormatInt(shipped, 10), diff, "EA", "", "VN", e.text("sku")))
	if p := e.text("position"); p != "" {
		e.sw.Segment(seg("N9", "LI", p))
	}
	e.lot("lotNumber", "expiryDate")
	e.total += shipped
	return nil
}

func (e *x12Encoder) receipt() error {
	order := e.text("orderNumber")
	head := []edi.Segment{seg("W17", "F", e.text("receivedAt"), order, order)}
	if r := e.text("referenceNumber"); r != "" {
		head = append(head, seg("N9", "PO", r))
	}
	if s := e.text("supplierCode"); s != "" {
		head = append(head, seg("N1", "SU", "", "92", s))
	}
	if w := e.text("warehouse"); w != "" {
		head = append(head, seg("N1", "WH", "", "9", w))
	}
	if err := e.begin(order, head...); err != nil {
		return err
	}
	e.lines++
	e.sw.Segment(seg("LX", cmp.Or(e.text("position"), strconv.Itoa(e.lines))))
	received := e.integer("quantityReceived")
	e.sw.Segment(seg("W07", strconv.FormatInt(received, 10), "EA", "", "VN", e.text("sku")))
	e.lot("lotNumber", "expiryDate")
	e.total += received
	return nil
}

func (e *x12Encoder) stock() error {
	now := e.now.In(e.loc).Format("20060102")
	if err := e.begin("stock", seg("BIA", "00", "MM", "STOCK-"+now, now)); err != nil {
		return err
	}
	e.lines++
	lin := []string{"", "SK", e.text("sku")}
	if ean := e.text("ean"); ean != "" {
		lin = append(lin, "EN", ean)
	}
	e.sw.Segment(seg("LIN", lin...))
	if n := e.text("name"); n != "" {
		e.sw.Segment(seg("PID", "F", "08", "", "", n))
	}
	e.sw.Segment(seg("QTY", "33", strconv.FormatInt(e.integer("available"), 10), "EA"))
	e.sw.Segment(seg("QTY", "17", strconv.FormatInt(e.integer("available")+e.integer("allocated")+e.integer("locked"), 10), "EA"))
	return nil
}

func (e *x12Encoder) movement() error {
	if err := e.begin("movements"); err != nil {
		return err
	}
	e.lines++
	e.sw.Segment(seg("W15", e.text("movedAt"), strconv.Itoa(e.lines)))
	e.sw.Segment(seg("W19", "ZZ", strconv.FormatInt(e.integer("quantity"), 10), "EA", "", "VN", e.text("sku")))
	e.sw.Segment(seg("N9", "ZZ", e.text("fromPosition"), e.text("toPosition")))
	e.lot("toLotNumber", "toExpiryDate")
	return nil
}

func (e *x12Encoder) close() error {
	e.end()
	return e.sw.Close()
}

func (e *x12Encoder) abort() {}
