package formats

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"filebridge/internal/model"
)

// grouper collects the rows of inbound and outbound orders into documents,
// one per orderNumber, handed on in order of first appearance. The rows of
// one order may be anywhere in the file (a sheet sorted by SKU).
//
// Memory stays bounded: a first pass (indexKeys) numbers the orders in
// order of first appearance and counts their rows. An order is handed on
// as soon as its last row is read and the orders before it are handed on.
// When every order's rows are adjacent, that is one more pass; otherwise
// the orders are read in windows of at most windowRows rows, one pass over
// the file each, so that only the orders of one window are held at a time.
type grouper struct {
	d      *decoder
	idx    *keyIndex
	hdr    []int // indexes of the header-level fields
	posFi  int
	skuFi  int
	svcFi  int    // serviceType (Edition A orders), -1 otherwise
	linkFi [2]int // purchaseOrderLineItem.orderNumber and .position
	itemFi []int
	// itemReq are the item.* fields required when a line carries SKU master data.
	itemReq []int

	// The window of order numbers (ordinals) of the current pass, the
	// orders of it being built, the next one to hand on.
	lo, hi int32
	open   map[int32]*group
	next   int32
	// The current row's order, and how many rows without key this pass met.
	ord     int32
	noKeyAt int
}

// windowRows is how many rows of orders a pass holds at most when the
// rows of orders are not adjacent (an order bigger than that is one window).
// A variable for the tests.
var windowRows = 96 << 10

// group is one order being built.
type group struct {
	doc  Doc
	left int32 // rows of the order not read yet
	// first is the order's first row.
	first int
	// hdr holds per header field the text first given and hdrRow its row.
	hdr    []string
	hdrRow []int
	lines  []lineInfo
	svcs   []lineInfo
}

// lineInfo remembers where a line came from, for position checks.
type lineInfo struct {
	row      int
	posGiven bool // a valid position
	posSet   bool // a position cell not empty (valid or not)
}

func newGrouper(d *decoder, idx *keyIndex) *grouper {
	g := &grouper{d: d, idx: idx, open: map[int32]*group{}}
	lay := d.lay
	for fi, f := range lay.fields {
		if f.Level == model.LevelHeader {
			g.hdr = append(g.hdr, fi)
		}
		if strings.HasPrefix(f.Name, "item.") {
			g.itemFi = append(g.itemFi, fi)
			if it, ok := model.SpecFor(d.opts.Edition, model.KindItem); ok {
				if base, ok := it.Field(strings.TrimPrefix(f.Name, "item.")); ok && base.Required {
					g.itemReq = append(g.itemReq, fi)
				}
			}
		}
	}
	g.posFi, g.skuFi, g.svcFi = lay.fieldIndex("position"), lay.fieldIndex("sku"), lay.fieldIndex("serviceType")
	g.linkFi = [2]int{lay.fieldIndex("purchaseOrderLineItem.orderNumber"), lay.fieldIndex("purchaseOrderLineItem.position")}
	g.nextWindow()
	return g
}

// more reports whether orders are left after the current window.
func (g *grouper) more() bool { return int(g.hi) < len(g.idx.rows) }

// nextWindow moves to the orders after the current window.
func (g *grouper) nextWindow() {
	n := int32(len(g.idx.rows))
	g.lo, g.next, g.noKeyAt = g.hi, g.hi, 0
	if g.idx.adjacent {
		g.hi = n
		return
	}
	rows := 0
	for g.hi < n && (g.hi == g.lo || rows+int(g.idx.rows[g.hi]) <= windowRows) {
		rows += int(g.idx.rows[g.hi])
		g.hi++
	}
}

// take says whether the current row of the decoder (cells read, not yet
// converted) belongs to an order of the window.
func (g *grouper) take() bool {
	key, _ := g.d.cellText(g.d.keyFi)
	g.ord = g.idx.ordinal(key, &g.noKeyAt)
	return g.ord >= g.lo && g.ord < g.hi
}

