package portalsim

import (
	"slices"
	"strings"

	"filebridge/internal/model"
	"filebridge/internal/portal"
)

// createPO creates a reception (A) or purchase order (B); the expected
// quantities become incoming stock.
func (s *Sim) createPO(m map[string]any) (doc, vset) {
	o, f := s.docInput(m, model.KindInbound)
	p := &purchaseOrder{Company: s.opts.Company, Status: model.StatusCreated}
	p.OrderNumber = o.str("orderNumber", f("orderNumber"))
	p.Reference = o.str("referenceNumber", f("referenceNumber"))
	p.WarehouseID = o.warehouse("warehouseLocation", true)
	p.SupplierID = o.ref("supplier", f("supplierCode").Required, portal.Connections)
	p.OrderType = o.str("orderType", model.Field{MaxLen: f("orderType").MaxLen})
	if !s.isB() && p.OrderType != "" && !slices.Contains(s.receptionOrderTypes(), p.OrderType) {
		o.v.add("orderType", "The value you selected is not a valid choice (use one of "+strings.Join(s.receptionOrderTypes(), ", ")+").", codeChoice)
	}
	if !s.isB() {
		if a, ok := o.object("attributes", false); ok {
			p.HasAttributes = true
			p.DeliveryType = a.str("deliveryType", f("attributes.deliveryType"))
		}
	}
	p.DueAt = o.when("dueAt", f("dueAt"))
	seen := map[int64]bool{}
	for i, l := range o.list("purchaseOrderLineItems", true) {
		p.Lines = append(p.Lines, poLine{orderLine: s.readLine(l, i, f, seen)})
	}
	if !s.free(o, portal.PurchaseOrders, "orderNumber", p.OrderNumber) {
		return nil, *o.v
	}
	s.store(portal.PurchaseOrders, p, p.OrderNumber)
	for _, l := range p.Lines {
		st := s.stockOf(l.VariantID)
		st.Incoming += l.Quantity
		s.clock.touchStock(&st.base)
	}
	return p, nil
}

// createSO creates an order (A) or sales order (B); ordered quantities are
// allocated.
func (s *Sim) createSO(m map[string]any) (doc, vset) {
	o, f := s.docInput(m, model.KindOutbound)
	so := &salesOrder{Company: s.opts.Company, FulfillmentStatus: model.StatusCreated}
	so.OrderNumber = o.str("orderNumber", f("orderNumber"))
	so.ExternalOrderNumber = o.str("externalOrderNumber", f("externalOrderNumber"))
	so.DeliveryMode = o.str("deliveryMode", f("deliveryMode"))
	so.WarehouseID = o.warehouse("warehouseLocation", true)
	var shipNew, billNew *connection
	if s.isB() {
		so.ShipToID, shipNew = s.party(o, "shipTo", true)
		so.BillingToID, billNew = s.party(o, "billingTo", false)
		so.CarrierID = o.ref("carrier", false, portal.Carriers)
		so.CarrierServiceID = o.ref("carrierService", false, portal.CarrierServices)
		if so.CarrierID > 0 && so.CarrierServiceID > 0 {
			if svc := s.tables[portal.CarrierServices].get(so.CarrierServiceID).(*carrierService); svc.CarrierID != so.CarrierID {
				o.v.add("carrierService", msgInvalid+" The service belongs to another carrier.", codeInvalid)
			}
		}
		so.PlannedDeliveryDate = o.date("plannedDeliveryDate", f("plannedDeliveryDate"))
		so.TimeSlot = o.timeOfDay("deliveryTimeSlotBefore", f("deliveryTimeSlotBefore"))
	} else if a, ok := o.object("shipTo", true); ok {
		so.ShipTo = s.readAddress(a)
	}
	seen := map[int64]bool{}
	for i, l := range o.list("salesOrderLineItems", true) {
		line := soLine{orderLine: s.readLine(l, i, f, seen)}
		if !s.isB() {
			if link, ok := l.object("purchaseOrderLineItem", false); ok {
				line.HasPOLink = true
				line.POOrderNumber = link.str("orderNumber", f("purchaseOrderLineItem.orderNumber"))
				line.POPosition = link.integer("position", f("purchaseOrderLineItem.position"))
			}
		}
		so.Lines = append(so.Lines, line)
	}
	if !s.isB() {
		qty := required(f("quantity"))
		for i, l := range o.list("serviceLineItems", false) {
			sl := serviceLine{Position: int64(i + 1)}
			if l.has("position") {
				sl.Position = l.integer("position", f("position"))
			}
			sl.ServiceType = l.str("serviceType", required(f("serviceType")))
			sl.Quantity = l.integer("quantity", qty)
			so.Services = append(so.Services, sl)
		}
	}
	if !s.free(o, portal.SalesOrders, "orderNumber", so.OrderNumber) {
		return nil, *o.v
	}
	if shipNew != nil {
		s.insertConnection(shipNew)
		so.ShipToID = shipNew.ID
	}
	if billNew != nil {
		if shipNew != nil && billNew.Code != "" && billNew.Code == shipNew.Code {
			so.BillingToID = shipNew.ID
		} else {
			s.insertConnection(billNew)
			so.BillingToID = billNew.ID
		}
	}
	s.store(portal.SalesOrders, so, so.OrderNumber)
	for _, l := range so.Lines {
		st := s.stockOf(l.VariantID)
		st.Allocated += l.Quantity
		st.Available = max(0, st.Available-l.Quantity)
		s.clock.touchStock(&st.base)
	}
	return so, nil
}

