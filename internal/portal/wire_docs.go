package portal

import (
	"filebridge/internal/model"
)

// What both editions' documents share: the response heads the editions'
// wire types (wire_a.go, wire_b.go) embed, stocks and
// stock movements, and the one table of every document kind per edition
// (wireTables) that lists, reads and creates go through.

// dims are the dimensions and gross weight of an item or a packaging in
// both editions' responses.
type dims struct {
	Length      model.Decimal `json:"length,omitempty"`
	Width       model.Decimal `json:"width,omitempty"`
	Height      model.Decimal `json:"height,omitempty"`
	GrossWeight model.Decimal `json:"grossWeight,omitempty"`
}

// The heads of the documents both editions have: what they carry alike,
// embedded in each edition's wire type, which adds its own fields.

// partnerHead is a supplier (A) / connection (B).
type partnerHead struct {
	docID
	Code         wText `json:"code"`
	Name         wText `json:"name"`
	Relationship wText `json:"relationship"`
}

func (h *partnerHead) model() model.Partner {
	return model.Partner{ID: h.id(), Code: str(h.Code), Name: str(h.Name), Relationship: str(h.Relationship)}
}

// itemHead is a SKU (A) / variant (B).
type itemHead struct {
	docID
	SKU          wText `json:"sku"`
	Name         wText `json:"name"`
	Description1 wText `json:"description1"`
	EAN          wText `json:"ean"`
	dims
	CreatedAt wTime `json:"createdAt"`
	UpdatedAt wTime `json:"updatedAt"`
}

func (h *itemHead) model() model.Item {
	return model.Item{
		ID: h.id(), SKU: str(h.SKU), Name: str(h.Name), Description1: str(h.Description1), EAN: str(h.EAN),
		Length: h.Length, Width: h.Width, Height: h.Height, GrossWeight: h.GrossWeight,
		CreatedAt: h.CreatedAt.Time, UpdatedAt: h.UpdatedAt.Time,
	}
}

// inboundHead is a reception (A) / purchase order (B).
type inboundHead struct {
	docID
	OrderNumber     wText   `json:"orderNumber"`
	ReferenceNumber wText   `json:"referenceNumber"`
	OrderType       wText   `json:"orderType"`
	DueAt           wTime   `json:"dueAt"`
	ReceivedAt      wTime   `json:"receivedAt"`
	Status          wStatus `json:"status"`
	CreatedAt       wTime   `json:"createdAt"`
	UpdatedAt       wTime   `json:"updatedAt"`
}

func (h *inboundHead) model() model.Inbound {
	return model.Inbound{
		ID: h.id(), OrderNumber: str(h.OrderNumber), ReferenceNumber: str(h.ReferenceNumber), OrderType: str(h.OrderType),
		DueAt: h.DueAt.Time, ReceivedAt: h.ReceivedAt.Time, Status: h.Status.model(),
		CreatedAt: h.CreatedAt.Time, UpdatedAt: h.UpdatedAt.Time,
	}
}

// outboundHead is an order (A) / sales order (B).
type outboundHead struct {
	docID
	OrderNumber          wText   `json:"orderNumber"`
	ExternalOrderNumber  wText   `json:"externalOrderNumber"`
	DeliveryMode         wText   `json:"deliveryMode"`
	ShippedAt            wTime   `json:"shippedAt"`
	FulfillmentStatus    wStatus `json:"fulfillmentStatus"`
	TransportationStatus wStatus `json:"transportationStatus"`
	CreatedAt            wTime   `json:"createdAt"`
	UpdatedAt            wTime   `json:"updatedAt"`
}

func (h *outboundHead) model() model.Outbound {
	return model.Outbound{
		ID: h.id(), OrderNumber: str(h.OrderNumber), ExternalOrderNumber: str(h.ExternalOrderNumber),
		DeliveryMode: str(h.DeliveryMode), ShippedAt: h.ShippedAt.Time,
		FulfillmentStatus: h.FulfillmentStatus.model(), TransportationStatus: h.TransportationStatus.model(),
		CreatedAt: h.CreatedAt.Time, UpdatedAt: h.UpdatedAt.Time,
	}
}

// variantHead is a variant embedded in a stock or a stock movement, in
// either edition: only what those documents take from it; the rest of the
// object (dimensions, supplier...) is passed over unread.
type variantHead struct {
	docID
	SKU  wText `json:"sku"`
	Name wText `json:"name"`
	EAN  wText `json:"ean"`
}

// wStock is a stock record, the same in both editions.
type wStock struct {
	Available wInt             `json:"available"`
	Incoming  wInt             `json:"incoming"`
	Allocated wInt             `json:"allocated"`
	Locked    wInt             `json:"locked"`
	Variant   ref[variantHead] `json:"variant"`
	CreatedAt wTime            `json:"createdAt"`
	UpdatedAt wTime            `json:"updatedAt"`
}

