package portalsim

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// What the API documents show, the yardstick of the switches in
// choices.go and of the count of requests outside the documents: the
// operations of each edition and the query variables of each list.

// dateVars are the query variables of a date filter with the given
// suffixes.
func dateVars(name string, ops ...string) []string {
	out := make([]string, len(ops))
	for i, op := range ops {
		out[i] = name + "[" + op + "]"
	}
	return out
}

// documentedParams lists the query variables the documents give each list
// (both editions: where a resource exists in both, its tables agree), with
// the filters their flow texts use: updatedAt[after] on Edition B's
// variants and packagings, fulfillmentStatus.code on Edition A's orders.
func (s *Sim) documentedParams(r Resource) []string {
	bounds := []string{"before", "after"}
	all4 := []string{"before", "strictly_before", "after", "strictly_after"}
	var vs []string
	switch r {
	case Connections:
		vs = []string{"name", "code", "code[]", "relationship"}
	case Variants:
		vs = []string{"name", "sku", "code[]"}
		if s.isB() {
			vs = append(vs, "updatedAt[after]") // Edition B's flow text only
		}
	case VariantPackagings:
		vs = []string{"ean", "code", "variant", "variant.name", "variant.sku", "order[createdAt]", "order[updatedAt]", "updatedAt[after]"}
	case WarehouseClients:
		vs = []string{"company.id", "company", "warehouse"}
	case Carriers:
		vs = []string{"company.id", "company", "code", "name", "mainTransportation.code"}
	case CarrierServices:
		vs = []string{"company.id", "company", "code", "name", "carrier"}
	case PurchaseOrders, SalesOrders:
		vs = []string{"orderNumber", "status.code", "status.code[]"}
		if r == PurchaseOrders {
			vs = append(vs, "referenceNumber")
		} else {
			vs = append(vs, "externalOrderNumber")
		}
		for _, f := range []string{"createdAt", "updatedAt", "receivedAt"} {
			vs = append(vs, dateVars(f, bounds...)...)
		}
		if r == SalesOrders && !s.isB() {
			vs = append(vs, "fulfillmentStatus.code")
		}
	case Fulfillments:
		vs = []string{"id", "company.id", "company", "fulfillmentNumber", "status", "status.code", "warehouse", "warehouse.id",
			"salesOrder", "salesOrder.id", "salesOrder.orderNumber", "salesOrder.externalOrderNumber",
			"order", "order.id", "order.orderNumber", "order.externalOrderNumber", "shipment", "shipment.id",
			"trackingNumber", "carrier", "carrier.id", "carrierService", "carrierService.id",
			"order[id]", "order[createdAt]", "order[updatedAt]", "order[fulfillmentNumber]", "order[fulfilledAt]"}
		for _, f := range []string{"createdAt", "updatedAt", "fulfilledAt"} {
			vs = append(vs, dateVars(f, all4...)...)
		}
	case ShippingUnits:
		vs = []string{"shippingTrackingNumber", "shippingUnitNumber", "shipment.shipmentNumber", "shippingUnitStatus",
			"shippingUnitStatus[]", "shippingUnitStatus.code", "shippingUnitStatus.code[]", "shipTo.name", "salesOrder.orderNumber"}
		for _, f := range []string{"createdAt", "updatedAt", "completedAt"} {
			vs = append(vs, dateVars(f, all4...)...)
		}
	case ShippingUnitEvents:
		vs = []string{"severity", "shippingUnitStatus.code"}
	case Stocks:
		vs = []string{"variant.id", "variant.id[]", "variant.sku"}
	case StockMovements:
		vs = append([]string{"variant.id", "variant.id[]", "variant.sku"}, dateVars("createdAt", bounds...)...)
	}
	return vs
}

