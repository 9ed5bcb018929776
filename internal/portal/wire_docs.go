package portal

import (
	"filebridge/internal/model"
)

// The one table of every document kind per edition (wireTables) that
// lists, reads and creates go through. Responses are read into the model
// documents by their `wire` tags (read.go); requests are the declarations
// of internal/model (model.Body).

// docKind is what the client says of one document kind in one edition:
// its collection, what the edition calls it, and the properties a refusal
// of its unique key names.
type docKind struct {
	res  Resource
	what string
	keys []string
}

// docWire is the wire form of one document kind in one edition: its
// docKind, its request body (nil for a kind only read) and its readers of
// one document and of a page.
type docWire[M any] struct {
	docKind
	body func(company int64, m M) any
	one  func(raw []byte) (M, error)
	page func(b []byte) (page[M], error)
}

// bodyOf is the create request of kind k in edition e: its declaration
// filled from the document (model.Body).
func bodyOf[M any](e model.Edition, k model.Kind) func(int64, M) any {
	return func(company int64, m M) any { return model.Body(e, k, m, map[string]any{"company": company}) }
}

// docOf is the docWire of the model document M, read by its tags and then
// completed by fix (nil for none).
func docOf[M any](res Resource, what string, keys []string, body func(int64, M) any, fix func(*M)) docWire[M] {
	one := func(raw []byte) (M, error) {
		m, err := readDoc[M](raw)
		if err == nil && fix != nil {
			fix(&m)
		}
		return m, err
	}
	return docWire[M]{docKind: docKind{res: res, what: what, keys: keys}, body: body,
		one: one, page: func(b []byte) (page[M], error) { return decodePage(b, one) }}
}

// fixUnit gives a shipping unit's events the unit's numbers and order
// when they do not embed it.
func fixUnit(u *model.ShippingUnit) {
	for i := range u.Events {
		ev := &u.Events[i]
		if ev.ShippingUnitNumber == "" {
			ev.ShippingUnitNumber, ev.TrackingNumber = u.ShippingUnitNumber, u.ShippingTrackingNumber
		}
		if ev.OrderNumber == "" {
			ev.OrderNumber = u.OrderNumber
		}
	}
}

// fixOutbound gives a sales order's shipping units its number when they do
// not embed it (their events only what the unit itself says, as before).
func fixOutbound(o *model.Outbound) {
	for i := range o.ShippingUnits {
		u := &o.ShippingUnits[i]
		fixUnit(u)
		if u.OrderNumber == "" {
			u.OrderNumber = o.OrderNumber
		}
	}
}

// wireTable is an edition's table of the documents both editions have but
// write differently, a docWire per kind. Stocks are the same in both
// (stocksDoc).
type wireTable struct {
	partners  docWire[model.Partner]
	items     docWire[model.Item]
	inbounds  docWire[model.Inbound]
	outbounds docWire[model.Outbound]
	movements docWire[model.Movement]
}

// stocksDoc is the stock record of both editions.
var stocksDoc = docOf[model.Stock](Stocks, "stock", nil, nil, nil)

// wireTables is the one table of both editions' documents.
var wireTables = map[model.Edition]*wireTable{
	model.EditionA: editionTable(model.EditionA, "supplier", "reception", "order"),
	model.EditionB: editionTable(model.EditionB, "connection", "purchase order", "sales order"),
}

// editionTable is the wireTable of edition e, which calls its partners,
// inbounds and outbounds by these names.
func editionTable(e model.Edition, partner, inbound, outbound string) *wireTable {
	return &wireTable{
		partners:  docOf[model.Partner](Connections, partner, []string{"code"}, bodyOf[model.Partner](e, model.KindPartner), nil),
		items:     docOf[model.Item](Variants, "SKU", []string{"sku"}, bodyOf[model.Item](e, model.KindItem), nil),
		inbounds:  docOf[model.Inbound](PurchaseOrders, inbound, []string{"orderNumber"}, bodyOf[model.Inbound](e, model.KindInbound), nil),
		outbounds: docOf[model.Outbound](SalesOrders, outbound, []string{"orderNumber"}, bodyOf[model.Outbound](e, model.KindOutbound), fixOutbound),
		movements: docOf[model.Movement](StockMovements, "stock movement", nil, nil, nil),
	}
}

// The documents only Edition B has. A packaging's body needs its
// variant's IRI (CreatePackaging); the others are only read.
var (
	packagingsB       = docOf[model.Packaging](VariantPackagings, "packaging", []string{"code", "variant"}, nil, nil)
	warehouseClientsB = docOf[WarehouseClient](WarehouseClients, "warehouse client", nil, nil, nil)
	carriersB         = docOf[Carrier](Carriers, "carrier", nil, nil, nil)
	carrierServicesB  = docOf[CarrierService](CarrierServices, "carrier service", nil, nil, nil)
	fulfillmentsB     = docOf[model.Shipment](Fulfillments, "fulfillment", nil, nil, nil)
	shippingUnitsB    = docOf[model.ShippingUnit](ShippingUnits, "shipping unit", nil, nil, fixUnit)
	eventsB           = docOf[model.TrackingEvent](ShippingUnitEvents, "shipping unit event", nil, nil, nil)
)
