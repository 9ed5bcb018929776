package x12

import "filebridge/internal/edi"

// q is a qualifier: element elem holds value.
func q(elem int, value string) edi.Qualifier { return edi.Qualifier{Elem: elem, Value: value} }

// party maps the N1 loop of entity code code (N1, N3, N4, PER) onto the
// columns prefix+name...; columns an edition lacks are dropped later.
func party(code, prefix string, level edi.Level) []edi.Field {
	lq := q(1, code)
	return []edi.Field{
		{Loop: "N1", LoopQual: lq, Tag: "N1", Elem: 2, Column: prefix + "name", Level: level, Note: "name"},
		{Loop: "N1", LoopQual: lq, Tag: "N2", Elem: 1, Column: prefix + "contactName", Level: level, Note: "additional name (Edition B)"},
		{Loop: "N1", LoopQual: lq, Tag: "N3", Elem: 1, Column: prefix + "streetAddress", Level: level},
		{Loop: "N1", LoopQual: lq, Tag: "N3", Elem: 2, Column: prefix + "streetAddress2", Level: level},
		{Loop: "N1", LoopQual: lq, Tag: "N4", Elem: 1, Column: prefix + "city", Level: level},
		{Loop: "N1", LoopQual: lq, Tag: "N4", Elem: 2, Column: prefix + "state", Level: level, Note: "Edition B"},
		{Loop: "N1", LoopQual: lq, Tag: "N4", Elem: 3, Column: prefix + "zipcode", Level: level},
		{Loop: "N1", LoopQual: lq, Tag: "N4", Elem: 4, Column: prefix + "countryCode", Level: level},
		{Loop: "N1", LoopQual: lq, Tag: "PER", Qual: q(3, "TE"), Elem: 4, Column: prefix + "phone", Level: level, Note: "PER03 = TE"},
		{Loop: "N1", LoopQual: lq, Tag: "PER", Qual: q(5, "EM"), Elem: 6, Column: prefix + "email", Level: level, Note: "PER05 = EM"},
	}
}

// product maps the product identifier of tag (element qualifier qe, value
// ve) for the qualifiers partners use for the warehouse's item code.
func product(tag string, qe, ve int, column string) []edi.Field {
	return []edi.Field{
		{Tag: tag, Qual: q(qe, "SK"), Elem: ve, Column: column, Level: edi.Line, Note: "stock keeping unit (qualifier SK)"},
		{Tag: tag, Qual: q(qe, "VN"), Elem: ve, Column: column, Level: edi.Line, Note: "vendor's item number (qualifier VN)"},
		{Tag: tag, Qual: q(qe, "BP"), Elem: ve, Column: column, Level: edi.Line, Note: "buyer's part number (qualifier BP)"},
	}
}

