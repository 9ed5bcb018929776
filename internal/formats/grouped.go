package formats

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"filebridge/internal/model"
)

// grouper collects the rows of inbound and outbound orders into documents,
// one per orderNumber, in order of first appearance.
type grouper struct {
	d      *decoder
	byKey  map[string]*group
	order  []*group
	last   *group
	hdr    []int // indexes of the header-level fields
	posFi  int
	skuFi  int
	svcFi  int    // serviceType (Edition A orders), -1 otherwise
	linkFi [2]int // purchaseOrderLineItem.orderNumber and .position
	itemFi []int
	// itemReq are the item.* fields required when a line carries SKU master data.
	itemReq []int
}

// group is one order being built.
type group struct {
	doc   Doc
	first int
	last  int
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

func newGrouper(d *decoder) *grouper {
	g := &grouper{d: d, byKey: map[string]*group{}}
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
	return g
}

// add takes the current row of the decoder.
func (g *grouper) add() error {
	d := g.d
	key := d.text(d.keyFi)
	var gr *group
	if key != "" {
		gr = g.byKey[key]
	}
	isNew := gr == nil
	if isNew {
		gr = &group{first: d.row, hdr: make([]string, len(g.hdr)), hdrRow: make([]int, len(g.hdr))}
		gr.doc = Doc{Kind: d.kind, Key: key}
		if d.kind == model.KindInbound {
			gr.doc.Inbound = &model.Inbound{}
		} else {
			gr.doc.Outbound = &model.Outbound{}
		}
		if key != "" {
			g.byKey[key] = gr
		}
		g.order = append(g.order, gr)
	} else if g.last != gr {
		d.fieldIssue(d.keyFi, key, fmt.Sprintf("order %q already appeared %s, and other orders come in between: keep the rows of one order together (or remove the repeated order)", key, d.where(gr.last)))
	}
	g.last, gr.last = gr, d.row
	gr.doc.Rows = append(gr.doc.Rows, d.row)

	t := target{in: gr.doc.Inbound, out: gr.doc.Outbound}
	// Header fields: the first value given counts; later rows must agree.
	for k, fi := range g.hdr {
		if !d.set[fi] {
			continue
		}
		s := d.vals[fi].s
		if gr.hdr[k] == "" {
			gr.hdr[k], gr.hdrRow[k] = s, d.row
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
	posGiven := d.ok(g.posFi)
	if d.kind == model.KindInbound {
		g.inboundLine(gr, &t, posGiven)
	} else {
		g.outboundLine(gr, &t, posGiven)
	}
	if len(d.issues) > 0 {
		gr.doc.Issues = append(gr.doc.Issues, d.issues...)
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

func (g *grouper) inboundLine(gr *group, t *target, posGiven bool) {
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
	gr.lines = append(gr.lines, lineInfo{row: d.row, posGiven: posGiven, posSet: g.posFi >= 0 && d.set[g.posFi]})
}

func (g *grouper) outboundLine(gr *group, t *target, posGiven bool) {
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
		gr.svcs = append(gr.svcs, lineInfo{row: d.row, posGiven: posGiven, posSet: g.posFi >= 0 && d.set[g.posFi]})
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
	gr.lines = append(gr.lines, lineInfo{row: d.row, posGiven: posGiven, posSet: g.posFi >= 0 && d.set[g.posFi]})
}

// flush checks every order as a whole and hands the documents on.
func (g *grouper) flush() error {
	for i, gr := range g.order {
		g.finish(gr)
		slices.SortStableFunc(gr.doc.Issues, func(a, b Issue) int { return a.Row - b.Row })
		if err := g.d.emit(gr.doc); err != nil {
			return err
		}
		g.order[i] = nil // let the document go once handed on
	}
	return nil
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
	given := 0
	for _, l := range lines {
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
	firstGiven := 0
	for _, l := range lines {
		if l.posGiven {
			firstGiven = l.row
			break
		}
	}
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