// readLine reads line i of a new order: its position (by default its rank,
// unique in the order, seen so far in seen), variant and quantity, and in
// Edition B its lot, expiry date and owner. f gives the fields' rules.
func (s *Sim) readLine(l in, i int, f func(string) model.Field, seen map[int64]bool) orderLine {
	line := orderLine{Position: int64(i + 1)}
	if l.has("position") {
		line.Position = l.integer("position", f("position"))
	}
	if seen[line.Position] {
		l.v.add(l.path("position"), msgUsed, codeUnique)
	}
	seen[line.Position] = true
	line.VariantID = l.ref("variant", true, portal.Variants)
	line.Quantity = l.integer("quantity", f("quantity"))
	if s.isB() {
		line.LotNumber = l.str("lotNumber", f("lotNumber"))
		line.ExpiryDate = l.when("expiryDate", f("expiryDate"))
		line.OwnerCode = l.str("ownerCode", f("ownerCode"))
	}
	return line
}

// party reads a sales order's consignee or billing party (B): a connection
// id or IRI, or an embedded connection. An embedded connection whose code
// exists is that connection (refused as a repeated code in the literal
// mode); otherwise it is returned to be created with the order.
func (s *Sim) party(o in, name string, required bool) (int64, *connection) {
	x, ok := o.get(name)
	if !ok {
		o.missing(name, model.Field{Required: required})
		return 0, nil
	}
	if _, isObj := x.(map[string]any); !isObj {
		return o.ref(name, required, portal.Connections), nil
	}
	e, _ := o.object(name, required)
	if e.has("@id") || e.has("id") {
		key := "id"
		if e.has("@id") {
			key = "@id"
		}
		return e.ref(key, true, portal.Connections), nil
	}
	c := s.readConnection(e, name == "shipTo")
	if c.Code != "" {
		if old, ok := s.tables[portal.Connections].byKey[c.Code].(*connection); ok {
			if s.ch.ConsigneeCode == "refuse" {
				// A connection code is unique, embedded or not.
				e.v.add(e.path("code"), msgUsed, codeUnique)
				return 0, nil
			}
			return old.ID, nil
		}
	}
	return 0, c
}

// readAddress reads an Edition A ShipTo with the edition's shipTo.* rules
// and the carrier's required address fields.
func (s *Sim) readAddress(o in) *address {
	f := func(name string) model.Field { return s.fieldOf(model.KindOutbound, "shipTo."+name) }
	a := &address{}
	a.Name = o.str("name", f("name"))
	a.Title = o.str("title", f("title"))
	a.FirstName = o.str("firstName", f("firstName"))
	a.LastName = o.str("lastName", f("lastName"))
	a.Street1 = o.str("streetAddress", f("streetAddress"))
	a.Street2 = o.str("streetAddress2", f("streetAddress2"))
	a.City = o.str("city", f("city"))
	a.CountryCode = o.str("countryCode", f("countryCode"))
	a.Zipcode = o.flex("zipcode", f("zipcode"))
	a.Email = o.str("email", f("email"))
	a.Phone = o.flex("phone", f("phone")).s
	a.LanguageCode = o.str("languageCode", f("languageCode"))
	if attrs, ok := o.object("attributes", false); ok {
		g := func(name string) model.Field { return f("attributes." + name) }
		a.HasAttributes = true
		a.AccessCode = attrs.flex("accessCode", g("accessCode"))
		a.Company = attrs.str("company", g("company"))
		a.Floor = attrs.flex("floor", g("floor")).s
		a.Building = attrs.flex("building", g("building")).s
	}
	requireAddress(o, map[string]string{"name": a.Name + a.LastName, "streetAddress": a.Street1, "zipcode": a.Zipcode.s, "city": a.City, "countryCode": a.CountryCode})
	return a
}

// stockOf returns a variant's stock row.
func (s *Sim) stockOf(variantID int64) *stock {
	v := s.variantOf(variantID)
	if st, ok := s.tables[portal.Stocks].get(v.StockID).(*stock); ok {
		return st
	}
	return s.newStock(v)
}

// receptionOrderTypes is Edition A's orderType enum, with STANDARD (which
// the samples use) when Choices.StandardOrderType accepts it.
func (s *Sim) receptionOrderTypes() []string {
	types := []string{"SEMI", "CONT20", "CONT40", "CONT40HC", "CONT45HC"}
	if s.ch.StandardOrderType {
		types = append(types, "STANDARD")
	}
	return types
}
