package portalsim

import (
	"time"
)

// Lookups by id; a missing document reads as an empty one. Callers hold
// s.mu.

// stored returns the document of r with this id, or an empty T.
func stored[T any](s *Sim, r Resource, id int64) *T {
	if d, ok := any(s.tables[r].get(id)).(*T); ok {
		return d
	}
	return new(T)
}

func (s *Sim) variantOf(id int64) *variant { return stored[variant](s, Variants, id) }

func (s *Sim) connectionOf(id int64) *connection {
	return stored[connection](s, Connections, id)
}

func (s *Sim) carrierOf(id int64) *carrier { return stored[carrier](s, Carriers, id) }

func (s *Sim) salesOrderOf(id int64) *salesOrder {
	return stored[salesOrder](s, SalesOrders, id)
}

func (s *Sim) shippingUnitOf(id int64) *shippingUnit {
	return stored[shippingUnit](s, ShippingUnits, id)
}

func (s *Sim) fulfillmentNumberOf(u *shippingUnit) string {
	for _, id := range s.salesOrderOf(u.SalesOrderID).FulfillmentIDs {
		if f, ok := s.tables[Fulfillments].get(id).(*fulfillment); ok && f.ShippingUnitID == u.ID {
			return f.FulfillmentNumber
		}
	}
	return ""
}

// ts renders a timestamp of the document with this id: every 7th document
// (shifted by the seed) uses the "+00:00:00" variant.
func (s *Sim) ts(id int64, t time.Time) stamp {
	return stamp{t: t, alt: (id+s.opts.Seed)%7 == 0}
}

func iri(r Resource, id int64) string { return r.path() + "/" + itoa(id) }

func (s *Sim) isB() bool { return s.opts.Edition == EditionB }

func (s *Sim) times(b *base) obj {
	return obj{{"createdAt", s.ts(b.ID, b.CreatedAt)}, {"updatedAt", s.ts(b.ID, b.UpdatedAt)}}
}

func (s *Sim) renderConnection(c *connection) obj {
	o := obj{{"@id", iri(Connections, c.ID)}, {"@type", "Connection"}, {"id", c.ID}, {"company", c.Company},
		{"code", c.Code}, {"name", c.Name}, {"relationship", c.Relationship}}
	if s.isB() {
		o = append(o, kv{"countryCode", nullable(c.CountryCode)}, kv{"state", nullable(c.State)}, kv{"city", nullable(c.City)},
			kv{"zipcode", nullable(c.Zipcode)}, kv{"streetAddress", nullable(c.Street1)}, kv{"streetAddress2", nullable(c.Street2)},
			kv{"streetAddress3", nullable(c.Street3)}, kv{"email", nullable(c.Email)}, kv{"contactName", nullable(c.ContactName)},
			kv{"phone", nullable(c.Phone)})
	}
	return append(o, s.stampsOf(Connections, &c.base)...)
}

// renderVariant renders a SKU (A) or variant (B); in Edition A the supplier
// is a Supplier object, or its id when supplierObj is false (stock
// movements).
func (s *Sim) renderVariant(v *variant, supplierObj bool) obj {
	o := obj{{"@id", iri(Variants, v.ID)}, {"@type", "Variant"}, {"id", v.ID}, {"company", v.Company},
		{"sku", v.SKU}, {"name", v.Name}, {"description1", nullable(v.Description1)}, {"ean", v.EAN}}
	if !s.isB() {
		var sup any = v.SupplierID
		if supplierObj {
			sup = s.renderConnection(s.connectionOf(v.SupplierID))
		}
		o = append(o, kv{"eanBox", nullable(v.EANBox)}, kv{"quantityPerBox", v.QuantityPerBox},
			kv{"length", v.Length}, kv{"width", v.Width}, kv{"height", v.Height},
			kv{"grossWeight", v.GrossWeight}, kv{"grossWeightBox", v.GrossWeightBox}, kv{"buyPrice", v.BuyPrice},
			kv{"supplier", sup})
	} else {
		dim := func(d decimal) any { return d }
		if !s.ch.NullNumbers {
			// The documents type them number, not nullable: absent is 0.
			dim = func(d decimal) any {
				if d.IsZero() {
					return 0
				}
				return d
			}
		}
		o = append(o, kv{"length", dim(v.Length)}, kv{"width", dim(v.Width)}, kv{"height", dim(v.Height)}, kv{"grossWeight", dim(v.GrossWeight)})
	}
	return append(o, s.stampsOf(Variants, &v.base)...)
}

