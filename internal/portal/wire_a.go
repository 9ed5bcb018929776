package portal

import (
	"filebridge/internal/model"
)

// Edition A (v1.2.0) responses: suppliers, SKUs, receptions and orders as
// the portal answers them, and their conversion to the model (wireTables,
// wire_docs.go, lists them with stocks and movements). Requests are the
// declarations of internal/model (model.Body).

// Supplier.

// supplierA is a supplier: all it has both editions' partners have.
type supplierA = partnerHead

// SKU.

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

// Reception.

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

// Order.

// shipToA is Edition A's receiver in responses.
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
