package formats

import (
	"strings"

	"filebridge/internal/model"
)

// target holds the documents a row writes into.
type target struct {
	partner *model.Partner
	item    *model.Item
	pack    *model.Packaging
	in      *model.Inbound
	inLine  *model.InboundLine
	out     *model.Outbound
	outLine *model.OutboundLine
	svc     *model.ServiceLine
}

// itemOf returns the item the row writes: the item of an item row, or the
// SKU master data of an inbound line, created on its first value.
func (t *target) itemOf() *model.Item {
	if t.item == nil {
		t.item = t.lineItem()
	}
	return t.item
}

func (t *target) lineItem() *model.Item {
	if t.inLine.Item == nil {
		t.inLine.Item = &model.Item{}
	}
	return t.inLine.Item
}

func (t *target) shipTo() *model.Address {
	if t.out.ShipTo == nil {
		t.out.ShipTo = &model.Address{}
	}
	return t.out.ShipTo
}

// setter writes a converted value into a document.
type setter func(t *target, v *value)

// bind returns the setter of a column of a kind, nil when filebridge does not
// know where the column goes (a model field added later: see TestBindAll).
func bind(k model.Kind, name string) setter {
	switch k {
	case model.KindPartner:
		if f := partnerField(name); f != nil {
			return func(t *target, v *value) { *f(t.partner) = v.s }
		}
	case model.KindItem:
		return itemSetter(name)
	case model.KindPackaging:
		return packagingSetter(name)
	case model.KindInbound:
		if rest, ok := strings.CutPrefix(name, "item."); ok {
			return itemSetter(rest)
		}
		return inboundSetter(name)
	case model.KindOutbound:
		if rest, ok := strings.CutPrefix(name, "shipTo."); ok {
			if f := addressField(rest); f != nil {
				return func(t *target, v *value) { *f(t.shipTo()) = v.s }
			}
			return nil
		}
		return outboundSetter(name)
	}
	return nil
}

func partnerField(name string) func(p *model.Partner) *string {
	switch name {
	case "code":
		return func(p *model.Partner) *string { return &p.Code }
	case "name":
		return func(p *model.Partner) *string { return &p.Name }
	case "relationship":
		return func(p *model.Partner) *string { return &p.Relationship }
	case "countryCode":
		return func(p *model.Partner) *string { return &p.CountryCode }
	case "state":
		return func(p *model.Partner) *string { return &p.State }
	case "city":
		return func(p *model.Partner) *string { return &p.City }
	case "zipcode":
		return func(p *model.Partner) *string { return &p.Zipcode }
	case "streetAddress":
		return func(p *model.Partner) *string { return &p.StreetAddress }
	case "streetAddress2":
		return func(p *model.Partner) *string { return &p.StreetAddress2 }
	case "streetAddress3":
		return func(p *model.Partner) *string { return &p.StreetAddress3 }
	case "email":
		return func(p *model.Partner) *string { return &p.Email }
	case "contactName":
		return func(p *model.Partner) *string { return &p.ContactName }
	case "phone":
		return func(p *model.Partner) *string { return &p.Phone }
	}
	return nil
}

// itemSetter returns the setter of an item field, written into the item of
// the row (see target.itemOf). Each setter writes its field directly: they
// run for every cell of files of millions of rows.
func itemSetter(name string) setter {
	switch name {
	case "sku":
		return func(t *target, v *value) { t.itemOf().SKU = v.s }
	case "name":
		return func(t *target, v *value) { t.itemOf().Name = v.s }
	case "description1":
		return func(t *target, v *value) { t.itemOf().Description1 = v.s }
	case "ean":
		return func(t *target, v *value) { t.itemOf().EAN = v.s }
	case "eanBox":
		return func(t *target, v *value) { t.itemOf().EANBox = v.s }
	case "supplierCode":
		return func(t *target, v *value) { t.itemOf().SupplierCode = v.s }
	case "quantityPerBox":
		return func(t *target, v *value) { t.itemOf().QuantityPerBox = v.d }
	case "length":
		return func(t *target, v *value) { t.itemOf().Length = v.d }
	case "width":
		return func(t *target, v *value) { t.itemOf().Width = v.d }
	case "height":
		return func(t *target, v *value) { t.itemOf().Height = v.d }
	case "grossWeight":
		return func(t *target, v *value) { t.itemOf().GrossWeight = v.d }
	case "grossWeightBox":
		return func(t *target, v *value) { t.itemOf().GrossWeightBox = v.d }
	case "buyPrice":
		return func(t *target, v *value) { t.itemOf().BuyPrice = v.d }
	}
	return nil
}