func (s *Sim) renderPackaging(p *packaging) obj {
	var qty, sup any
	if p.Quantity > 0 {
		qty = p.Quantity
	}
	if p.SupplierID > 0 {
		sup = s.renderConnection(s.connectionOf(p.SupplierID))
	}
	o := obj{{"@id", iri(VariantPackagings, p.ID)}, {"@type", "VariantPackaging"}, {"id", p.ID},
		{"variant", s.renderVariant(s.variantOf(p.VariantID), true)}, {"code", p.Code}, {"ean", nullable(p.EAN)},
		{"quantity", qty}, {"length", p.Length}, {"width", p.Width}, {"height", p.Height},
		{"grossWeight", p.GrossWeight}, {"netWeight", p.NetWeight}, {"level", nullable(p.Level)},
		{"type", nullable(p.Type)}, {"supplier", sup}}
	return append(o, s.times(&p.base)...)
}

func renderWarehouse(id int64, full bool) obj {
	w, _ := findWarehouse(id)
	o := obj{{"id", w.ID}, {"code", w.Code}, {"name", w.Name}}
	if full {
		o = append(obj{{"@id", "/api/warehouses/" + itoa(w.ID)}, {"@type", "Warehouse"}}, o...)
	}
	return o
}

func (s *Sim) renderWarehouseClient(w *warehouseClient) obj {
	o := obj{{"@id", iri(WarehouseClients, w.ID)}, {"@type", "WarehouseClient"}, {"id", w.ID},
		{"clientCode", w.ClientCode}, {"company", w.Company}, {"warehouse", renderWarehouse(w.WarehouseID, true)}}
	return append(o, s.times(&w.base)...)
}

func (s *Sim) renderCarrier(c *carrier) obj {
	if c.ID == 0 {
		return nil
	}
	return obj{{"@id", iri(Carriers, c.ID)}, {"@type", "Carrier"}, {"id", c.ID}, {"code", c.Code}, {"name", c.Name},
		{"mainTransportationType", obj{{"@id", "/api/reference_codes/" + itoa(c.ModeID)}, {"@type", "ReferenceCode"}, {"id", c.ModeID}, {"code", c.Mode}}}}
}

func (s *Sim) renderService(c *carrierService) obj {
	return obj{{"@id", iri(CarrierServices, c.ID)}, {"@type", "CarrierService"}, {"id", c.ID},
		{"carrier", s.renderCarrier(s.carrierOf(c.CarrierID))}, {"code", c.Code}, {"name", c.Name}}
}

// statusObj is {code} in Edition A and {code, name} in B; code 0 is null.
func (s *Sim) statusObj(code int, name string) any {
	if code == 0 {
		return nil
	}
	if s.isB() {
		return obj{{"code", code}, {"name", name}}
	}
	return obj{{"code", code}}
}

