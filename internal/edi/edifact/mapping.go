package edifact

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"filebridge/internal/edi"
	"filebridge/internal/model"
)

// DateTime converts a DTM value of format 102 (CCYYMMDD) or 203
// (CCYYMMDDHHMM) into a date or an RFC 3339 instant in UTC.
var DateTime = &edi.Conversion{Name: "DTM format 102 CCYYMMDD or 203 CCYYMMDDHHMM → date / UTC instant", Fn: func(v string) string {
	if len(v) == 12 {
		return v[:4] + "-" + v[4:6] + "-" + v[6:8] + "T" + v[8:10] + ":" + v[10:12] + ":00Z"
	}
	return edi.Date.Fn(v)
}, Back: func(v string) string {
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t.UTC().Format("200601021504")
	}
	return strings.ReplaceAll(v, "-", "")
}}

// The inbound messages (EANCOM D.96A; the segments and elements mapped
// here are the same in D.01B, where BGM 1004 became the first component of
// C106). One table per message; columns absent from an edition's document
// type are left out for that edition (shipToCode, warehouseCode,
// carrierCode, lotNumber... are Edition B's).
var (
	// party maps the name and address of a NAD with qualifier q onto the
	// columns prefix+name etc.
	orders = &edi.Table{
		Standard: "EDIFACT", Set: "ORDERS", Name: "Purchase order", DocType: "orders",
		LineTag: "LIN",
		Fields: slices.Concat([]edi.Field{
			{Tag: "BGM", Elem: 2, Column: "orderNumber", Note: "document number: the buyer's order number"},
			{Tag: "BGM", Elem: 2, Column: "externalOrderNumber", Note: "the same number, as the customer's own order number"},
			{Tag: "DTM", Qual: edi.Qualifier{Elem: 1, Value: "2"}, Elem: 1, Comp: 2, Column: "plannedDeliveryDate", Convert: DateTime, Note: "delivery date requested"},
			{Tag: "NAD", Qual: edi.Qualifier{Elem: 1, Value: "DP"}, Elem: 2, Column: "shipToCode", Note: "delivery party identification (GLN)"},
			{Tag: "NAD", Qual: edi.Qualifier{Elem: 1, Value: "SF"}, Elem: 2, Column: "warehouseCode", Note: "ship-from party: the warehouse's code"},
			{Tag: "NAD", Qual: edi.Qualifier{Elem: 1, Value: "IV"}, Elem: 2, Column: "billingToCode", Note: "invoicee identification"},
			{Tag: "TDT", Elem: 5, Column: "carrierCode", Note: "carrier identification"},
		}, address("DP", "shipTo."), lines("21", "ordered quantity")),
	}
	desadv = &edi.Table{
		Standard: "EDIFACT", Set: "DESADV", Name: "Despatch advice (inbound ASN)", DocType: "receptions",
		LineTag: "LIN",
		Fields: slices.Concat([]edi.Field{
			{Tag: "BGM", Elem: 2, Column: "orderNumber", Note: "despatch advice number: the delivery's number"},
			{Tag: "RFF", Qual: edi.Qualifier{Elem: 1, Value: "ON"}, Elem: 1, Comp: 2, Column: "referenceNumber", Note: "order number (buyer) the goods were ordered under"},
			{Tag: "DTM", Qual: edi.Qualifier{Elem: 1, Value: "132"}, Elem: 1, Comp: 2, Column: "dueAt", Convert: DateTime, Note: "arrival date/time, estimated"},
			{Tag: "DTM", Qual: edi.Qualifier{Elem: 1, Value: "17"}, Elem: 1, Comp: 2, Column: "dueAt", Convert: DateTime, Note: "delivery date/time, estimated (when no 132 comes first)"},
			{Tag: "NAD", Qual: edi.Qualifier{Elem: 1, Value: "SU"}, Elem: 2, Column: "supplierCode", Note: "supplier identification"},
			{Tag: "NAD", Qual: edi.Qualifier{Elem: 1, Value: "DP"}, Elem: 2, Column: "warehouseCode", Note: "delivery party: the warehouse's code"},
		}, lines("12", "despatched quantity"), []edi.Field{
			{Tag: "GIN", Qual: edi.Qualifier{Elem: 1, Value: "BX"}, Elem: 2, Column: "lotNumber", Level: edi.Line, Note: "batch number"},
			{Tag: "DTM", Qual: edi.Qualifier{Elem: 1, Value: "361"}, Elem: 1, Comp: 2, Column: "expiryDate", Level: edi.Line, Convert: DateTime, Note: "best before date"},
		}),
	}
	pricat = &edi.Table{
		Standard: "EDIFACT", Set: "PRICAT", Name: "Price/sales catalogue", DocType: "skus",
		LineTag: "LIN",
		Fields: []edi.Field{
			{Tag: "NAD", Qual: edi.Qualifier{Elem: 1, Value: "SU"}, Elem: 2, Column: "supplierCode", Note: "supplier identification"},
			{Tag: "LIN", Elem: 3, Column: "ean", Level: edi.Line, Note: "item number: the selling unit's GTIN (type EN/SRV)"},
			{Tag: "PIA", Qual: edi.Qualifier{Elem: 1, Value: "5"}, Elem: 2, Column: "sku", Level: edi.Line, Note: "product identification: the SKU code (type SA)"},
			{Tag: "PIA", Qual: edi.Qualifier{Elem: 1, Value: "1"}, Elem: 2, Column: "eanBox", Level: edi.Line, Note: "additional identification: the master carton's GTIN"},
			{Tag: "IMD", Elem: 3, Comp: 4, Column: "name", Level: edi.Line, Note: "item description"},
			{Tag: "IMD", Elem: 3, Comp: 5, Column: "description1", Level: edi.Line, Note: "item description, continued"},
			{Tag: "QTY", Qual: edi.Qualifier{Elem: 1, Value: "52"}, Elem: 1, Comp: 2, Column: "quantityPerBox", Level: edi.Line, Note: "quantity per pack"},
			{Tag: "MEA", Qual: edi.Qualifier{Elem: 2, Value: "LN"}, Elem: 3, Comp: 2, Column: "length", Level: edi.Line, Note: "length, CMT"},
			{Tag: "MEA", Qual: edi.Qualifier{Elem: 2, Value: "WD"}, Elem: 3, Comp: 2, Column: "width", Level: edi.Line, Note: "width, CMT"},
			{Tag: "MEA", Qual: edi.Qualifier{Elem: 2, Value: "HT"}, Elem: 3, Comp: 2, Column: "height", Level: edi.Line, Note: "height, CMT"},
			{Tag: "MEA", Qual: edi.Qualifier{Elem: 2, Value: "AAB"}, Elem: 3, Comp: 2, Column: "grossWeight", Level: edi.Line, Note: "unit gross weight, KGM"},
			{Tag: "MEA", Qual: edi.Qualifier{Elem: 2, Value: "G"}, Elem: 3, Comp: 2, Column: "grossWeightBox", Level: edi.Line, Note: "gross weight of the master carton, KGM"},
			{Tag: "PRI", Qual: edi.Qualifier{Elem: 1, Value: "AAA"}, Elem: 1, Comp: 2, Column: "buyPrice", Level: edi.Line, Note: "calculation net price"},
		},
	}
)

