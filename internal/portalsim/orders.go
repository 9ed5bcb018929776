package portalsim

import "slices"

// createPO creates a reception (A) or purchase order (B); the expected
// quantities become incoming stock.
func (s *Sim) createPO(m map[string]any) (doc, vset) {
	o := s.docInput(m)
	p := &purchaseOrder{Company: s.opts.Company, Status: statusCreated}
	if s.isB() {
		p.OrderNumber = o.str("orderNumber", reqMax(poNumberMaxB))
		p.OrderType = o.str("orderType", opt)
	} else {
		p.OrderNumber = o.str("orderNumber", reqMax(receptionNumberMax))
		p.OrderType = o.str("orderType", field{enum: s.receptionOrderTypes()})
	}
	p.Reference = o.str("referenceNumber", opt)
	p.WarehouseID = o.warehouse("warehouseLocation", true)
	p.SupplierID = o.ref("supplier", true, Connections, refInt)
	if !s.isB() {
		if a, ok := o.object("attributes", false); ok {
			p.HasAttributes = true
			p.DeliveryType = a.str("deliveryType", opt)
		}
	}
	p.DueAt = o.when("dueAt", !s.isB())
	seen := map[int64]bool{}
	for i, l := range o.list("purchaseOrderLineItems", true) {
		p.Lines = append(p.Lines, poLine{orderLine: s.readLine(l, i, seen)})
	}
	if !s.free(o, PurchaseOrders, "orderNumber", p.OrderNumber) {
		return nil, *o.v
	}
	s.store(PurchaseOrders, p, p.OrderNumber)
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
	o := s.docInput(m)
	so := &salesOrder{Company: s.opts.Company, FulfillmentStatus: statusCreated}
	so.OrderNumber = o.str("orderNumber", reqMax(orderNumberMax))
	// Edition A requires externalOrderNumber and lists deliveryMode's
	// values; Edition B does neither.
	so.ExternalOrderNumber = o.str("externalOrderNumber", field{required: !s.isB()})
	if s.isB() {
		so.DeliveryMode = o.str("deliveryMode", opt)
	} else {
		so.DeliveryMode = o.str("deliveryMode", field{enum: deliveryModesA})
	}
	so.WarehouseID = o.warehouse("warehouseLocation", true)
	var shipNew, billNew *connection
	if s.isB() {
		so.ShipToID, shipNew = s.party(o, "shipTo", true)
		so.BillingToID, billNew = s.party(o, "billingTo", false)
		so.CarrierID = o.ref("carrier", false, Carriers, refInt)
		so.CarrierServiceID = o.ref("carrierService", false, CarrierServices, refInt)
		if so.CarrierID > 0 && so.CarrierServiceID > 0 {
			if svc := s.tables[CarrierServices].get(so.CarrierServiceID).(*carrierService); svc.CarrierID != so.CarrierID {
				o.v.add("carrierService", msgInvalid+" The service belongs to another carrier.", codeInvalid)
			}
		}
		so.PlannedDeliveryDate = o.date("plannedDeliveryDate", false)
		so.TimeSlot = o.timeOfDay("deliveryTimeSlotBefore", false)
	} else if a, ok := o.object("shipTo", true); ok {
		so.ShipTo = s.readAddress(a)
	}
	seen := map[int64]bool{}
	for i, l := range o.list("salesOrderLineItems", true) {
		line := soLine{orderLine: s.readLine(l, i, seen)}
		if !s.isB() {
			if link, ok := l.object("purchaseOrderLineItem", false); ok {
				line.HasPOLink = true
				line.POOrderNumber = link.str("orderNumber", opt)
				line.POPosition = link.integer("position", opt)
			}
		}
		so.Lines = append(so.Lines, line)
	}
	if !s.isB() {
		for i, l := range o.list("serviceLineItems", false) {
			sl := serviceLine{Position: int64(i + 1)}
			if l.has("position") {
				sl.Position = l.integer("position", opt)
			}
			sl.ServiceType = l.str("serviceType", req)
			sl.Quantity = l.integer("quantity", req)
			so.Services = append(so.Services, sl)
		}
	}
	if !s.free(o, SalesOrders, "orderNumber", so.OrderNumber) {
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
	s.store(SalesOrders, so, so.OrderNumber)
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
// Edition B its lot, expiry date and owner (each nullable).
func (s *Sim) readLine(l in, i int, seen map[int64]bool) orderLine {
	line := orderLine{Position: int64(i + 1)}
	if l.has("position") {
		line.Position = l.integer("position", opt)
	}
	if seen[line.Position] {
		l.v.add(l.path("position"), msgUsed, codeUnique)
	}
	seen[line.Position] = true
	line.VariantID = l.ref("variant", true, Variants, refInt)
	line.Quantity = l.integer("quantity", req)
	if s.isB() {
		line.LotNumber = l.str("lotNumber", opt)
		line.ExpiryDate = l.when("expiryDate", false)
		line.OwnerCode = l.str("ownerCode", opt)
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
		o.missing(name, required)
		return 0, nil
	}
	if _, isObj := x.(map[string]any); !isObj {
		return o.ref(name, required, Connections, refInt), nil
	}
	e, _ := o.object(name, required)
	if e.has("@id") || e.has("id") {
		key := "id"
		if e.has("@id") {
			key = "@id"
		}
		return e.ref(key, true, Connections, refInt), nil
	}
	c := s.readConnection(e, name == "shipTo")
	if c.Code != "" {
		if old, ok := s.tables[Connections].byKey[c.Code].(*connection); ok {
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

// readAddress reads an Edition A ShipTo: strings, but zipcode and
// accessCode (numbers in the samples) either way; the documents show no
// required field, no title values and no languageCode format.
func (s *Sim) readAddress(o in) *address {
	a := &address{}
	a.Name = o.str("name", opt)
	a.Title = o.str("title", opt)
	a.FirstName = o.str("firstName", opt)
	a.LastName = o.str("lastName", opt)
	a.Street1 = o.str("streetAddress", opt)
	a.Street2 = o.str("streetAddress2", opt)
	a.City = o.str("city", opt)
	a.CountryCode = o.str("countryCode", opt)
	a.Zipcode = o.flex("zipcode", opt)
	a.Email = o.str("email", opt)
	a.Phone = o.str("phone", opt)
	a.LanguageCode = o.str("languageCode", opt)
	if attrs, ok := o.object("attributes", false); ok {
		a.HasAttributes = true
		a.AccessCode = attrs.flex("accessCode", opt)
		a.Company = attrs.str("company", opt)
		a.Floor = attrs.str("floor", opt)
		a.Building = attrs.str("building", opt)
	}
	s.requireAddress(o, map[string]string{"name": a.Name + a.LastName, "streetAddress": a.Street1, "zipcode": a.Zipcode.s, "city": a.City, "countryCode": a.CountryCode})
	return a
}

// stockOf returns a variant's stock row.
func (s *Sim) stockOf(variantID int64) *stock {
	v := s.variantOf(variantID)
	if st, ok := s.tables[Stocks].get(v.StockID).(*stock); ok {
		return st
	}
	return s.newStock(v)
}

// receptionOrderTypes is Edition A's orderType enum, with STANDARD (which
// the samples use) when Choices.StandardOrderType accepts it.
func (s *Sim) receptionOrderTypes() []string {
	types := slices.Clone(orderTypesA)
	if s.ch.StandardOrderType {
		types = append(types, "STANDARD")
	}
	return types
}