func (s *Sim) renderPO(p *purchaseOrder) obj {
	var wh any = p.WarehouseID
	if s.isB() {
		wh = renderWarehouse(p.WarehouseID, false)
	}
	lines := make([]obj, len(p.Lines))
	for i, l := range p.Lines {
		if s.isB() {
			lines[i] = obj{{"position", l.Position}, {"variant", s.renderVariant(s.variantOf(l.VariantID), true)}, {"quantity", l.Quantity},
				{"lotNumber", nullable(l.LotNumber)}, {"expiryDate", s.ts(p.ID, l.ExpiryDate)}, {"ownerCode", nullable(l.OwnerCode)},
				{"quantityReceived", l.QuantityReceived}}
		} else {
			lines[i] = obj{{"position", l.Position}, {"variant", l.VariantID}, {"quantity", l.Quantity}, {"quantityReceived", l.QuantityReceived}}
		}
	}
	o := obj{{"@id", iri(PurchaseOrders, p.ID)}, {"@type", "PurchaseOrder"}, {"id", p.ID}, {"company", p.Company},
		{"orderNumber", p.OrderNumber}, {"referenceNumber", nullable(p.Reference)}, {"warehouseLocation", wh},
		{"supplier", p.SupplierID}, {"orderType", nullable(p.OrderType)}}
	if !s.isB() {
		var attrs any
		if p.HasAttributes {
			attrs = obj{{"deliveryType", nullable(p.DeliveryType)}}
		}
		o = append(o, kv{"attributes", attrs})
	}
	o = append(o, kv{"dueAt", s.ts(p.ID, p.DueAt)}, kv{"purchaseOrderLineItems", lines},
		kv{"status", s.statusObj(p.Status, inboundStatusName(p.Status))}, kv{"receivedAt", s.ts(p.ID, p.ReceivedAt)})
	return append(o, s.stampsOf(PurchaseOrders, &p.base)...)
}

// outboundStatusName names order fulfillment codes (the documents name
// none; these are the simulator's).
func outboundStatusName(code int) string {
	switch code {
	case statusCreated:
		return "Created"
	case statusInWMS:
		return "In WMS"
	case statusReceived:
		return "Shipped"
	case statusCanceled:
		return "Cancelled"
	}
	return ""
}

// transportStatusName names shipping unit and transportation codes.
func transportStatusName(code int) string {
	switch code {
	case suPickedUp:
		return "Picked up"
	case suInTransit:
		return "In transit"
	case suDelivered:
		return "Delivered"
	}
	return ""
}

func (s *Sim) renderAddress(a *address) obj {
	if a == nil {
		return nil
	}
	var attrs any
	if a.HasAttributes {
		attrs = obj{{"accessCode", nullNum(a.AccessCode)}, {"company", nullable(a.Company)}, {"floor", nullable(a.Floor)}, {"building", nullable(a.Building)}}
	}
	return obj{{"name", nullable(a.Name)}, {"title", nullable(a.Title)}, {"firstName", nullable(a.FirstName)}, {"lastName", nullable(a.LastName)},
		{"streetAddress", nullable(a.Street1)}, {"streetAddress2", nullable(a.Street2)}, {"city", nullable(a.City)},
		{"countryCode", nullable(a.CountryCode)}, {"zipcode", nullNum(a.Zipcode)}, {"email", nullable(a.Email)},
		{"phone", nullable(a.Phone)}, {"languageCode", nullable(a.LanguageCode)}, {"attributes", attrs}}
}

func nullNum(n numText) any {
	if n.s == "" {
		return nil
	}
	return n
}