// add takes the current row of the decoder.
func (g *grouper) add() error {
	d := g.d
	gr := g.open[g.ord]
	if gr == nil {
		gr = &group{first: d.row, left: g.idx.rows[g.ord], hdr: make([]string, len(g.hdr)), hdrRow: make([]int, len(g.hdr))}
		gr.doc = Doc{Kind: d.kind, Key: d.text(d.keyFi)}
		if d.kind == model.KindInbound {
			gr.doc.Inbound = &model.Inbound{}
		} else {
			gr.doc.Outbound = &model.Outbound{}
		}
		g.open[g.ord] = gr
	}
	key := gr.doc.Key
	gr.doc.Rows = append(gr.doc.Rows, d.row)
	gr.left--

	t := target{in: gr.doc.Inbound, out: gr.doc.Outbound}
	// Header fields: the first value given counts; later rows must agree.
	for k, fi := range g.hdr {
		if !d.set[fi] {
			continue
		}
		s := d.vals[fi].s
		if gr.hdr[k] == "" {
			gr.hdr[k], gr.hdrRow[k] = strings.Clone(s), d.row
			if !d.bad[fi] && d.setters[fi] != nil {
				d.setters[fi](&t, &d.vals[fi])
			}
			continue
		}
		if !d.bad[fi] && !g.same(fi, gr.hdr[k], s) {
			d.fieldIssue(fi, s, fmt.Sprintf("all rows of order %q must agree on %s: this row has %q, %s has %q",
				key, d.lay.fields[fi].Name, s, strings.TrimPrefix(d.where(gr.hdrRow[k]), "on "), gr.hdr[k]))
		}
	}
	// Line fields.
	for fi, f := range d.lay.fields {
		if f.Level != model.LevelHeader && f.Required {
			d.require(fi, "")
		}
	}
	li := lineInfo{row: d.row, posGiven: d.ok(g.posFi), posSet: g.posFi >= 0 && d.set[g.posFi]}
	if d.kind == model.KindInbound {
		g.inboundLine(gr, &t, li)
	} else {
		g.outboundLine(gr, &t, li)
	}
	if len(d.issues) > 0 {
		gr.doc.Issues = append(gr.doc.Issues, d.issues...)
	}
	if gr.left == 0 && g.ord == g.next {
		return g.handOn(false)
	}
	return nil
}

// handOn hands on, in order, the complete orders from the next one on;
// all of them (the end of a pass) with all.
func (g *grouper) handOn(all bool) error {
	for ; g.next < g.hi; g.next++ {
		gr := g.open[g.next]
		if gr == nil {
			if all {
				continue // no row of it read: the pass stopped early
			}
			return nil
		}
		if gr.left > 0 && !all {
			return nil
		}
		delete(g.open, g.next)
		g.finish(gr)
		slices.SortStableFunc(gr.doc.Issues, func(a, b Issue) int { return a.Row - b.Row })
		if err := g.d.emit(gr.doc); err != nil {
			return err
		}
	}
	return nil
}

// same compares two texts of a header field as values of its type.
func (g *grouper) same(fi int, a, b string) bool {
	if a == b {
		return true
	}
	f := &g.d.lay.fields[fi]
	va, ma := g.d.p.parse(f, a)
	vb, mb := g.d.p.parse(f, b)
	if ma != "" || mb != "" {
		return false
	}
	switch f.Type {
	case model.TInt:
		return va.i == vb.i
	case model.TDecimal:
		return va.d == vb.d
	case model.TDate, model.TDateTime:
		return va.t.Equal(vb.t)
	case model.TTime:
		return va.s == vb.s
	}
	return false
}

func (g *grouper) inboundLine(gr *group, t *target, li lineInfo) {
	d := g.d
	line := model.InboundLine{}
	t.inLine = &line
	d.apply(t, d.lineSet)
	if line.Item != nil {
		for _, fi := range g.itemReq {
			d.require(fi, fmt.Sprintf("is empty: this line carries SKU master data (item.* columns), so %s is required", d.lay.fields[fi].Name))
		}
		d.checkEANBox(d.lineBox, "this line carries SKU master data: ")
		line.Item.SKU = line.SKU
	}
	gr.doc.Inbound.Lines = append(gr.doc.Inbound.Lines, line)
	gr.lines = append(gr.lines, li)
}

