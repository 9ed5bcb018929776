package portal

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"filebridge/internal/model"
)

// Resource is an API collection, named as in the config's [portals.X.paths].
type Resource string

const (
	Connections        Resource = "connections"
	Variants           Resource = "variants"
	VariantPackagings  Resource = "variant_packagings"
	WarehouseClients   Resource = "warehouse_clients"
	Carriers           Resource = "carriers"
	CarrierServices    Resource = "carrier_services"
	PurchaseOrders     Resource = "purchase_orders"
	SalesOrders        Resource = "sales_orders"
	Fulfillments       Resource = "fulfillments"
	ShippingUnits      Resource = "shipping_units"
	ShippingUnitEvents Resource = "shipping_unit_events"
	Stocks             Resource = "stocks"
	StockMovements     Resource = "stock_movements"
)

// editionResources is the one table of which collections each edition
// serves (B every one). Edition A's suppliers are connections, SKUs
// variants, receptions purchase orders and orders sales orders, under the
// same default paths.
var editionResources = map[model.Edition][]Resource{
	model.EditionA: {Connections, Variants, PurchaseOrders, SalesOrders, Stocks, StockMovements},
	model.EditionB: {Connections, Variants, VariantPackagings, WarehouseClients, Carriers, CarrierServices,
		PurchaseOrders, SalesOrders, Fulfillments, ShippingUnits, ShippingUnitEvents, Stocks, StockMovements},
}

// AllResources lists every resource name any edition knows, sorted.
func AllResources() []Resource { return slices.Sorted(slices.Values(editionResources[model.EditionB])) }

// Serves reports whether the edition has the resource.
func Serves(e model.Edition, r Resource) bool { return slices.Contains(editionResources[e], r) }

// DefaultPath is the path of a resource relative to the base URL (which
// includes /api): "/" + the resource name.
func DefaultPath(r Resource) string { return "/" + string(r) }

// Paths maps every resource of an edition to its path, defaults overridden.
type Paths map[Resource]string

// NewPaths builds the path table of an edition with overrides (resource name
// -> path). An override of an unknown resource, or one not starting with "/",
// is an error.
func NewPaths(e model.Edition, overrides map[string]string) (Paths, error) {
	p := Paths{}
	for _, r := range editionResources[e] {
		p[r] = DefaultPath(r)
	}
	for _, k := range slices.Sorted(maps.Keys(overrides)) {
		v := overrides[k]
		if !slices.Contains(AllResources(), Resource(k)) {
			var names []string
			for _, r := range AllResources() {
				names = append(names, string(r))
			}
			return nil, fmt.Errorf("paths: unknown resource %q: use one of %s", k, strings.Join(names, ", "))
		}
		if !strings.HasPrefix(v, "/") {
			return nil, fmt.Errorf("paths: %s = %q must start with \"/\" (it is relative to base_url)", k, v)
		}
		p[Resource(k)] = strings.TrimRight(v, "/")
	}
	return p, nil
}
