package portalsim

import (
	"cmp"
	"strconv"
	"strings"
	"time"
)

// Filter constructors. T is the stored type of the resource.

func exact[T doc](name string, get func(T) string) filterDef {
	return filterDef{name: name, kind: fExact, str: func(d doc) string { return get(d.(T)) }}
}

// ref is an exact filter on an id that also accepts the IRI.
func ref[T doc](name string, get func(T) int64) filterDef {
	return filterDef{name: name, kind: fExact, iri: true, str: func(d doc) string { return itoa(get(d.(T))) }}
}

func partial[T doc](name string, get func(T) string) filterDef {
	return filterDef{name: name, kind: fPartial, str: func(d doc) string { return get(d.(T)) }}
}

func date[T doc](name string, get func(T) time.Time) filterDef {
	return filterDef{name: name, kind: fDate, tm: func(d doc) time.Time { return get(d.(T)) }}
}

func sortBy[T doc](name string, c func(a, b T) int) filterDef {
	return filterDef{name: name, kind: fOrder, cmp: func(a, b doc) int { return c(a.(T), b.(T)) }}
}

// stdDates are the createdAt and updatedAt bounds and orders every
// collection accepts.
func stdDates() []filterDef {
	return []filterDef{
		date("createdAt", func(d doc) time.Time { return d.meta().CreatedAt }),
		date("updatedAt", func(d doc) time.Time { return d.meta().UpdatedAt }),
		sortBy("id", func(a, b doc) int { return cmp.Compare(a.meta().ID, b.meta().ID) }),
		sortBy("createdAt", func(a, b doc) int { return a.meta().CreatedAt.Compare(b.meta().CreatedAt) }),
		sortBy("updatedAt", func(a, b doc) int { return a.meta().UpdatedAt.Compare(b.meta().UpdatedAt) }),
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func idFilter() filterDef {
	return ref("id", func(d doc) int64 { return d.meta().ID })
}

// describe builds the descriptor of a resource: its JSON-LD type, the
// filters of the documents' query-parameter tables (plus the few extras
// the flows use), its renderer and its create operation.
func (s *Sim) describe(r Resource) *resource {
	d := &resource{name: r, createStatus: 200}
	company := func(doc) string { return itoa(s.opts.Company) }
	companyF := []filterDef{
		{name: "company.id", kind: fExact, str: company},
		{name: "company", kind: fExact, iri: true, str: company},
	}
	variantF := func(get func(doc) int64) []filterDef {
		return []filterDef{
			{name: "variant.id", kind: fExact, iri: true, str: func(x doc) string { return itoa(get(x)) }},
			{name: "variant.sku", kind: fExact, str: func(x doc) string { return s.variantOf(get(x)).SKU }},
		}
	}
	switch r {
	case Connections:
		d.typ = "Connection"
		d.filters = []filterDef{
			idFilter(),
			partial("name", func(c *connection) string { return c.Name }),
			exact("code", func(c *connection) string { return c.Code }),
			exact("relationship", func(c *connection) string { return c.Relationship }),
		}
		d.render = func(x doc) obj { return s.renderConnection(x.(*connection)) }
		d.create = s.createConnection
	case Variants:
		d.typ = "Variant"
		d.filters = []filterDef{
			idFilter(),
			partial("name", func(v *variant) string { return v.Name }),
			exact("sku", func(v *variant) string { return v.SKU }),
			exact("code", func(v *variant) string { return v.SKU }),
			exact("ean", func(v *variant) string { return v.EAN }),
		}
		d.render = func(x doc) obj { return s.renderVariant(x.(*variant), true) }
		d.create = s.createVariant
	case VariantPackagings:
		d.typ = "VariantPackaging"
		d.createStatus = 201
		d.filters = []filterDef{
			idFilter(),
			exact("ean", func(p *packaging) string { return p.EAN }),
			exact("code", func(p *packaging) string { return p.Code }),
			ref("variant", func(p *packaging) int64 { return p.VariantID }),
			partial("variant.name", func(p *packaging) string { return s.variantOf(p.VariantID).Name }),
			exact("variant.sku", func(p *packaging) string { return s.variantOf(p.VariantID).SKU }),
		}
		d.render = func(x doc) obj { return s.renderPackaging(x.(*packaging)) }
		d.create = s.createPackaging
	case WarehouseClients:
		d.typ = "WarehouseClient"
		d.filters = append(companyF,
			ref("warehouse", func(w *warehouseClient) int64 { return w.WarehouseID }),
			ref("warehouse.id", func(w *warehouseClient) int64 { return w.WarehouseID }),
			exact("warehouse.code", func(w *warehouseClient) string { wh, _ := findWarehouse(w.WarehouseID); return wh.Code }),
			exact("clientCode", func(w *warehouseClient) string { return w.ClientCode }),
		)
		d.render = func(x doc) obj { return s.renderWarehouseClient(x.(*warehouseClient)) }
	case Carriers:
		d.typ = "Carrier"
		d.filters = append(companyF,
			exact("code", func(c *carrier) string { return c.Code }),
			partial("name", func(c *carrier) string { return c.Name }),
			exact("mainTransportation.code", func(c *carrier) string { return c.Mode }),
			exact("mainTransportationType.code", func(c *carrier) string { return c.Mode }),
		)
		d.render = func(x doc) obj { return s.renderCarrier(x.(*carrier)) }
	case CarrierServices:
		d.typ = "CarrierService"
		d.filters = append(companyF,
			exact("code", func(c *carrierService) string { return c.Code }),
			partial("name", func(c *carrierService) string { return c.Name }),
			ref("carrier", func(c *carrierService) int64 { return c.CarrierID }),
			ref("carrier.id", func(c *carrierService) int64 { return c.CarrierID }),
			exact("carrier.code", func(c *carrierService) string { return s.carrierOf(c.CarrierID).Code }),
		)
		d.render = func(x doc) obj { return s.renderService(x.(*carrierService)) }
	case PurchaseOrders:
		d.typ = "PurchaseOrder"
		d.filters = []filterDef{
			idFilter(),
			partial("orderNumber", func(p *purchaseOrder) string { return p.OrderNumber }),
			exact("referenceNumber", func(p *purchaseOrder) string { return p.Reference }),
			exact("status.code", func(p *purchaseOrder) string { return strconv.Itoa(p.Status) }),
			ref("supplier", func(p *purchaseOrder) int64 { return p.SupplierID }),
			ref("warehouseLocation", func(p *purchaseOrder) int64 { return p.WarehouseID }),
			date("receivedAt", func(p *purchaseOrder) time.Time { return p.ReceivedAt }),
			date("dueAt", func(p *purchaseOrder) time.Time { return p.DueAt }),
		}
		d.render = func(x doc) obj { return s.renderPO(x.(*purchaseOrder)) }
		d.create = s.createPO
	case SalesOrders:
		d.typ = "SalesOrder"
		status := func(o *salesOrder) string { return strconv.Itoa(o.FulfillmentStatus) }
		d.filters = []filterDef{
			idFilter(),
			partial("orderNumber", func(o *salesOrder) string { return o.OrderNumber }),
			exact("externalOrderNumber", func(o *salesOrder) string { return o.ExternalOrderNumber }),
			exact("status.code", status),
			exact("fulfillmentStatus.code", status),
			exact("transportationStatus.code", func(o *salesOrder) string { return strconv.Itoa(o.TransportationStatus) }),
			date("receivedAt", func(o *salesOrder) time.Time { return o.ShippedAt }),
			date("shippedAt", func(o *salesOrder) time.Time { return o.ShippedAt }),
		}
		d.render = func(x doc) obj { return s.renderSO(x.(*salesOrder), true) }
		d.create = s.createSO
	case Fulfillments:
		d.typ = "Fulfillment"
		soID := func(f *fulfillment) int64 { return f.SalesOrderID }
		soNum := func(f *fulfillment) string { return s.salesOrderOf(f.SalesOrderID).OrderNumber }
		soExt := func(f *fulfillment) string { return s.salesOrderOf(f.SalesOrderID).ExternalOrderNumber }
		st := func(*fulfillment) string { return strconv.Itoa(statusReceived) }
		d.filters = append([]filterDef{idFilter()}, companyF...)
		d.filters = append(d.filters,
			exact("fulfillmentNumber", func(f *fulfillment) string { return f.FulfillmentNumber }),
			filterDef{name: "status", kind: fExact, iri: true, str: func(x doc) string { return st(x.(*fulfillment)) }},
			exact("status.code", st),
			ref("warehouse", func(f *fulfillment) int64 { return f.WarehouseID }),
			ref("warehouse.id", func(f *fulfillment) int64 { return f.WarehouseID }),
		)
		for _, p := range []string{"salesOrder", "order"} {
			d.filters = append(d.filters,
				ref(p, soID), ref(p+".id", soID),
				exact(p+".orderNumber", soNum), exact(p+".externalOrderNumber", soExt))
		}
		d.filters = append(d.filters,
			ref("shipment", func(f *fulfillment) int64 { return f.ShippingUnitID }),
			ref("shipment.id", func(f *fulfillment) int64 { return f.ShippingUnitID }),
			exact("trackingNumber", func(f *fulfillment) string { return f.TrackingNumber }),
			ref("carrier", func(f *fulfillment) int64 { return f.CarrierID }),
			ref("carrier.id", func(f *fulfillment) int64 { return f.CarrierID }),
			ref("carrierService", func(f *fulfillment) int64 { return f.CarrierServiceID }),
			ref("carrierService.id", func(f *fulfillment) int64 { return f.CarrierServiceID }),
			date("fulfilledAt", func(f *fulfillment) time.Time { return f.FulfilledAt }),
			sortBy("fulfillmentNumber", func(a, b *fulfillment) int { return strings.Compare(a.FulfillmentNumber, b.FulfillmentNumber) }),
			sortBy("fulfilledAt", func(a, b *fulfillment) int { return a.FulfilledAt.Compare(b.FulfilledAt) }),
		)
		d.render = func(x doc) obj { return s.renderFulfillment(x.(*fulfillment)) }
	case ShippingUnits:
		d.typ = "ShippingUnit"
		st := func(u *shippingUnit) string { return strconv.Itoa(u.Status) }
		d.filters = []filterDef{
			idFilter(),
			exact("shippingTrackingNumber", func(u *shippingUnit) string { return u.TrackingNumber }),
			exact("shippingUnitNumber", func(u *shippingUnit) string { return u.Number }),
			exact("shipment.shipmentNumber", func(u *shippingUnit) string { return s.fulfillmentNumberOf(u) }),
			{name: "shippingUnitStatus", kind: fExact, iri: true, str: func(x doc) string { return st(x.(*shippingUnit)) }},
			exact("shippingUnitStatus.code", st),
			partial("shipTo.name", func(u *shippingUnit) string { return s.connectionOf(u.ShipToID).Name }),
			exact("salesOrder.orderNumber", func(u *shippingUnit) string { return s.salesOrderOf(u.SalesOrderID).OrderNumber }),
			ref("salesOrder", func(u *shippingUnit) int64 { return u.SalesOrderID }),
			date("completedAt", func(u *shippingUnit) time.Time { return u.CompletedAt }),
		}
		d.render = func(x doc) obj { return s.renderSU(x.(*shippingUnit), true) }
	case ShippingUnitEvents:
		d.typ = "ShippingUnitEvent"
		d.filters = []filterDef{
			idFilter(),
			exact("severity", func(e *shippingUnitEvent) string { return strconv.Itoa(e.Severity) }),
			exact("shippingUnitStatus.code", func(e *shippingUnitEvent) string { return strconv.Itoa(e.StatusCode) }),
			ref("shippingUnit", func(e *shippingUnitEvent) int64 { return e.ShippingUnitID }),
			exact("shippingUnit.shippingTrackingNumber", func(e *shippingUnitEvent) string { return s.shippingUnitOf(e.ShippingUnitID).TrackingNumber }),
			date("occurredAt", func(e *shippingUnitEvent) time.Time { return e.OccurredAt }),
			sortBy("occurredAt", func(a, b *shippingUnitEvent) int { return a.OccurredAt.Compare(b.OccurredAt) }),
		}
		d.render = func(x doc) obj { return s.renderEvent(x.(*shippingUnitEvent)) }
	case Stocks:
		d.typ = "Stock"
		d.filters = variantF(func(x doc) int64 { return x.(*stock).VariantID })
		d.render = func(x doc) obj { return s.renderStock(x.(*stock)) }
	case StockMovements:
		d.typ = "StockMovement"
		d.filters = append(variantF(func(x doc) int64 { return x.(*movement).VariantID }),
			date("movedAt", func(m *movement) time.Time { return m.MovedAt }))
		d.render = func(x doc) obj { return s.renderMovement(x.(*movement)) }
	}
	d.filters = append(d.filters, stdDates()...)
	return d
}