// renderSO renders a sales order; with units, its shipping units (Edition
// B) are embedded.
func (s *Sim) renderSO(o *salesOrder, units bool) obj {
	lines := make([]obj, len(o.Lines))
	for i, l := range o.Lines {
		if s.isB() {
			lines[i] = obj{{"position", l.Position}, {"variant", l.VariantID}, {"quantity", l.Quantity},
				{"lotNumber", nullable(l.LotNumber)}, {"expiryDate", s.ts(o.ID, l.ExpiryDate)}, {"ownerCode", nullable(l.OwnerCode)},
				{"quantityShipped", l.QuantityShipped}}
			continue
		}
		var link any
		if l.HasPOLink {
			link = obj{{"orderNumber", nullable(l.POOrderNumber)}, {"position", l.POPosition}}
		}
		lines[i] = obj{{"position", l.Position}, {"variant", l.VariantID}, {"quantity", l.Quantity},
			{"purchaseOrderLineItem", link}, {"quantityShipped", l.QuantityShipped}}
	}
	out := obj{{"@id", iri(SalesOrders, o.ID)}, {"@type", "SalesOrder"}, {"id", o.ID}, {"company", o.Company},
		{"orderNumber", o.OrderNumber}, {"externalOrderNumber", nullable(o.ExternalOrderNumber)},
		{"deliveryMode", nullable(o.DeliveryMode)}, {"warehouseLocation", o.WarehouseID}}
	fs := s.statusObj(o.FulfillmentStatus, outboundStatusName(o.FulfillmentStatus))
	ts := s.statusObj(o.TransportationStatus, transportStatusName(o.TransportationStatus))
	if !s.isB() {
		services := make([]obj, len(o.Services))
		for i, l := range o.Services {
			services[i] = obj{{"position", l.Position}, {"serviceType", l.ServiceType}, {"quantity", l.Quantity}}
		}
		out = append(out, kv{"shipTo", s.renderAddress(o.ShipTo)}, kv{"salesOrderLineItems", lines}, kv{"serviceLineItems", services},
			kv{"fulfillmentStatus", fs}, kv{"transportationStatus", ts}, kv{"shippedAt", s.ts(o.ID, o.ShippedAt)},
			kv{"attributes", obj{{"marketplaceTrackingNumber", nullable(o.TrackingNumber)}, {"receiptNumber", nullable(o.ReceiptNumber)}}})
		return append(out, s.stampsOf(SalesOrders, &o.base)...)
	}
	var billing, carr, svc any
	if o.BillingToID > 0 {
		billing = s.renderConnection(s.connectionOf(o.BillingToID))
	}
	if o.CarrierID > 0 {
		carr = s.renderCarrier(s.carrierOf(o.CarrierID))
	}
	if c, ok := s.tables[CarrierServices].get(o.CarrierServiceID).(*carrierService); ok {
		svc = s.renderService(c)
	}
	out = append(out, kv{"shipTo", s.renderConnection(s.connectionOf(o.ShipToID))}, kv{"billingTo", billing},
		kv{"requestedCarrier", carr}, kv{"requestedCarrierService", svc},
		kv{"plannedDeliveryDate", nullable(o.PlannedDeliveryDate)}, kv{"deliveryTimeSlotBefore", nullable(o.TimeSlot)},
		kv{"salesOrderLineItems", lines}, kv{"fulfillmentStatus", fs}, kv{"transportationStatus", ts},
		kv{"shippedAt", s.ts(o.ID, o.ShippedAt)})
	if units {
		sus := make([]obj, 0, len(o.ShippingUnitIDs))
		for _, id := range o.ShippingUnitIDs {
			sus = append(sus, s.renderSU(s.shippingUnitOf(id), false))
		}
		out = append(out, kv{"shippingUnits", sus})
	}
	return append(out, s.stampsOf(SalesOrders, &o.base)...)
}

func soSummary(o *salesOrder) obj {
	return obj{{"@id", iri(SalesOrders, o.ID)}, {"@type", "SalesOrder"}, {"id", o.ID},
		{"orderNumber", o.OrderNumber}, {"externalOrderNumber", nullable(o.ExternalOrderNumber)}}
}

func soLineRef(position, quantity int64) obj {
	return obj{{"@type", "SalesOrderLineItem"}, {"position", position}, {"quantity", quantity}}
}

func dateOnly(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.Format(time.DateOnly)
}