func packagingSetter(name string) setter {
	str := func(f func(*model.Packaging) *string) setter {
		return func(t *target, v *value) { *f(t.pack) = v.s }
	}
	dec := func(f func(*model.Packaging) *model.Decimal) setter {
		return func(t *target, v *value) { *f(t.pack) = v.d }
	}
	switch name {
	case "sku":
		return str(func(p *model.Packaging) *string { return &p.SKU })
	case "code":
		return str(func(p *model.Packaging) *string { return &p.Code })
	case "ean":
		return str(func(p *model.Packaging) *string { return &p.EAN })
	case "level":
		return str(func(p *model.Packaging) *string { return &p.Level })
	case "type":
		return str(func(p *model.Packaging) *string { return &p.Type })
	case "supplierCode":
		return str(func(p *model.Packaging) *string { return &p.SupplierCode })
	case "quantity":
		return func(t *target, v *value) { t.pack.Quantity = v.i }
	case "length":
		return dec(func(p *model.Packaging) *model.Decimal { return &p.Length })
	case "width":
		return dec(func(p *model.Packaging) *model.Decimal { return &p.Width })
	case "height":
		return dec(func(p *model.Packaging) *model.Decimal { return &p.Height })
	case "grossWeight":
		return dec(func(p *model.Packaging) *model.Decimal { return &p.GrossWeight })
	case "netWeight":
		return dec(func(p *model.Packaging) *model.Decimal { return &p.NetWeight })
	}
	return nil
}

func inboundSetter(name string) setter {
	if key, ok := strings.CutPrefix(name, "attributes."); ok {
		return func(t *target, v *value) {
			if t.in.Attributes == nil {
				t.in.Attributes = map[string]string{}
			}
			t.in.Attributes[key] = v.s
		}
	}
	switch name {
	case "orderNumber":
		return func(t *target, v *value) { t.in.OrderNumber = v.s }
	case "referenceNumber":
		return func(t *target, v *value) { t.in.ReferenceNumber = v.s }
	case "warehouseLocation":
		return func(t *target, v *value) { t.in.WarehouseLocation = v.i }
	case "warehouseCode":
		return func(t *target, v *value) { t.in.WarehouseCode = v.s }
	case "supplierCode":
		return func(t *target, v *value) { t.in.SupplierCode = v.s }
	case "orderType":
		return func(t *target, v *value) { t.in.OrderType = v.s }
	case "dueAt":
		return func(t *target, v *value) { t.in.DueAt = v.t }
	case "position":
		return func(t *target, v *value) { t.inLine.Position = int(v.i) }
	case "sku":
		return func(t *target, v *value) { t.inLine.SKU = v.s }
	case "quantity":
		return func(t *target, v *value) { t.inLine.Quantity = v.i }
	case "lotNumber":
		return func(t *target, v *value) { t.inLine.LotNumber = v.s }
	case "expiryDate":
		return func(t *target, v *value) { t.inLine.ExpiryDate = v.t }
	case "ownerCode":
		return func(t *target, v *value) { t.inLine.OwnerCode = v.s }
	}
	return nil
}

