package portal

import (
	"filebridge/internal/model"
)

// Edition A (v1.2.0) wire field names: the request and response bodies of
// suppliers, SKUs, receptions and orders, and their conversion to and from
// the model (wireTables, wire_docs.go, lists them with stocks and movements).

// Supplier.

type supplierReqA struct {
	Company      int64  `json:"company"`
	Code         string `json:"code"`
	Name         string `json:"name"`
	Relationship string `json:"relationship"`
}

// supplierA is a supplier: all it has both editions' partners have.
type supplierA = partnerHead

func supplierBodyA(company int64, p model.Partner) any {
	rel := p.Relationship
	if rel == "" {
		rel = "Manufacturer"
	}
	return &supplierReqA{Company: company, Code: p.Code, Name: p.Name, Relationship: rel}
}

// SKU.

type skuReqA struct {
	Company        int64         `json:"company"`
	SKU            string        `json:"sku"`
	Name           string        `json:"name"`
	Description1   string        `json:"description1,omitempty"`
	EAN            string        `json:"ean"`
	EANBox         string        `json:"eanBox,omitempty"`
	QuantityPerBox model.Decimal `json:"quantityPerBox,omitempty"`
	dims
	GrossWeightBox model.Decimal `json:"grossWeightBox,omitempty"`
	BuyPrice       model.Decimal `json:"buyPrice,omitempty"`
	Supplier       int64         `json:"supplier,omitempty"`
}

type skuA struct {
	itemHead
	EANBox         wText          `json:"eanBox"`
	QuantityPerBox model.Decimal  `json:"quantityPerBox"`
	GrossWeightBox model.Decimal  `json:"grossWeightBox"`
	BuyPrice       model.Decimal  `json:"buyPrice"`
	Supplier       ref[supplierA] `json:"supplier"`
}

func (s *skuA) model() model.Item {
	it := s.itemHead.model()
	it.EANBox, it.QuantityPerBox, it.GrossWeightBox, it.BuyPrice = str(s.EANBox), s.QuantityPerBox, s.GrossWeightBox, s.BuyPrice
	it.SupplierCode, it.SupplierID = str(s.Supplier.get().Code), s.Supplier.ID
	return it
}

func skuBodyA(company int64, it model.Item) any {
	return &skuReqA{
		Company: company, SKU: it.SKU, Name: it.Name, Description1: it.Description1,
		EAN: it.EAN, EANBox: it.EANBox, QuantityPerBox: it.QuantityPerBox,
		dims:           dims{Length: it.Length, Width: it.Width, Height: it.Height, GrossWeight: it.GrossWeight},
		GrossWeightBox: it.GrossWeightBox, BuyPrice: it.BuyPrice, Supplier: it.SupplierID,
	}
}

// Reception.

type receptionReqA struct {
	inboundReq
	Attributes map[string]string `json:"attributes,omitempty"`
	DueAt      wTime             `json:"dueAt,omitzero"`
	Lines      []lineReq         `json:"purchaseOrderLineItems"`
}

type receptionA struct {
	inboundHead
	WarehouseLocation ref[none]        `json:"warehouseLocation"`
	Supplier          ref[supplierA]   `json:"supplier"`
	Attributes        map[string]wText `json:"attributes"`
	Lines             []struct {
		Position         wInt      `json:"position"`
		Variant          ref[skuA] `json:"variant"`
		Quantity         wInt      `json:"quantity"`
		QuantityReceived wInt      `json:"quantityReceived"`
	} `json:"purchaseOrderLineItems"`
}

func (r *receptionA) model() model.Inbound {
	in := r.inboundHead.model()
	in.WarehouseLocation, in.SupplierID, in.SupplierCode = r.WarehouseLocation.ID, r.Supplier.ID, str(r.Supplier.get().Code)
	in.Attributes = attrs(r.Attributes)
	for _, l := range r.Lines {
		in.Lines = append(in.Lines, model.InboundLine{
			Position: int(l.Position), SKU: str(l.Variant.get().SKU), VariantID: l.Variant.ID,
			Quantity: int64(l.Quantity), QuantityReceived: int64(l.QuantityReceived),
		})
	}
	return in
}

func receptionBodyA(company int64, in model.Inbound) any {
	b := &receptionReqA{inboundReq: inboundReqOf(company, in), Attributes: in.Attributes, DueAt: wt(in.DueAt),
		Lines: make([]lineReq, 0, len(in.Lines))}
	for _, l := range in.Lines {
		b.Lines = append(b.Lines, lineReq{Position: l.Position, Variant: l.VariantID, Quantity: l.Quantity})
	}
	return b
}

// Order.

type orderReqA struct {
	Company             int64           `json:"company"`
	OrderNumber         string          `json:"orderNumber"`
	ExternalOrderNumber string          `json:"externalOrderNumber"`
	DeliveryMode        string          `json:"deliveryMode,omitempty"`
	WarehouseLocation   int64           `json:"warehouseLocation"`
	ShipTo              *shipToA        `json:"shipTo,omitempty"`
	Lines               []orderLineReqA `json:"salesOrderLineItems"`
	ServiceLines        []serviceLineA  `json:"serviceLineItems,omitempty"`
}

// shipToA is Edition A's receiver, in requests and responses.
type shipToA struct {
	Name           wText         `json:"name,omitempty"`
	Title          wText         `json:"title,omitempty"`
	FirstName      wText         `json:"firstName,omitempty"`
	LastName       wText         `json:"lastName,omitempty"`
	StreetAddress  wText         `json:"streetAddress,omitempty"`
	StreetAddress2 wText         `json:"streetAddress2,omitempty"`
	City           wText         `json:"city,omitempty"`
	CountryCode    wText         `json:"countryCode,omitempty"`
	Zipcode        wText         `json:"zipcode,omitempty"`
	Email          wText         `json:"email,omitempty"`
	Phone          wText         `json:"phone,omitempty"`
	LanguageCode   wText         `json:"languageCode,omitempty"`
	Attributes     *shipToAttrsA `json:"attributes,omitempty"`
}

