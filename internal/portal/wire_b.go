package portal

import (
	"filebridge/internal/model"
)

// Edition B (v1.1.0) wire field names: connections, variants, variant
// packagings, warehouse clients, carriers, carrier services, purchase and
// sales orders here; fulfillments, shipping units and their events, and
// stock movements in wire_b_confirm.go; as the portal answers them, with
// their conversion to the model (wireTables, wire_docs.go, lists them).
// Requests are the declarations of internal/model (model.Body).

// Connection.

type connectionB struct {
	partnerHead
	CountryCode    wText `json:"countryCode"`
	State          wText `json:"state"`
	City           wText `json:"city"`
	Zipcode        wText `json:"zipcode"`
	StreetAddress  wText `json:"streetAddress"`
	StreetAddress2 wText `json:"streetAddress2"`
	StreetAddress3 wText `json:"streetAddress3"`
	Email          wText `json:"email"`
	ContactName    wText `json:"contactName"`
	Phone          wText `json:"phone"`
}

func (c *connectionB) model() model.Partner {
	p := c.partnerHead.model()
	p.CountryCode, p.State, p.City, p.Zipcode = str(c.CountryCode), str(c.State), str(c.City), str(c.Zipcode)
	p.StreetAddress, p.StreetAddress2, p.StreetAddress3 = str(c.StreetAddress), str(c.StreetAddress2), str(c.StreetAddress3)
	p.Email, p.ContactName, p.Phone = str(c.Email), str(c.ContactName), str(c.Phone)
	return p
}

func (c *connectionB) address() *model.Address {
	return &model.Address{
		Code: str(c.Code), Relationship: str(c.Relationship), Name: str(c.Name), ContactName: str(c.ContactName),
		StreetAddress: str(c.StreetAddress), StreetAddress2: str(c.StreetAddress2), StreetAddress3: str(c.StreetAddress3),
		City: str(c.City), State: str(c.State), Zipcode: str(c.Zipcode), CountryCode: str(c.CountryCode),
		Email: str(c.Email), Phone: str(c.Phone),
	}
}

// Variant.

// variantB is a variant: all it has both editions' items have.
type variantB = itemHead

// Variant packaging.

type packagingB struct {
	docID
	Variant  ref[variantB] `json:"variant"`
	Code     wText         `json:"code"`
	EAN      wText         `json:"ean"`
	Quantity wInt          `json:"quantity"`
	dims
	NetWeight model.Decimal    `json:"netWeight"`
	Level     wText            `json:"level"`
	Type      wText            `json:"type"`
	Supplier  ref[connectionB] `json:"supplier"`
	CreatedAt wTime            `json:"createdAt"`
	UpdatedAt wTime            `json:"updatedAt"`
}

func (p *packagingB) model() model.Packaging {
	return model.Packaging{
		ID: p.id(), SKU: str(p.Variant.get().SKU), Code: str(p.Code), EAN: str(p.EAN), Quantity: int64(p.Quantity),
		Length: p.Length, Width: p.Width, Height: p.Height, GrossWeight: p.GrossWeight, NetWeight: p.NetWeight,
		Level: str(p.Level), Type: str(p.Type), SupplierCode: str(p.Supplier.get().Code),
		CreatedAt: p.CreatedAt.Time, UpdatedAt: p.UpdatedAt.Time,
	}
}

// Reference data: warehouse clients, carriers, carrier services.

type warehouseB struct {
	Code wText `json:"code"`
	Name wText `json:"name"`
}

type warehouseClientB struct {
	docID
	ClientCode wText           `json:"clientCode"`
	Warehouse  ref[warehouseB] `json:"warehouse"`
}

func (w *warehouseClientB) model() WarehouseClient {
	wh := w.Warehouse.get()
	return WarehouseClient{ID: w.id(), ClientCode: str(w.ClientCode), WarehouseID: w.Warehouse.ID,
		WarehouseCode: str(wh.Code), WarehouseName: str(wh.Name)}
}

type refCodeB struct {
	Code wText `json:"code"`
	Name wText `json:"name"`
}

type carrierB struct {
	docID
	Code                   wText         `json:"code"`
	Name                   wText         `json:"name"`
	MainTransportationType ref[refCodeB] `json:"mainTransportationType"`
}

func (c *carrierB) model() Carrier {
	return Carrier{ID: c.id(), Code: str(c.Code), Name: str(c.Name),
		TransportationType: str(c.MainTransportationType.get().Code)}
}

type carrierServiceB struct {
	docID
	Carrier ref[carrierB] `json:"carrier"`
	Code    wText         `json:"code"`
	Name    wText         `json:"name"`
}

func (s *carrierServiceB) model() CarrierService {
	return CarrierService{ID: s.id(), Code: str(s.Code), Name: str(s.Name), CarrierID: s.Carrier.ID,
		CarrierCode: str(s.Carrier.get().Code)}
}