func outboundSetter(name string) setter {
	switch name {
	case "orderNumber":
		return func(t *target, v *value) { t.out.OrderNumber = v.s }
	case "externalOrderNumber":
		return func(t *target, v *value) { t.out.ExternalOrderNumber = v.s }
	case "deliveryMode":
		return func(t *target, v *value) { t.out.DeliveryMode = v.s }
	case "warehouseLocation":
		return func(t *target, v *value) { t.out.WarehouseLocation = v.i }
	case "warehouseCode":
		return func(t *target, v *value) { t.out.WarehouseCode = v.s }
	case "shipToCode":
		return func(t *target, v *value) { t.out.ShipToCode = v.s }
	case "billingToCode":
		return func(t *target, v *value) { t.out.BillingToCode = v.s }
	case "carrierCode":
		return func(t *target, v *value) { t.out.CarrierCode = v.s }
	case "carrierServiceCode":
		return func(t *target, v *value) { t.out.CarrierServiceCode = v.s }
	case "plannedDeliveryDate":
		return func(t *target, v *value) { t.out.PlannedDeliveryDate = v.t }
	case "deliveryTimeSlotBefore":
		return func(t *target, v *value) { t.out.DeliveryTimeSlotBefore = v.s }
	case "position":
		return func(t *target, v *value) { t.outLine.Position, t.svc.Position = int(v.i), int(v.i) }
	case "sku":
		return func(t *target, v *value) { t.outLine.SKU = v.s }
	case "quantity":
		return func(t *target, v *value) { t.outLine.Quantity, t.svc.Quantity = v.i, v.i }
	case "serviceType":
		return func(t *target, v *value) { t.svc.ServiceType = v.s }
	case "purchaseOrderLineItem.orderNumber":
		return func(t *target, v *value) { t.outLine.ReceptionOrderNumber = v.s }
	case "purchaseOrderLineItem.position":
		return func(t *target, v *value) { t.outLine.ReceptionPosition = int(v.i) }
	case "lotNumber":
		return func(t *target, v *value) { t.outLine.LotNumber = v.s }
	case "expiryDate":
		return func(t *target, v *value) { t.outLine.ExpiryDate = v.t }
	case "ownerCode":
		return func(t *target, v *value) { t.outLine.OwnerCode = v.s }
	}
	return nil
}

func addressField(name string) func(a *model.Address) *string {
	switch name {
	case "relationship":
		return func(a *model.Address) *string { return &a.Relationship }
	case "name":
		return func(a *model.Address) *string { return &a.Name }
	case "title":
		return func(a *model.Address) *string { return &a.Title }
	case "firstName":
		return func(a *model.Address) *string { return &a.FirstName }
	case "lastName":
		return func(a *model.Address) *string { return &a.LastName }
	case "contactName":
		return func(a *model.Address) *string { return &a.ContactName }
	case "streetAddress":
		return func(a *model.Address) *string { return &a.StreetAddress }
	case "streetAddress2":
		return func(a *model.Address) *string { return &a.StreetAddress2 }
	case "streetAddress3":
		return func(a *model.Address) *string { return &a.StreetAddress3 }
	case "city":
		return func(a *model.Address) *string { return &a.City }
	case "state":
		return func(a *model.Address) *string { return &a.State }
	case "zipcode":
		return func(a *model.Address) *string { return &a.Zipcode }
	case "countryCode":
		return func(a *model.Address) *string { return &a.CountryCode }
	case "email":
		return func(a *model.Address) *string { return &a.Email }
	case "phone":
		return func(a *model.Address) *string { return &a.Phone }
	case "languageCode":
		return func(a *model.Address) *string { return &a.LanguageCode }
	case "attributes.accessCode":
		return func(a *model.Address) *string { return &a.AccessCode }
	case "attributes.company":
		return func(a *model.Address) *string { return &a.Company }
	case "attributes.floor":
		return func(a *model.Address) *string { return &a.Floor }
	case "attributes.building":
		return func(a *model.Address) *string { return &a.Building }
	}
	return nil
}