type shipToAttrsA struct {
	AccessCode wText `json:"accessCode,omitempty"`
	Company    wText `json:"company,omitempty"`
	Floor      wText `json:"floor,omitempty"`
	Building   wText `json:"building,omitempty"`
}

type orderLineReqA struct {
	Position              int      `json:"position"`
	Variant               int64    `json:"variant"`
	Quantity              int64    `json:"quantity"`
	PurchaseOrderLineItem *poLinkA `json:"purchaseOrderLineItem,omitempty"`
}

type poLinkA struct {
	OrderNumber wText `json:"orderNumber"`
	Position    wInt  `json:"position"`
}

type serviceLineA struct {
	Position    wInt  `json:"position"`
	ServiceType wText `json:"serviceType"`
	Quantity    wInt  `json:"quantity"`
}

type orderA struct {
	outboundHead
	WarehouseLocation ref[none]        `json:"warehouseLocation"`
	ShipTo            *shipToA         `json:"shipTo"`
	Attributes        map[string]wText `json:"attributes"`
	Lines             []struct {
		Position              wInt      `json:"position"`
		Variant               ref[skuA] `json:"variant"`
		Quantity              wInt      `json:"quantity"`
		QuantityShipped       wInt      `json:"quantityShipped"`
		PurchaseOrderLineItem *poLinkA  `json:"purchaseOrderLineItem"`
	} `json:"salesOrderLineItems"`
	ServiceLines []serviceLineA `json:"serviceLineItems"`
}

func (o *orderA) model() model.Outbound {
	out := o.outboundHead.model()
	out.WarehouseLocation, out.Attributes = o.WarehouseLocation.ID, attrs(o.Attributes)
	if s := o.ShipTo; s != nil {
		a := &model.Address{
			Name: str(s.Name), Title: str(s.Title), FirstName: str(s.FirstName), LastName: str(s.LastName),
			StreetAddress: str(s.StreetAddress), StreetAddress2: str(s.StreetAddress2), City: str(s.City),
			CountryCode: str(s.CountryCode), Zipcode: str(s.Zipcode), Email: str(s.Email), Phone: str(s.Phone),
			LanguageCode: str(s.LanguageCode),
		}
		if at := s.Attributes; at != nil {
			a.AccessCode, a.Company, a.Floor, a.Building = str(at.AccessCode), str(at.Company), str(at.Floor), str(at.Building)
		}
		out.ShipTo = a
	}
	for _, l := range o.Lines {
		ol := model.OutboundLine{
			Position: int(l.Position), SKU: str(l.Variant.get().SKU), VariantID: l.Variant.ID,
			Quantity: int64(l.Quantity), QuantityShipped: int64(l.QuantityShipped),
		}
		if p := l.PurchaseOrderLineItem; p != nil {
			ol.ReceptionOrderNumber, ol.ReceptionPosition = str(p.OrderNumber), int(p.Position)
		}
		out.Lines = append(out.Lines, ol)
	}
	for _, s := range o.ServiceLines {
		out.ServiceLines = append(out.ServiceLines, model.ServiceLine{
			Position: int(s.Position), ServiceType: str(s.ServiceType), Quantity: int64(s.Quantity),
		})
	}
	return out
}

func orderBodyA(company int64, o model.Outbound) any {
	b := &orderReqA{
		Company: company, OrderNumber: o.OrderNumber, ExternalOrderNumber: o.ExternalOrderNumber,
		DeliveryMode: o.DeliveryMode, WarehouseLocation: o.WarehouseLocation,
		Lines: make([]orderLineReqA, 0, len(o.Lines)),
	}
	if a := o.ShipTo; a != nil {
		s := &shipToA{
			Name: wText(a.Name), Title: wText(a.Title), FirstName: wText(a.FirstName), LastName: wText(a.LastName),
			StreetAddress: wText(a.StreetAddress), StreetAddress2: wText(a.StreetAddress2), City: wText(a.City),
			CountryCode: wText(a.CountryCode), Zipcode: wText(a.Zipcode), Email: wText(a.Email), Phone: wText(a.Phone),
			LanguageCode: wText(a.LanguageCode),
		}
		if a.AccessCode != "" || a.Company != "" || a.Floor != "" || a.Building != "" {
			s.Attributes = &shipToAttrsA{AccessCode: wText(a.AccessCode), Company: wText(a.Company), Floor: wText(a.Floor), Building: wText(a.Building)}
		}
		b.ShipTo = s
	}
	for _, l := range o.Lines {
		rl := orderLineReqA{Position: l.Position, Variant: l.VariantID, Quantity: l.Quantity}
		if l.ReceptionOrderNumber != "" {
			rl.PurchaseOrderLineItem = &poLinkA{OrderNumber: wText(l.ReceptionOrderNumber), Position: wInt(l.ReceptionPosition)}
		}
		b.Lines = append(b.Lines, rl)
	}
	for _, s := range o.ServiceLines {
		b.ServiceLines = append(b.ServiceLines, serviceLineA{Position: wInt(s.Position), ServiceType: wText(s.ServiceType), Quantity: wInt(s.Quantity)})
	}
	return b
}

// attrs converts an attributes object.
func attrs(m map[string]wText) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = str(v)
	}
	return out
}
