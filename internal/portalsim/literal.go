package portalsim

import (
	"slices"
	"strings"

	"filebridge/internal/portal"
)

// The literal mode serves only what the API documents state, so that a
// client relying on a guess fails against it: no item reads (the
// documents list creates and lists only), hydra:next only on the
// shipping-unit list, no createdAt/updatedAt on the documents whose field
// tables list none, only the query parameters of the documents' tables
// (others are ignored, as API Platform ignores unknown ones), a packaging's
// supplier only as the string id of a connection, and an embedded
// consignee whose code exists refused as any repeated code is.

// dateVars are the query variables of a date filter with the given
// suffixes.
func dateVars(name string, ops ...string) []string {
	out := make([]string, len(ops))
	for i, op := range ops {
		out[i] = name + "[" + op + "]"
	}
	return out
}

// literalParams lists the query variables the documents' parameter tables
// give each list (both editions: where a resource exists in both, its
// tables agree). Variants and packagings also take updatedAt[after]: the
// flow description uses it though their tables omit it.
func literalParams(r portal.Resource) []string {
	bounds := []string{"before", "after"}
	all4 := []string{"before", "strictly_before", "after", "strictly_after"}
	var vs []string
	switch r {
	case portal.Connections:
		vs = []string{"name", "code", "code[]", "relationship"}
	case portal.Variants:
		vs = []string{"name", "sku", "code[]", "updatedAt[after]"}
	case portal.VariantPackagings:
		vs = []string{"ean", "code", "variant", "variant.name", "variant.sku", "order[createdAt]", "order[updatedAt]", "updatedAt[after]"}
	case portal.WarehouseClients:
		vs = []string{"company.id", "company", "warehouse"}
	case portal.Carriers:
		vs = []string{"company.id", "company", "code", "name", "mainTransportation.code"}
	case portal.CarrierServices:
		vs = []string{"company.id", "company", "code", "name", "carrier"}
	case portal.PurchaseOrders, portal.SalesOrders:
		vs = []string{"orderNumber", "status.code", "status.code[]"}
		if r == portal.PurchaseOrders {
			vs = append(vs, "referenceNumber")
		} else {
			vs = append(vs, "externalOrderNumber")
		}
		for _, f := range []string{"createdAt", "updatedAt", "receivedAt"} {
			vs = append(vs, dateVars(f, bounds...)...)
		}
	case portal.Fulfillments:
		vs = []string{"id", "company.id", "company", "fulfillmentNumber", "status", "status.code", "warehouse", "warehouse.id",
			"salesOrder", "salesOrder.id", "salesOrder.orderNumber", "salesOrder.externalOrderNumber",
			"order", "order.id", "order.orderNumber", "order.externalOrderNumber", "shipment", "shipment.id",
			"trackingNumber", "carrier", "carrier.id", "carrierService", "carrierService.id",
			"order[id]", "order[createdAt]", "order[updatedAt]", "order[fulfillmentNumber]", "order[fulfilledAt]"}
		for _, f := range []string{"createdAt", "updatedAt", "fulfilledAt"} {
			vs = append(vs, dateVars(f, all4...)...)
		}
	case portal.ShippingUnits:
		vs = []string{"shippingTrackingNumber", "shippingUnitNumber", "shipment.shipmentNumber", "shippingUnitStatus",
			"shippingUnitStatus[]", "shippingUnitStatus.code", "shippingUnitStatus.code[]", "shipTo.name", "salesOrder.orderNumber"}
		for _, f := range []string{"createdAt", "updatedAt", "completedAt"} {
			vs = append(vs, dateVars(f, all4...)...)
		}
	case portal.ShippingUnitEvents:
		vs = []string{"severity", "shippingUnitStatus.code"}
	case portal.Stocks:
		vs = []string{"variant.id", "variant.id[]", "variant.sku"}
	case portal.StockMovements:
		vs = append([]string{"variant.id", "variant.id[]", "variant.sku"}, dateVars("createdAt", bounds...)...)
	}
	return vs
}

// keepOnly drops the query variables of r that are not in vars, from the
// parameter table and from the hydra:search description.
func (r *resource) keepOnly(vars []string) {
	for v := range r.params {
		if !slices.Contains(vars, v) {
			delete(r.params, v)
		}
	}
	r.mapping = slices.DeleteFunc(r.mapping, func(m obj) bool {
		for _, f := range m {
			if f.k == "variable" {
				v, _ := f.v.(string)
				return !slices.Contains(vars, v)
			}
		}
		return true
	})
	kept := make([]string, 0, len(vars))
	for _, v := range vars {
		if _, ok := r.params[v]; ok {
			kept = append(kept, v)
		}
	}
	r.template = r.path + "{?" + strings.Join(kept, ",") + "}"
}

// timeless reports whether the documents' field table of r lists no
// createdAt/updatedAt: suppliers/connections, SKUs/variants,
// receptions/purchase orders, orders/sales orders and stock movements.
func timeless(r portal.Resource) bool {
	switch r {
	case portal.Connections, portal.Variants, portal.PurchaseOrders, portal.SalesOrders, portal.StockMovements:
		return true
	}
	return false
}

// stampsOf is the createdAt/updatedAt pair of a document of r, none in the
// literal mode when r's field table lists none.
func (s *Sim) stampsOf(r portal.Resource, b *base) obj {
	if s.opts.Literal && timeless(r) {
		return nil
	}
	return s.times(b)
}