func (s *Sim) renderFulfillment(f *fulfillment) obj {
	so := s.salesOrderOf(f.SalesOrderID)
	qtyOf := func(pos int64) int64 {
		for _, l := range so.Lines {
			if l.Position == pos {
				return l.Quantity
			}
		}
		return 0
	}
	var done, undone int64
	lines := make([]obj, len(f.Lines))
	for i, l := range f.Lines {
		done += l.Quantity
		lines[i] = obj{{"@id", "/api/fulfillment_line_items/" + itoa(l.ID)}, {"@type", "FulfillmentLineItem"}, {"id", l.ID},
			{"variant", s.renderVariant(s.variantOf(l.VariantID), true)}, {"salesOrderLineItem", soLineRef(l.SOLinePosition, qtyOf(l.SOLinePosition))},
			{"quantityFulfilled", l.Quantity}, {"ownerCode", nullable(l.OwnerCode)}, {"lotNumber", nullable(l.Lot)}, {"expiryDate", dateOnly(l.ExpiryDate)}}
	}
	un := make([]obj, len(f.Unfulfillable))
	for i, l := range f.Unfulfillable {
		undone += l.Quantity
		un[i] = obj{{"@id", "/api/unfulfillable_line_items/" + itoa(l.ID)}, {"@type", "UnfulfillableLineItem"}, {"id", l.ID},
			{"variant", s.renderVariant(s.variantOf(l.VariantID), true)}, {"salesOrderLineItem", soLineRef(l.SOLinePosition, qtyOf(l.SOLinePosition))},
			{"quantityUnfulfillable", l.Quantity},
			{"reasonCode", obj{{"@id", "/api/reference_codes/" + itoa(reasonID)}, {"@type", "ReferenceCode"}, {"id", reasonID}, {"code", l.ReasonCode}}},
			{"reasonComment", l.ReasonComment}}
	}
	var svc any
	if c, ok := s.tables[CarrierServices].get(f.CarrierServiceID).(*carrierService); ok {
		svc = s.renderService(c)
	}
	o := obj{{"@id", iri(Fulfillments, f.ID)}, {"@type", "Fulfillment"}, {"id", f.ID},
		{"company", obj{{"@id", "/api/companies/" + itoa(f.Company)}, {"@type", "Company"}, {"id", f.Company}}},
		{"fulfillmentNumber", f.FulfillmentNumber}, {"fulfilledAt", s.ts(f.ID, f.FulfilledAt)},
		{"warehouse", renderWarehouse(f.WarehouseID, false)},
		{"status", obj{{"code", statusReceived}, {"name", outboundStatusName(statusReceived)}}},
		{"fulfillmentTrigger", "WMS"}, {"trackingNumber", f.TrackingNumber},
		{"carrier", s.renderCarrier(s.carrierOf(f.CarrierID))}, {"carrierService", svc},
		{"salesOrder", s.renderSO(so, true)},
		{"totalQuantityFulfilled", done}, {"totalQuantityUnfulfillable", undone},
		{"fulfillmentLineItems", lines}, {"unfulfillableLineItems", un}}
	return append(o, s.times(&f.base)...)
}

const user = "/api/users/1"

// renderSU renders a shipping unit; top marks a member of the shipping unit
// list (with its sales order summary) rather than one embedded in a sales
// order.
func (s *Sim) renderSU(u *shippingUnit, top bool) obj {
	lines := make([]obj, len(u.Lines))
	for i, l := range u.Lines {
		lines[i] = obj{{"id", l.ID}, {"variant", s.renderVariant(s.variantOf(l.VariantID), true)}, {"quantity", l.Quantity},
			{"totalWeight", l.TotalWeight}, {"totalVolume", l.TotalVolume}, {"expiryDate", s.ts(u.ID, l.ExpiryDate)},
			{"lotNumber", nullable(l.Lot)}, {"ownerCode", nullable(l.OwnerCode)}, {"salesOrderLineItem", soLineRef(l.SOLinePosition, l.Quantity)},
			{"updatedBy", user}, {"updatedAt", s.ts(u.ID, l.UpdatedAt)}}
	}
	events := make([]obj, 0, len(u.EventIDs))
	for _, id := range u.EventIDs {
		if e, ok := s.tables[ShippingUnitEvents].get(id).(*shippingUnitEvent); ok {
			events = append(events, s.eventBody(e))
		}
	}
	o := obj{{"@id", iri(ShippingUnits, u.ID)}, {"@type", "ShippingUnit"}, {"id", u.ID},
		{"shippingUnitNumber", u.Number}, {"shippingTrackingNumber", u.TrackingNumber},
		{"shippingUnitStatus", obj{{"code", u.Status}, {"name", transportStatusName(u.Status)}}},
		{"shippingUnitLineItems", lines}, {"shippingUnitEvents", events},
		{"shipTo", s.renderConnection(s.connectionOf(u.ShipToID))},
		{"weight", u.Weight}, {"volume", u.Volume}, {"height", u.Height}, {"width", u.Width}, {"length", u.Length},
		{"completedAt", s.ts(u.ID, u.CompletedAt)}, {"deliveryDateTime", s.ts(u.ID, u.DeliveryDateTime)}}
	if top {
		o = append(o, kv{"salesOrder", soSummary(s.salesOrderOf(u.SalesOrderID))})
	}
	o = append(o, kv{"createdBy", user}, kv{"updatedBy", user})
	return append(o, s.times(&u.base)...)
}