func join(parts ...[]edi.Field) []edi.Field {
	var out []edi.Field
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// Tables are the inbound sets filebridge reads, by set identifier (ST01).
// Columns are those of model's document specs; a column the route's edition
// lacks is left out.
var Tables = map[string]*edi.Table{
	"940": {
		Standard: "X12", Set: "940", Name: "Warehouse Shipping Order", DocType: "orders",
		LineTag: "W01", LineOpen: "LX", Loops: []string{"N1"},
		Fields: join(
			[]edi.Field{
				{Tag: "W05", Elem: 2, Column: "orderNumber", Note: "depositor order number"},
				{Tag: "W05", Elem: 3, Column: "externalOrderNumber", Note: "purchase order number"},
				{Loop: "N1", LoopQual: q(1, "WH"), Tag: "N1", Elem: 4, Column: "warehouseLocation", Note: "the warehouse's id (N101 = WH)"},
				{Loop: "N1", LoopQual: q(1, "ST"), Tag: "N1", Elem: 4, Column: "shipToCode", Note: "ship-to party code (Edition B)"},
				{Tag: "G62", Qual: q(1, "02"), Elem: 2, Column: "plannedDeliveryDate", Convert: edi.Date, Note: "delivery requested (G6201 = 02; Edition B)"},
				{Tag: "W66", Elem: 10, Column: "carrierCode", Note: "carrier SCAC (Edition B)"},
			},
			party("ST", "shipTo.", edi.Header),
			[]edi.Field{
				{Tag: "LX", Elem: 1, Column: "position", Level: edi.Line, Note: "line number"},
				{Tag: "W01", Elem: 1, Column: "quantity", Level: edi.Line, Note: "quantity ordered"},
			},
			product("W01", 4, 5, "sku"),
			[]edi.Field{
				{Tag: "N9", Qual: q(1, "LT"), Elem: 2, Column: "lotNumber", Level: edi.Line, Note: "lot number (N901 = LT; Edition B)"},
			},
		),
	},
	"943": {
		Standard: "X12", Set: "943", Name: "Warehouse Stock Transfer Shipment Advice", DocType: "receptions",
		LineTag: "W04", LineOpen: "LX", Loops: []string{"N1"},
		Fields: join(
			[]edi.Field{
				{Tag: "W06", Elem: 2, Column: "orderNumber", Note: "depositor order number"},
				{Tag: "W06", Elem: 4, Column: "referenceNumber", Note: "shipment identification"},
				{Loop: "N1", LoopQual: q(1, "SF"), Tag: "N1", Elem: 4, Column: "supplierCode", Note: "ship-from (N101 = SF) code"},
				{Loop: "N1", LoopQual: q(1, "ST"), Tag: "N1", Elem: 4, Column: "warehouseLocation", Note: "the receiving warehouse's id (N101 = ST)"},
				{Tag: "G62", Qual: q(1, "17"), Elem: 2, Column: "dueAt", Convert: edi.Date, Note: "estimated delivery (G6201 = 17)"},
				{Tag: "LX", Elem: 1, Column: "position", Level: edi.Line, Note: "line number"},
				{Tag: "W04", Elem: 1, Column: "quantity", Level: edi.Line, Note: "number of units shipped"},
			},
			product("W04", 4, 5, "sku"),
			[]edi.Field{
				{Tag: "N9", Qual: q(1, "LT"), Elem: 2, Column: "lotNumber", Level: edi.Line, Note: "lot number (N901 = LT; Edition B)"},
				{Tag: "G62", Qual: q(1, "36"), Elem: 2, Column: "expiryDate", Level: edi.Line, Convert: edi.Date, Note: "expiration (G6201 = 36; Edition B)"},
			},
		),
	},
	"832": {
		Standard: "X12", Set: "832", Name: "Price/Sales Catalog", DocType: "skus",
		LineTag: "LIN", Loops: []string{"N1"},
		Fields: join(
			[]edi.Field{
				{Loop: "N1", LoopQual: q(1, "VN"), Tag: "N1", Elem: 4, Column: "supplierCode", Note: "vendor (N101 = VN) code"},
				{Tag: "LIN", Qual: q(2, "SK"), Elem: 3, Column: "sku", Level: edi.Line, Note: "LIN02 = SK"},
				{Tag: "LIN", Qual: q(2, "VN"), Elem: 3, Column: "sku", Level: edi.Line, Note: "LIN02 = VN"},
				{Tag: "LIN", Qual: q(4, "UP"), Elem: 5, Column: "ean", Level: edi.Line, Note: "LIN04 = UP (U.P.C.)"},
				{Tag: "LIN", Qual: q(4, "EN"), Elem: 5, Column: "ean", Level: edi.Line, Note: "LIN04 = EN (EAN-13)"},
				{Tag: "LIN", Qual: q(6, "UK"), Elem: 7, Column: "eanBox", Level: edi.Line, Note: "LIN06 = UK (GTIN-14 of the carton)"},
				{Tag: "PID", Qual: q(2, "08"), Elem: 5, Column: "name", Level: edi.Line, Note: "product description (PID02 = 08)"},
				{Tag: "PID", Qual: q(2, "GEN"), Elem: 5, Column: "description1", Level: edi.Line, Note: "general description (PID02 = GEN)"},
				{Tag: "MEA", Qual: q(2, "LN"), Elem: 3, Column: "length", Level: edi.Line, Note: "centimetres"},
				{Tag: "MEA", Qual: q(2, "WD"), Elem: 3, Column: "width", Level: edi.Line, Note: "centimetres"},
				{Tag: "MEA", Qual: q(2, "HT"), Elem: 3, Column: "height", Level: edi.Line, Note: "centimetres"},
				{Tag: "MEA", Qual: q(2, "G"), Elem: 3, Column: "grossWeight", Level: edi.Line, Note: "kilograms, selling unit"},
				{Tag: "PO4", Elem: 1, Column: "quantityPerBox", Level: edi.Line, Note: "units per outer pack"},
				{Tag: "PO4", Elem: 6, Column: "grossWeightBox", Level: edi.Line, Note: "gross weight per pack, kilograms"},
				{Tag: "CTP", Elem: 3, Column: "buyPrice", Level: edi.Line, Note: "unit price"},
			},
		),
	},
}