// Purchase order.

type purchaseOrderB struct {
	inboundHead
	WarehouseLocation ref[warehouseB]  `json:"warehouseLocation"`
	Supplier          ref[connectionB] `json:"supplier"`
	Lines             []struct {
		lineB
		QuantityReceived wInt `json:"quantityReceived"`
	} `json:"purchaseOrderLineItems"`
}

func (p *purchaseOrderB) model() model.Inbound {
	wh := p.WarehouseLocation.get()
	in := p.inboundHead.model()
	in.WarehouseLocation, in.WarehouseCode, in.WarehouseName = p.WarehouseLocation.ID, str(wh.Code), str(wh.Name)
	in.SupplierID, in.SupplierCode = p.Supplier.ID, str(p.Supplier.get().Code)
	for _, l := range p.Lines {
		in.Lines = append(in.Lines, model.InboundLine{
			Position: int(l.Position), SKU: str(l.Variant.get().SKU), VariantID: l.Variant.ID, Quantity: int64(l.Quantity),
			LotNumber: str(l.LotNumber), ExpiryDate: l.ExpiryDate.Time, OwnerCode: str(l.OwnerCode),
			QuantityReceived: int64(l.QuantityReceived),
		})
	}
	return in
}

// Sales order.

// soHeadB is a sales order embedded in a fulfillment or a shipping unit.
type soHeadB struct {
	OrderNumber         wText `json:"orderNumber"`
	ExternalOrderNumber wText `json:"externalOrderNumber"`
}

// lineB is a purchase or sales order line as Edition B answers it.
type lineB struct {
	Position   wInt          `json:"position"`
	Variant    ref[variantB] `json:"variant"`
	Quantity   wInt          `json:"quantity"`
	LotNumber  wText         `json:"lotNumber"`
	ExpiryDate wTime         `json:"expiryDate"`
	OwnerCode  wText         `json:"ownerCode"`
}

type soLineB struct {
	lineB
	QuantityShipped wInt `json:"quantityShipped"`
}

type salesOrderB struct {
	outboundHead
	WarehouseLocation       ref[warehouseB]      `json:"warehouseLocation"`
	ShipTo                  ref[connectionB]     `json:"shipTo"`
	BillingTo               ref[connectionB]     `json:"billingTo"`
	Carrier                 ref[carrierB]        `json:"carrier"`
	CarrierService          ref[carrierServiceB] `json:"carrierService"`
	RequestedCarrier        ref[carrierB]        `json:"requestedCarrier"`
	RequestedCarrierService ref[carrierServiceB] `json:"requestedCarrierService"`
	PlannedDeliveryDate     wDate                `json:"plannedDeliveryDate"`
	DeliveryTimeSlotBefore  wText                `json:"deliveryTimeSlotBefore"`
	ShippingUnits           []shippingUnitB      `json:"shippingUnits"`
	Lines                   []soLineB            `json:"salesOrderLineItems"`
}

func (s *salesOrderB) model() model.Outbound {
	o := s.outboundHead.model()
	o.WarehouseLocation, o.WarehouseCode = s.WarehouseLocation.ID, str(s.WarehouseLocation.get().Code)
	o.ShipToID, o.BillingToID = s.ShipTo.ID, s.BillingTo.ID
	o.PlannedDeliveryDate, o.DeliveryTimeSlotBefore = s.PlannedDeliveryDate.Time, str(s.DeliveryTimeSlotBefore)
	if c := &s.ShipTo.Obj; s.ShipTo.Has {
		o.ShipTo, o.ShipToCode = c.address(), str(c.Code)
	}
	if c := &s.BillingTo.Obj; s.BillingTo.Has {
		o.BillingTo, o.BillingToCode = c.address(), str(c.Code)
	}
	carrier, service := s.Carrier, s.CarrierService
	if carrier.ID == 0 {
		carrier = s.RequestedCarrier
	}
	if service.ID == 0 {
		service = s.RequestedCarrierService
	}
	o.CarrierID, o.CarrierCode = carrier.ID, str(carrier.get().Code)
	o.CarrierServiceID, o.CarrierServiceCode = service.ID, str(service.get().Code)
	for _, l := range s.Lines {
		o.Lines = append(o.Lines, model.OutboundLine{
			Position: int(l.Position), SKU: str(l.Variant.get().SKU), VariantID: l.Variant.ID, Quantity: int64(l.Quantity),
			LotNumber: str(l.LotNumber), ExpiryDate: l.ExpiryDate.Time, OwnerCode: str(l.OwnerCode),
			QuantityShipped: int64(l.QuantityShipped),
		})
	}
	for i := range s.ShippingUnits {
		u := s.ShippingUnits[i].model()
		if u.OrderNumber == "" {
			u.OrderNumber = o.OrderNumber
		}
		o.ShippingUnits = append(o.ShippingUnits, u)
	}
	return o
}
