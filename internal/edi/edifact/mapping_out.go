package edifact

import "filebridge/internal/edi"

// The outbound messages as a partner reads them: where each column of the
// export lands (Export writes them; these tables read them back, in the
// round-trip tests and in docs/edi-edifact.md).
var (
	recadvOut = &edi.Table{
		Standard: "EDIFACT", Set: "RECADV", Name: "Receiving advice (written)", DocType: "receipts",
		LineTag: "LIN",
		Fields: []edi.Field{
			{Tag: "BGM", Elem: 2, Column: "orderNumber", Note: "the reception (A) or purchase order (B) number"},
			{Tag: "DTM", Qual: edi.Qualifier{Elem: 1, Value: "50"}, Elem: 1, Comp: 2, Column: "receivedAt", Convert: DateTime, Note: "goods receipt date/time, UTC"},
			{Tag: "RFF", Qual: edi.Qualifier{Elem: 1, Value: "ON"}, Elem: 1, Comp: 2, Column: "referenceNumber", Note: "order number"},
			{Tag: "NAD", Qual: edi.Qualifier{Elem: 1, Value: "SU"}, Elem: 2, Column: "supplierCode", Note: "supplier"},
			{Tag: "NAD", Qual: edi.Qualifier{Elem: 1, Value: "DP"}, Elem: 2, Column: "warehouse", Note: "the warehouse"},
			{Tag: "STS", Elem: 2, Column: "statusCode", Note: "status code (80 received, 75 partially)"},
			{Tag: "STS", Elem: 2, Comp: 4, Column: "statusName", Note: "status name"},
			{Tag: "LIN", Elem: 1, Column: "position", Level: edi.Line, Note: "line position"},
			{Tag: "PIA", Qual: edi.Qualifier{Elem: 1, Value: "5"}, Elem: 2, Column: "sku", Level: edi.Line, Note: "SKU code (type SA)"},
			{Tag: "QTY", Qual: edi.Qualifier{Elem: 1, Value: "48"}, Elem: 1, Comp: 2, Column: "quantityReceived", Level: edi.Line, Note: "received quantity"},
			{Tag: "QTY", Qual: edi.Qualifier{Elem: 1, Value: "21"}, Elem: 1, Comp: 2, Column: "quantityOrdered", Level: edi.Line, Note: "quantity announced"},
			{Tag: "GIN", Qual: edi.Qualifier{Elem: 1, Value: "BX"}, Elem: 2, Column: "lotNumber", Level: edi.Line, Note: "batch number (B)"},
			{Tag: "DTM", Qual: edi.Qualifier{Elem: 1, Value: "361"}, Elem: 1, Comp: 2, Column: "expiryDate", Level: edi.Line, Convert: DateTime, Note: "best before date (B)"},
			{Tag: "RFF", Qual: edi.Qualifier{Elem: 1, Value: "AFO"}, Elem: 1, Comp: 2, Column: "ownerCode", Level: edi.Line, Note: "stock owner (B)"},
		},
	}
	desadvOut = &edi.Table{
		Standard: "EDIFACT", Set: "DESADV", Name: "Despatch advice (written: shipments)", DocType: "shipments",
		LineTag: "LIN",
		Fields: []edi.Field{
			{Tag: "BGM", Elem: 2, Column: "fulfillmentNumber", Note: "the fulfillment (B), else the order number (A)"},
			{Tag: "DTM", Qual: edi.Qualifier{Elem: 1, Value: "11"}, Elem: 1, Comp: 2, Column: "shippedAt", Convert: DateTime, Note: "despatch date/time, UTC"},
			{Tag: "RFF", Qual: edi.Qualifier{Elem: 1, Value: "ON"}, Elem: 1, Comp: 2, Column: "orderNumber", Note: "order (A) or sales order (B) number"},
			{Tag: "RFF", Qual: edi.Qualifier{Elem: 1, Value: "CR"}, Elem: 1, Comp: 2, Column: "externalOrderNumber", Note: "the customer's order number"},
			{Tag: "RFF", Qual: edi.Qualifier{Elem: 1, Value: "CN"}, Elem: 1, Comp: 2, Column: "trackingNumber", Note: "carrier's tracking number"},
			{Tag: "TDT", Elem: 5, Column: "carrierCode", Note: "carrier code"},
			{Tag: "TDT", Elem: 5, Comp: 4, Column: "carrierName", Note: "carrier name"},
			{Tag: "LIN", Elem: 1, Column: "position", Level: edi.Line, Note: "order line position"},
			{Tag: "PIA", Qual: edi.Qualifier{Elem: 1, Value: "5"}, Elem: 2, Column: "sku", Level: edi.Line, Note: "SKU code (type SA)"},
			{Tag: "QTY", Qual: edi.Qualifier{Elem: 1, Value: "12"}, Elem: 1, Comp: 2, Column: "quantityShipped", Level: edi.Line, Note: "despatched quantity"},
			{Tag: "QTY", Qual: edi.Qualifier{Elem: 1, Value: "21"}, Elem: 1, Comp: 2, Column: "quantityOrdered", Level: edi.Line, Note: "ordered quantity, when known"},
			{Tag: "QVR", Elem: 1, Column: "quantityUnfulfillable", Level: edi.Line, Note: "quantity that cannot be shipped (B)"},
			{Tag: "QVR", Elem: 3, Column: "reasonCode", Level: edi.Line, Note: "why (B)"},
			{Tag: "FTX", Qual: edi.Qualifier{Elem: 1, Value: "AAI"}, Elem: 4, Column: "reasonComment", Level: edi.Line, Note: "comment on the reason (B)"},
			{Tag: "GIN", Qual: edi.Qualifier{Elem: 1, Value: "BX"}, Elem: 2, Column: "lotNumber", Level: edi.Line, Note: "batch number (B)"},
			{Tag: "DTM", Qual: edi.Qualifier{Elem: 1, Value: "361"}, Elem: 1, Comp: 2, Column: "expiryDate", Level: edi.Line, Convert: DateTime, Note: "best before date (B)"},
			{Tag: "RFF", Qual: edi.Qualifier{Elem: 1, Value: "AFO"}, Elem: 1, Comp: 2, Column: "ownerCode", Level: edi.Line, Note: "stock owner (B)"},
		},
	}
	invrptStockOut = &edi.Table{
		Standard: "EDIFACT", Set: "INVRPT", Name: "Inventory report (written: stock)", DocType: "stock",
		LineTag: "LIN",
		Fields: []edi.Field{
			{Tag: "LIN", Elem: 3, Column: "ean", Level: edi.Line, Note: "EAN of the selling unit"},
			{Tag: "PIA", Qual: edi.Qualifier{Elem: 1, Value: "5"}, Elem: 2, Column: "sku", Level: edi.Line, Note: "SKU code (type SA)"},
			{Tag: "IMD", Elem: 3, Comp: 4, Column: "name", Level: edi.Line, Note: "SKU name"},
			{Tag: "QTY", Qual: edi.Qualifier{Elem: 1, Value: "145"}, Elem: 1, Comp: 2, Column: "available", Level: edi.Line, Note: "actual stock: available for picking"},
			{Tag: "QTY", Qual: edi.Qualifier{Elem: 1, Value: "198"}, Elem: 1, Comp: 2, Column: "incoming", Level: edi.Line, Note: "in transit: on receptions not yet received"},
			{Tag: "QTY", Qual: edi.Qualifier{Elem: 1, Value: "66"}, Elem: 1, Comp: 2, Column: "allocated", Level: edi.Line, Note: "committed: on orders not yet shipped"},
			{Tag: "QTY", Qual: edi.Qualifier{Elem: 1, Value: "89"}, Elem: 1, Comp: 2, Column: "locked", Level: edi.Line, Note: "held: blocked in the warehouse"},
			{Tag: "DTM", Qual: edi.Qualifier{Elem: 1, Value: "179"}, Elem: 1, Comp: 2, Column: "updatedAt", Level: edi.Line, Convert: DateTime, Note: "last change of the stock record"},
		},
	}
	invrptMovementsOut = &edi.Table{
		Standard: "EDIFACT", Set: "INVRPT", Name: "Inventory report (written: movements)", DocType: "movements",
		LineTag: "LIN", Loops: []string{"INV"},
		Fields: []edi.Field{
			{Tag: "PIA", Qual: edi.Qualifier{Elem: 1, Value: "5"}, Elem: 2, Column: "sku", Level: edi.Line, Note: "SKU code (type SA)"},
			{Loop: "INV", LoopQual: edi.Qualifier{Elem: 1, Value: "1"}, Tag: "QTY", Qual: edi.Qualifier{Elem: 1, Value: "199"}, Elem: 1, Comp: 2, Column: "quantity", Level: edi.Line, Note: "quantity moved out (withdrawal)"},
			{Loop: "INV", LoopQual: edi.Qualifier{Elem: 1, Value: "1"}, Tag: "LOC", Elem: 2, Column: "fromPosition", Level: edi.Line, Note: "the stock position left"},
			{Loop: "INV", LoopQual: edi.Qualifier{Elem: 1, Value: "1"}, Tag: "DTM", Qual: edi.Qualifier{Elem: 1, Value: "179"}, Elem: 1, Comp: 2, Column: "movedAt", Level: edi.Line, Convert: DateTime, Note: "time of the movement"},
			{Loop: "INV", LoopQual: edi.Qualifier{Elem: 1, Value: "1"}, Tag: "GIN", Qual: edi.Qualifier{Elem: 1, Value: "BX"}, Elem: 2, Column: "fromLotNumber", Level: edi.Line, Note: "lot before (B)"},
			{Loop: "INV", LoopQual: edi.Qualifier{Elem: 1, Value: "2"}, Tag: "LOC", Elem: 2, Column: "toPosition", Level: edi.Line, Note: "the stock position reached (no INV+2: a loss)"},
			{Loop: "INV", LoopQual: edi.Qualifier{Elem: 1, Value: "2"}, Tag: "GIN", Qual: edi.Qualifier{Elem: 1, Value: "BX"}, Elem: 2, Column: "toLotNumber", Level: edi.Line, Note: "lot after (B)"},
			{Tag: "FTX", Qual: edi.Qualifier{Elem: 1, Value: "AAI"}, Elem: 4, Column: "comment", Level: edi.Line, Note: "the warehouse's comment"},
		},
	}
)

// OutTables are the outbound messages' tables.
var OutTables = []*edi.Table{recadvOut, desadvOut, invrptStockOut, invrptMovementsOut}
