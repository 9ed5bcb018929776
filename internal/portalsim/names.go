package portalsim

import (
	"fmt"
	"math/big"
	"strings"
)

// The simulator's own names of the editions, collections, status codes and
// numbers, so that it imports nothing of the client (see rules.go).

// Edition is an edition of the API the simulator serves.
type Edition string

// The editions: A (version 1.2.0) and B (version 1.1.0).
const (
	EditionA Edition = "A"
	EditionB Edition = "B"
)

// Resource is a collection, named by its path under /api (the documents
// show no paths but /connections; these are API Platform's defaults).
type Resource string

// The collections. Edition A's suppliers are connections, SKUs variants,
// receptions purchase orders and orders sales orders.
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

// editionResources are the collections each document lists.
var editionResources = map[Edition][]Resource{
	EditionA: {Connections, Variants, PurchaseOrders, SalesOrders, Stocks, StockMovements},
	EditionB: {Connections, Variants, VariantPackagings, WarehouseClients, Carriers, CarrierServices,
		PurchaseOrders, SalesOrders, Fulfillments, ShippingUnits, ShippingUnitEvents, Stocks, StockMovements},
}

// allResources are the collections of both editions.
var allResources = editionResources[EditionB]

func parseEdition(s string) (Edition, error) {
	switch e := Edition(strings.ToUpper(strings.TrimSpace(s))); e {
	case EditionA, EditionB:
		return e, nil
	}
	return "", fmt.Errorf("edition %q: use A or B", s)
}

// path is the path of a collection.
func (r Resource) path() string { return "/api/" + string(r) }

// Status codes. The documents confirm 80 (received; shipped) and 75
// (partial reception); the others and the names are the simulator's.
const (
	statusCreated   = 10
	statusInWMS     = 20
	statusOnDocks   = 70
	statusPartial   = 75
	statusReceived  = 80
	statusCanceling = 95
	statusCanceled  = 99
)

// inboundStatusName names a reception/purchase-order status.
func inboundStatusName(code int) string {
	switch code {
	case statusCreated:
		return "Created"
	case statusInWMS:
		return "In WMS"
	case statusOnDocks:
		return "On docks"
	case statusPartial:
		return "Partially received"
	case statusReceived:
		return "Received"
	case statusCanceling:
		return "Cancelling"
	case statusCanceled:
		return "Cancelled"
	}
	return ""
}

// maxItemsPerPage is the documents' upper bound of itemsPerPage.
const maxItemsPerPage = 10000

// decimal is a number as a client sent it, kept exact in canonical text
// ("12.5", "3"); "" is null.
type decimal string

// parseDecimal reads a JSON number's text.
func parseDecimal(s string) (decimal, error) {
	r, ok := new(big.Rat).SetString(strings.TrimSpace(s))
	if !ok {
		return "", fmt.Errorf("%q is not a number", s)
	}
	if r.IsInt() {
		return decimal(r.Num().String()), nil
	}
	t := r.FloatString(20)
	return decimal(strings.TrimRight(t, "0")), nil
}

func (d decimal) IsZero() bool { return d == "" }

func (d decimal) Sign() int {
	switch {
	case d == "" || d == "0":
		return 0
	case d[0] == '-':
		return -1
	}
	return 1
}

func (d decimal) IsInt() bool { return d != "" && !strings.Contains(string(d), ".") }

func (d decimal) Float64() float64 {
	f, _ := new(big.Rat).SetString(string(d))
	if f == nil {
		return 0
	}
	v, _ := f.Float64()
	return v
}
