package portal

import (
	"filebridge/internal/model"
)

// Edition B (v1.1.0) wire field names: connections, variants, variant
// packagings, warehouse clients, carriers, carrier services, purchase and
// sales orders here; fulfillments, shipping units and their events, and
// stock movements in wire_b_confirm.go; with their conversion to and from
// the model (wireTables, wire_docs.go, lists them).

// Connection.

type connectionReqB struct {
	Company        int64  `json:"company"`
	Code           string `json:"code,omitempty"`
	Name           string `json:"name"`
	Relationship   string `json:"relationship"`
	CountryCode    string `json:"countryCode,omitempty"`
	State          string `json:"state,omitempty"`
	City           string `json:"city,omitempty"`
	Zipcode        string `json:"zipcode,omitempty"`
	StreetAddress  string `json:"streetAddress,omitempty"`
	StreetAddress2 string `json:"streetAddress2,omitempty"`
	StreetAddress3 string `json:"streetAddress3,omitempty"`
	Email          string `json:"email,omitempty"`
	ContactName    string `json:"contactName,omitempty"`
	Phone          string `json:"phone,omitempty"`
}

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

func connectionBodyB(company int64, p model.Partner) any {
	return &connectionReqB{
		Company: company, Code: p.Code, Name: p.Name, Relationship: p.Relationship,
		CountryCode: p.CountryCode, State: p.State, City: p.City, Zipcode: p.Zipcode,
		StreetAddress: p.StreetAddress, StreetAddress2: p.StreetAddress2, StreetAddress3: p.StreetAddress3,
		Email: p.Email, ContactName: p.ContactName, Phone: p.Phone,
	}
}

// addressBody is an embedded consignee or billing connection.
func addressBody(company int64, a *model.Address, code string) *connectionReqB {
	rel := a.Relationship
	if rel == "" {
		rel = "Marketplace"
	}
	if a.Code != "" {
		code = a.Code
	}
	name := a.Name
	if name == "" {
		name = a.LastName
	}
	return &connectionReqB{
		Company: company, Code: code, Name: name, Relationship: rel, CountryCode: a.CountryCode,
		State: a.State, City: a.City, Zipcode: a.Zipcode, StreetAddress: a.StreetAddress,
		StreetAddress2: a.StreetAddress2, StreetAddress3: a.StreetAddress3, Email: a.Email,
		ContactName: a.ContactName, Phone: a.Phone,
	}
}

// Variant.

type variantReqB struct {
	Company      int64  `json:"company"`
	SKU          string `json:"sku"`
	Name         string `json:"name"`
	Description1 string `json:"description1,omitempty"`
	EAN          string `json:"ean"`
	dims
}

// variantB is a variant: all it has both editions' items have.
type variantB = itemHead

func variantBodyB(company int64, it model.Item) any {
	return &variantReqB{
		Company: company, SKU: it.SKU, Name: it.Name, Description1: it.Description1, EAN: it.EAN,
		dims: dims{Length: it.Length, Width: it.Width, Height: it.Height, GrossWeight: it.GrossWeight},
	}
}

// Variant packaging.

type packagingReqB struct {
	Variant  string `json:"variant"`
	Code     string `json:"code"`
	EAN      string `json:"ean,omitempty"`
	Quantity int64  `json:"quantity,omitempty"`
	dims
	NetWeight model.Decimal `json:"netWeight,omitempty"`
	Level     string        `json:"level,omitempty"`
	Type      string        `json:"type,omitempty"`
	Supplier  string        `json:"supplier,omitempty"`
}

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

// packagingBodyB needs the variant's IRI and the supplier connection's id
// as a string (or "").
func packagingBodyB(p model.Packaging, variantIRI, supplierID string) any {
	return &packagingReqB{
		Variant: variantIRI, Code: p.Code, EAN: p.EAN, Quantity: p.Quantity,
		dims:      dims{Length: p.Length, Width: p.Width, Height: p.Height, GrossWeight: p.GrossWeight},
		NetWeight: p.NetWeight, Level: p.Level, Type: p.Type,
		Supplier: supplierID,
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

type purchaseOrderReqB struct {
	inboundReq
	DueAt wTime     `json:"dueAt,omitzero"`
	Lines []lineReq `json:"purchaseOrderLineItems"`
}

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

func purchaseOrderBodyB(company int64, in model.Inbound) any {
	b := &purchaseOrderReqB{inboundReq: inboundReqOf(company, in), DueAt: wt(in.DueAt), Lines: make([]lineReq, 0, len(in.Lines))}
	for _, l := range in.Lines {
		b.Lines = append(b.Lines, lineReq{Position: l.Position, Variant: l.VariantID, Quantity: l.Quantity,
			LotNumber: l.LotNumber, ExpiryDate: wt(l.ExpiryDate), OwnerCode: l.OwnerCode})
	}
	return b
}

// Sales order.

type salesOrderReqB struct {
	Company                int64     `json:"company"`
	OrderNumber            string    `json:"orderNumber"`
	ExternalOrderNumber    string    `json:"externalOrderNumber,omitempty"`
	WarehouseLocation      int64     `json:"warehouseLocation"`
	ShipTo                 any       `json:"shipTo,omitempty"`    // id or embedded connection
	BillingTo              any       `json:"billingTo,omitempty"` // id or embedded connection
	DeliveryMode           string    `json:"deliveryMode,omitempty"`
	Carrier                int64     `json:"carrier,omitempty"`
	CarrierService         int64     `json:"carrierService,omitempty"`
	PlannedDeliveryDate    wDate     `json:"plannedDeliveryDate,omitzero"`
	DeliveryTimeSlotBefore string    `json:"deliveryTimeSlotBefore,omitempty"`
	Lines                  []lineReq `json:"salesOrderLineItems"`
}

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

func salesOrderBodyB(company int64, o model.Outbound) any {
	b := &salesOrderReqB{
		Company: company, OrderNumber: o.OrderNumber, ExternalOrderNumber: o.ExternalOrderNumber,
		WarehouseLocation: o.WarehouseLocation, DeliveryMode: o.DeliveryMode, Carrier: o.CarrierID,
		CarrierService: o.CarrierServiceID, PlannedDeliveryDate: wDate{o.PlannedDeliveryDate},
		DeliveryTimeSlotBefore: o.DeliveryTimeSlotBefore, Lines: make([]lineReq, 0, len(o.Lines)),
	}
	switch {
	case o.ShipTo != nil:
		b.ShipTo = addressBody(company, o.ShipTo, o.ShipToCode)
	case o.ShipToID != 0:
		b.ShipTo = o.ShipToID
	}
	switch {
	case o.BillingTo != nil:
		b.BillingTo = addressBody(company, o.BillingTo, o.BillingToCode)
	case o.BillingToID != 0:
		b.BillingTo = o.BillingToID
	}
	for _, l := range o.Lines {
		b.Lines = append(b.Lines, lineReq{Position: l.Position, Variant: l.VariantID, Quantity: l.Quantity,
			LotNumber: l.LotNumber, ExpiryDate: wt(l.ExpiryDate), OwnerCode: l.OwnerCode})
	}
	return b
}