func (g *grouper) outboundLine(gr *group, t *target, li lineInfo) {
	d := g.d
	line := model.OutboundLine{}
	svc := model.ServiceLine{}
	t.outLine, t.svc = &line, &svc
	d.apply(t, d.lineSet)
	hasSKU, hasSvc := d.set[g.skuFi], g.svcFi >= 0 && d.set[g.svcFi]
	switch {
	case hasSKU && hasSvc:
		d.fieldIssue(g.svcFi, d.text(g.svcFi), "a row is either a product line (sku) or a service line (serviceType without sku), not both: empty one of the two cells")
	case hasSvc:
		gr.doc.Outbound.ServiceLines = append(gr.doc.Outbound.ServiceLines, svc)
		gr.svcs = append(gr.svcs, li)
		return
	case !hasSKU && !d.lay.missing[g.skuFi]:
		msg := "is empty: each line needs the SKU ordered"
		if g.svcFi >= 0 {
			msg = "is empty: each line needs a sku, or a serviceType for a service line"
		}
		d.fieldIssue(g.skuFi, "", msg)
	}
	on, op := g.linkFi[0], g.linkFi[1]
	if on >= 0 && op >= 0 && d.set[on] != d.set[op] {
		empty := op
		if !d.set[on] {
			empty = on
		}
		d.fieldIssue(empty, "", "is empty: a link to a reception line needs both purchaseOrderLineItem.orderNumber and purchaseOrderLineItem.position")
	}
	gr.doc.Outbound.Lines = append(gr.doc.Outbound.Lines, line)
	gr.lines = append(gr.lines, li)
}

// finish runs the checks that need all rows of an order.
func (g *grouper) finish(gr *group) {
	d := g.d
	lay := d.lay
	hdrSet := func(name string) bool {
		fi := lay.fieldIndex(name)
		if fi < 0 {
			return false
		}
		k := slices.Index(g.hdr, fi)
		return k >= 0 && gr.hdr[k] != ""
	}
	issue := func(name, msg string) {
		fi := lay.fieldIndex(name)
		if fi >= 0 && lay.missing[fi] {
			return
		}
		gr.doc.Issues = append(gr.doc.Issues, d.issueAt(gr.first, fi, "", msg, false))
	}
	for _, fi := range g.hdr {
		if f := lay.fields[fi]; f.Required && !hdrSet(f.Name) {
			issue(f.Name, fmt.Sprintf("is empty on every row of this order: %s is required", f.Name))
		}
	}
	e := d.opts.Edition
	if e == model.EditionB && !hdrSet("warehouseLocation") && !hdrSet("warehouseCode") && !lay.missing[lay.fieldIndex("warehouseCode")] {
		issue("warehouseLocation", "the order needs a warehouseLocation or a warehouseCode")
	}
	if out := gr.doc.Outbound; out != nil {
		embedded := false
		for k, fi := range g.hdr {
			if strings.HasPrefix(lay.fields[fi].Name, "shipTo.") && gr.hdr[k] != "" {
				embedded = true
			}
		}
		switch {
		case e == model.EditionB && !embedded:
			if out.ShipToCode == "" && !hdrSet("shipToCode") {
				issue("shipToCode", "the order needs a consignee: a shipToCode of an existing connection, or the address columns shipTo.name, shipTo.streetAddress, shipTo.zipcode, shipTo.city, shipTo.countryCode")
			}
		default:
			for _, a := range model.AddressRequired {
				col := "shipTo." + a
				if hdrSet(col) || a == "name" && hdrSet("shipTo.lastName") {
					continue
				}
				msg := fmt.Sprintf("is empty: the consignee address needs %s", col)
				if a == "name" && lay.fieldIndex("shipTo.lastName") >= 0 {
					msg = "is empty: the consignee needs a name (shipTo.name or shipTo.lastName)"
				}
				issue(col, msg)
			}
			if e == model.EditionB && out.ShipTo != nil {
				// shipToCode with an embedded address is the code of the new consignee.
				out.ShipTo.Code, out.ShipToCode = out.ShipToCode, ""
			}
		}
	}
	if in := gr.doc.Inbound; in != nil {
		for i := range in.Lines {
			if it := in.Lines[i].Item; it != nil && e == model.EditionA {
				it.SupplierCode = in.SupplierCode
			}
		}
		g.positions(gr, gr.lines, func(i int) *int { return &in.Lines[i].Position })
	} else {
		out := gr.doc.Outbound
		g.positions(gr, gr.lines, func(i int) *int { return &out.Lines[i].Position })
		g.positions(gr, gr.svcs, func(i int) *int { return &out.ServiceLines[i].Position })
	}
}