func (s *wStock) model() model.Stock {
	v := s.Variant.get()
	return model.Stock{
		SKU: str(v.SKU), VariantID: s.Variant.ID, Name: str(v.Name), EAN: str(v.EAN),
		Available: int64(s.Available), Incoming: int64(s.Incoming), Allocated: int64(s.Allocated), Locked: int64(s.Locked),
		CreatedAt: s.CreatedAt.Time, UpdatedAt: s.UpdatedAt.Time,
	}
}

// wMovement is a stock movement as both editions send it; Edition B adds
// owners, lots and expiry dates (movementB).
type wMovement struct {
	docID
	FromPosition wText            `json:"fromPosition"`
	ToPosition   wText            `json:"toPosition"`
	Quantity     wInt             `json:"quantity"`
	MovedAt      wTime            `json:"movedAt"`
	Comment      wText            `json:"comment"`
	Variant      ref[variantHead] `json:"variant"`
	Processed    wBool            `json:"processed"`
	CreatedAt    wTime            `json:"createdAt"`
}

func (m *wMovement) model() model.Movement {
	return model.Movement{
		ID: m.id(), SKU: str(m.Variant.get().SKU), VariantID: m.Variant.ID,
		FromPosition: str(m.FromPosition), ToPosition: str(m.ToPosition), Quantity: int64(m.Quantity),
		MovedAt: m.MovedAt.Time, Comment: str(m.Comment), Processed: bool(m.Processed), CreatedAt: m.CreatedAt.Time,
	}
}

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

// docOf is the docWire of the wire type W, read with conv.
func docOf[W, M any](res Resource, what string, keys []string, conv func(*W) M, body func(int64, M) any) docWire[M] {
	return docWire[M]{docKind: docKind{res: res, what: what, keys: keys}, body: body,
		one:  func(raw []byte) (M, error) { return decodeAs(raw, conv) },
		page: func(b []byte) (page[M], error) { return decodePage(b, conv) }}
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
var stocksDoc = docOf(Stocks, "stock", nil, (*wStock).model, nil)

var (
	codeKey  = []string{"code"}
	skuKey   = []string{"sku"}
	orderKey = []string{"orderNumber"}
)

// wireTables is the one table of both editions' documents.
var wireTables = map[model.Edition]*wireTable{
	model.EditionA: {
		partners:  docOf(Connections, "supplier", codeKey, (*supplierA).model, bodyOf[model.Partner](model.EditionA, model.KindPartner)),
		items:     docOf(Variants, "SKU", skuKey, (*skuA).model, bodyOf[model.Item](model.EditionA, model.KindItem)),
		inbounds:  docOf(PurchaseOrders, "reception", orderKey, (*receptionA).model, bodyOf[model.Inbound](model.EditionA, model.KindInbound)),
		outbounds: docOf(SalesOrders, "order", orderKey, (*orderA).model, bodyOf[model.Outbound](model.EditionA, model.KindOutbound)),
		movements: docOf(StockMovements, "stock movement", nil, (*wMovement).model, nil),
	},
	model.EditionB: {
		partners:  docOf(Connections, "connection", codeKey, (*connectionB).model, bodyOf[model.Partner](model.EditionB, model.KindPartner)),
		items:     docOf(Variants, "SKU", skuKey, (*variantB).model, bodyOf[model.Item](model.EditionB, model.KindItem)),
		inbounds:  docOf(PurchaseOrders, "purchase order", orderKey, (*purchaseOrderB).model, bodyOf[model.Inbound](model.EditionB, model.KindInbound)),
		outbounds: docOf(SalesOrders, "sales order", orderKey, (*salesOrderB).model, bodyOf[model.Outbound](model.EditionB, model.KindOutbound)),
		movements: docOf(StockMovements, "stock movement", nil, (*movementB).model, nil),
	},
}

// The documents only Edition B has. A packaging's body needs its
// variant's IRI (CreatePackaging); the others are only read.
var (
	packagingsB       = docOf(VariantPackagings, "packaging", []string{"code", "variant"}, (*packagingB).model, nil)
	warehouseClientsB = docOf(WarehouseClients, "warehouse client", nil, (*warehouseClientB).model, nil)
	carriersB         = docOf(Carriers, "carrier", nil, (*carrierB).model, nil)
	carrierServicesB  = docOf(CarrierServices, "carrier service", nil, (*carrierServiceB).model, nil)
	fulfillmentsB     = docOf(Fulfillments, "fulfillment", nil, (*fulfillmentB).model, nil)
	shippingUnitsB    = docOf(ShippingUnits, "shipping unit", nil, (*shippingUnitB).model, nil)
	eventsB           = docOf(ShippingUnitEvents, "shipping unit event", nil, (*eventB).model, nil)
)