// applyFilterChoices drops the query variables of d the choices ignore:
// those outside the documents (unless ExtraFilters), the order status name
// OrderFilter does not honour, and the updatedAt bounds of variants and
// packagings unless VariantUpdatedAfter (updatedAt[after] in both
// editions: Edition A's SKUs are the same collection).
func (s *Sim) applyFilterChoices(d *resource) {
	documented := s.documentedParams(d.name)
	d.keep(func(v string) bool {
		switch {
		case (d.name == Variants || d.name == VariantPackagings) && v == "updatedAt[after]":
			return s.ch.VariantUpdatedAfter
		case !s.ch.ExtraFilters && !slices.Contains(documented, v):
			return false
		case d.name == SalesOrders && (v == "status.code" || v == "fulfillmentStatus.code"):
			return s.ch.OrderFilter == "both" || s.ch.OrderFilter == v
		case d.name == SalesOrders && (v == "status.code[]" || v == "fulfillmentStatus.code[]"):
			return s.ch.OrderFilter == "both" || s.ch.OrderFilter+"[]" == v
		case (d.name == Variants || d.name == VariantPackagings) && strings.HasPrefix(v, "updatedAt["):
			return s.ch.VariantUpdatedAfter && s.ch.ExtraFilters
		}
		return true
	})
}

// keep drops the query variables of r that keep refuses, from the
// parameter table and from the hydra:search description.
func (r *resource) keep(keep func(v string) bool) {
	var kept []string
	r.mapping = slices.DeleteFunc(r.mapping, func(m obj) bool {
		for _, f := range m {
			if f.k == "variable" {
				v, _ := f.v.(string)
				if !keep(v) {
					delete(r.params, v)
					return true
				}
				kept = append(kept, v)
				return false
			}
		}
		return true
	})
	r.template = r.path + "{?" + strings.Join(kept, ",") + "}"
}

// documentedCreate reports whether the documents list a create of r in
// the edition (beside them they list only GET of each list).
func (s *Sim) documentedCreate(r Resource) bool {
	switch r {
	case Connections, Variants, PurchaseOrders, SalesOrders:
		return true
	case VariantPackagings:
		return s.isB()
	}
	return false
}

// listsID reports whether the documents' field table of r lists an id in
// what a create returns; receptions/purchase orders and orders/sales
// orders list none.
func listsID(r Resource) bool {
	return r != PurchaseOrders && r != SalesOrders
}

// without returns o without the members named.
func without(o obj, names ...string) obj {
	return slices.DeleteFunc(slices.Clone(o), func(m kv) bool { return slices.Contains(names, m.k) })
}

// outsideCounter counts the requests outside the documents, by operation.
type outsideCounter struct {
	mu    sync.Mutex
	total int
	by    map[string]int
}

// add counts one request outside the documents, under each of its reasons.
func (c *outsideCounter) add(what ...string) {
	if len(what) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.by == nil {
		c.by = map[string]int{}
	}
	c.total++
	for _, w := range what {
		c.by[w]++
	}
}

func (c *outsideCounter) snapshot() (int, map[string]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total, maps.Clone(c.by)
}

// countOutside counts an authenticated request the documents do not show:
// an operation they do not list (an item read, a path of the other
// edition, a method other than GET and the documented POSTs), or a query
// variable their tables and flows do not give the list. res is nil for an
// unknown path; id is the item of an item request.
func (s *Sim) countOutside(r *http.Request, res *resource, id string) {
	switch {
	case res == nil:
		s.outside.add(r.Method + " " + r.URL.Path)
		return
	case id != "":
		s.outside.add(r.Method + " " + res.path + "/{id}")
		return
	case r.Method == http.MethodPost && s.documentedCreate(res.name):
		return
	case r.Method != http.MethodGet:
		s.outside.add(r.Method + " " + res.path)
		return
	}
	documented := s.documentedParams(res.name)
	var what []string
	for _, part := range strings.Split(r.URL.RawQuery, "&") {
		k, _, _ := strings.Cut(part, "=")
		k, err := url.QueryUnescape(k)
		if err != nil || k == "" || k == "page" || k == "itemsPerPage" || slices.Contains(documented, k) {
			continue
		}
		if w := "GET " + res.path + "?" + k; !slices.Contains(what, w) {
			what = append(what, w)
		}
	}
	s.outside.add(what...)
}

// timeless reports whether the documents' field table of r lists no
// createdAt/updatedAt: suppliers/connections, SKUs/variants,
// receptions/purchase orders, orders/sales orders and stock movements.
func timeless(r Resource) bool {
	switch r {
	case Connections, Variants, PurchaseOrders, SalesOrders, StockMovements:
		return true
	}
	return false
}

// stampsOf is the createdAt/updatedAt pair of a document of r, none when
// r's field table lists none and Choices.Timestamps is off.
func (s *Sim) stampsOf(r Resource, b *base) obj {
	if !s.ch.Timestamps && timeless(r) {
		return nil
	}
	return s.times(b)
}
