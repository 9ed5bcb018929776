package formats

import (
	"fmt"
	"slices"
	"strings"

	"filebridge/internal/model"
)

// newDoc makes the document of a master-data row, and points d.t at it.
func (d *decoder) newDoc() Doc {
	// Only the document pointer of the decoder's kind is ever set in d.t:
	// overwriting it resets the target.
	t := &d.t
	doc := Doc{Kind: d.kind, Rows: []int{d.row}}
	switch d.kind {
	case model.KindPartner:
		t.partner = new(model.Partner)
		doc.Partner = t.partner
	case model.KindItem:
		t.item = new(model.Item)
		doc.Item = t.item
	case model.KindPackaging:
		t.pack = new(model.Packaging)
		doc.Packaging = t.pack
	}
	return doc
}

// master checks the document of one master-data row, with the values of
// the row already written into it, and hands it on.
func (d *decoder) master(doc Doc) error {
	for _, fi := range d.required {
		if !d.set[fi] {
			d.require(fi, "")
		}
	}
	d.enumDefaults(&d.t)
	if d.kind == model.KindItem {
		d.checkEANBox(d.itemBox, "")
	}
	doc.Key = d.text(d.keyFi)
	if doc.Key != "" {
		d.checkUnique(doc.Key)
	}
	if len(d.issues) > 0 {
		doc.Issues = slices.Clone(d.issues)
	}
	return d.emit(doc)
}

// checkUnique reports a key already seen on an earlier row of the file.
func (d *decoder) checkUnique(key string) {
	what, setKey := label(d.lay.spec.Key), key
	if d.kind == model.KindPackaging {
		sku := d.text(d.skuFi)
		what, setKey = fmt.Sprintf("packaging code of SKU %q", sku), sku+"\x00"+key
	}
	first, dup := d.seen.add(setKey, int32(d.row))
	if dup {
		d.fieldIssue(d.keyFi, key, fmt.Sprintf("%s %q already appears %s: each one may appear only once in a file", what, key, d.where(int(first))))
	}
}

// where names a row for a message: "on line 5" (CSV) or "on row 5" (XLSX).
func (d *decoder) where(row int) string {
	if d.src.sheet() != "" {
		return fmt.Sprintf("on row %d", row)
	}
	return fmt.Sprintf("on line %d", row)
}

// enumDefaults fills a partner's relationship when the edition allows one
// value only (suppliers of Edition A are always manufacturers).
func (d *decoder) enumDefaults(t *target) {
	if t.partner == nil || t.partner.Relationship != "" {
		return
	}
	if fi := d.relFi; fi >= 0 && !d.set[fi] {
		if e := d.lay.fields[fi].Enum; len(e) == 1 {
			t.partner.Relationship = e[0]
		}
	}
}

// boxPair are the field indexes of a quantity per box and its carton EAN.
type boxPair struct{ qty, ean int }

func (d *decoder) boxPair(prefix string) boxPair {
	return boxPair{d.lay.fieldIndex(prefix + "quantityPerBox"), d.lay.fieldIndex(prefix + "eanBox")}
}

// checkEANBox requires the master-carton EAN when a carton holds more than
// one unit (Edition A).
func (d *decoder) checkEANBox(b boxPair, context string) {
	qi, bi := b.qty, b.ean
	if qi < 0 || bi < 0 || !d.ok(qi) || d.set[bi] || !greaterThanOne(d.vals[qi].d) {
		return
	}
	d.fieldIssue(bi, "", fmt.Sprintf("%sthe EAN of the master carton is required when %s is above 1 (it is %s)", context, d.lay.fields[qi].Name, d.vals[qi].d))
}

// greaterThanOne compares a canonical decimal with 1.
func greaterThanOne(x model.Decimal) bool {
	if len(x) == 1 { // one digit: the common quantity
		return x[0] > '1'
	}
	if x.Sign() <= 0 {
		return false
	}
	ip, frac := string(x), ""
	if i := strings.IndexByte(ip, '.'); i >= 0 {
		ip, frac = ip[:i], ip[i+1:]
	}
	return ip != "0" && (ip != "1" || frac != "")
}