// eventBody is an event without its shipping unit.
func (s *Sim) eventBody(e *shippingUnitEvent) obj {
	return obj{{"@id", iri(ShippingUnitEvents, e.ID)}, {"@type", "ShippingUnitEvent"}, {"id", e.ID},
		{"occurredAt", s.ts(e.ID, e.OccurredAt)}, {"location", e.Location}, {"latitude", e.Lat}, {"longitude", e.Lon},
		{"message", e.Message}, {"statusDetail", e.StatusDetail},
		{"shippingUnitStatus", obj{{"code", e.StatusCode}, {"name", transportStatusName(e.StatusCode)}}},
		{"severity", e.Severity}, {"updatedBy", user}, {"updatedAt", s.ts(e.ID, e.UpdatedAt)}}
}

// renderEvent is a member of the event list: the event with a summary of
// its shipping unit.
func (s *Sim) renderEvent(e *shippingUnitEvent) obj {
	u := s.shippingUnitOf(e.ShippingUnitID)
	sum := obj{{"@id", iri(ShippingUnits, u.ID)}, {"@type", "ShippingUnit"}, {"id", u.ID},
		{"shippingUnitNumber", u.Number}, {"shippingTrackingNumber", u.TrackingNumber},
		{"shippingUnitStatus", obj{{"code", u.Status}, {"name", transportStatusName(u.Status)}}},
		{"salesOrder", soSummary(s.salesOrderOf(u.SalesOrderID))}}
	b := s.eventBody(e)
	return append(b[:3:3], append(obj{{"shippingUnit", sum}}, b[3:]...)...)
}

func (s *Sim) renderStock(st *stock) obj {
	o := obj{{"@id", iri(Stocks, st.ID)}, {"@type", "Stock"}, {"id", st.ID},
		{"available", st.Available}, {"incoming", st.Incoming}, {"allocated", st.Allocated}, {"locked", st.Locked},
		{"variant", s.renderVariant(s.variantOf(st.VariantID), true)}}
	return append(o, s.times(&st.base)...)
}

func (s *Sim) renderMovement(m *movement) obj {
	o := obj{{"@id", iri(StockMovements, m.ID)}, {"@type", "StockMovement"}, {"id", m.ID}, {"fromPosition", m.From}}
	if s.isB() {
		o = append(o, kv{"fromOwnerCode", nullable(m.FromOwner)}, kv{"fromLotNumber", nullable(m.FromLot)}, kv{"fromExpiryDate", nil})
	}
	o = append(o, kv{"toPosition", nullable(m.To)})
	if s.isB() {
		o = append(o, kv{"toOwnerCode", nullable(m.ToOwner)}, kv{"toLotNumber", nullable(m.ToLot)}, kv{"toExpiryDate", nil})
	}
	o = append(o, kv{"quantity", m.Quantity}, kv{"movedAt", s.ts(m.ID, m.MovedAt)}, kv{"comment", m.Comment},
		kv{"variant", s.renderVariant(s.variantOf(m.VariantID), false)}, kv{"processed", m.Processed})
	if s.ch.Timestamps {
		o = append(o, kv{"createdAt", s.ts(m.ID, m.CreatedAt)})
	}
	return o
}