// address maps the name and address of the NAD with qualifier q (NAD 04
// name, 05 street, 06 city, 07 country sub-entity, 08 postcode, 09
// country) onto prefix-named columns.
func address(q, prefix string) []edi.Field {
	f := func(elem, comp int, col, note string) edi.Field {
		return edi.Field{Tag: "NAD", Qual: edi.Qualifier{Elem: 1, Value: q}, Elem: elem, Comp: comp, Column: prefix + col, Note: note}
	}
	return []edi.Field{
		f(4, 1, "name", "name and address, line 1"),
		f(5, 1, "streetAddress", "street, line 1"),
		f(5, 2, "streetAddress2", "street, line 2"),
		f(5, 3, "streetAddress3", "street, line 3"),
		f(6, 0, "city", "city name"),
		f(7, 0, "state", "country sub-entity"),
		f(8, 0, "zipcode", "postal code"),
		f(9, 0, "countryCode", "country, ISO 3166 alpha-2"),
	}
}

// lines are the line item fields of ORDERS and DESADV: LIN position, PIA
// SKU, QTY with qualifier qty.
func lines(qty, note string) []edi.Field {
	return []edi.Field{
		{Tag: "LIN", Elem: 1, Column: "position", Level: edi.Line, Note: "line item number"},
		{Tag: "PIA", Qual: edi.Qualifier{Elem: 1, Value: "5"}, Elem: 2, Column: "sku", Level: edi.Line, Note: "product identification: the SKU code (type SA)"},
		{Tag: "QTY", Qual: edi.Qualifier{Elem: 1, Value: qty}, Elem: 1, Comp: 2, Column: "quantity", Level: edi.Line, Note: note},
	}
}

// Tables are the inbound mapping tables, one per message.
var Tables = []*edi.Table{orders, desadv, pricat}

// TableFor returns the table that maps message type msg onto the document
// type dt of edition e, and the columns of that table the edition's
// document type has.
func TableFor(e model.Edition, msg string, dt model.DocType) (*edi.Table, []string, error) {
	var want []string
	for _, t := range Tables {
		tdt, err := model.LookupDocType(e, t.DocType)
		if err != nil || tdt.Kind != dt.Kind {
			continue
		}
		if t.Set != msg {
			want = append(want, t.Set)
			continue
		}
		spec, _ := model.SpecFor(e, dt.Kind)
		return t, t.Columns(func(c string) bool { _, ok := spec.Field(c); return ok }), nil
	}
	if len(want) == 0 {
		return nil, nil, fmt.Errorf("no EDIFACT message maps onto %s: EDIFACT files carry %s", dt.Name, strings.Join(docTypeNames(e), ", "))
	}
	return nil, nil, fmt.Errorf("a %s message cannot be read as %s: the route wants %s", msg, dt.Name, strings.Join(want, " or "))
}

// docTypeNames lists the document types some table feeds in edition e.
func docTypeNames(e model.Edition) []string {
	var out []string
	for _, t := range Tables {
		if dt, err := model.LookupDocType(e, t.DocType); err == nil {
			out = append(out, dt.Name+" ("+t.Set+")")
		}
	}
	return out
}