// positions numbers the lines 1..n when no row gives a position, and
// otherwise requires every line to have one, unique in the order.
func (g *grouper) positions(gr *group, lines []lineInfo, pos func(i int) *int) {
	d := g.d
	given, firstGiven := 0, 0
	for _, l := range lines {
		if l.posGiven && given == 0 {
			firstGiven = l.row
		}
		if l.posGiven {
			given++
		}
	}
	if given == 0 {
		// Rows with an invalid position keep their issue; the others are numbered.
		for i := range lines {
			*pos(i) = i + 1
		}
		return
	}
	seen := make(map[int]int, len(lines))
	for i, l := range lines {
		if !l.posGiven {
			if !l.posSet { // an invalid position already has its issue
				gr.doc.Issues = append(gr.doc.Issues, d.issueAt(l.row, g.posFi, "",
					fmt.Sprintf("is empty, but %s of the same order gives a position: give every line of the order a position, or none", strings.TrimPrefix(d.where(firstGiven), "on ")), false))
			}
			continue
		}
		p := *pos(i)
		if prev, dup := seen[p]; dup {
			gr.doc.Issues = append(gr.doc.Issues, d.issueAt(l.row, g.posFi, strconv.Itoa(p),
				fmt.Sprintf("position %d is already used %s of the same order: positions must be unique within an order", p, d.where(prev)), false))
			continue
		}
		seen[p] = l.row
	}
}

// keyIndex numbers the orders of a file in order of first appearance, with
// their number of rows. Rows without an order number are an order each.
type keyIndex struct {
	ord map[string]int32
	// noKey are the ordinals of the rows without key, in file order.
	noKey []int32
	// rows counts the rows of each order, by ordinal.
	rows []int32
	// adjacent says the rows of every order are next to each other.
	adjacent bool
}

// ordinal returns the ordinal of key; for an empty key, the one of the
// *noKeyAt-th row without key of the pass, counting it.
func (x *keyIndex) ordinal(key string, noKeyAt *int) int32 {
	if key == "" {
		if *noKeyAt >= len(x.noKey) {
			return -1 // not indexed: the index pass stopped before
		}
		*noKeyAt++
		return x.noKey[*noKeyAt-1]
	}
	if o, ok := x.ord[key]; ok {
		return o
	}
	return -1
}

// indexKeys reads the keys of the data rows of src (its header read
// already) in a first pass. It stops where the rows end or the file has a
// problem (the decoding pass reports it).
func (d *decoder) indexKeys(src rowSource, first *firstRow) (*keyIndex, error) {
	x := &keyIndex{ord: map[string]int32{}, adjacent: true}
	last := int32(-1)
	cells := d.cells
	defer func() { d.cells = cells }()
	_, err := eachRow(d.ctx, src, d.file, first, func(_ int, row []string, _ *rowError) error {
		d.cells = row
		key, _ := d.cellText(d.keyFi)
		o, ok := x.ord[key]
		switch {
		case key == "":
			o = int32(len(x.rows))
			x.noKey = append(x.noKey, o)
			x.rows = append(x.rows, 0)
		case !ok:
			o = int32(len(x.rows))
			x.ord[strings.Clone(key)] = o
			x.rows = append(x.rows, 0)
		case o != last:
			x.adjacent = false
		}
		x.rows[o]++
		last = o
		return nil
	})
	if err != nil {
		return nil, err
	}
	return x, nil
}
