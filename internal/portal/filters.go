package portal

import (
	"net/url"
	"strconv"
	"time"
)

// Filters of the list operations, one struct per list, with every filter
// the API documents list for it. Zero fields are omitted; a slice becomes a
// repeated "name[]=v"; times are sent as "2006-01-02T15:04:05+00:00" (UTC).

// query builds a query string.
type query url.Values

func (q query) str(name, v string) {
	if v != "" {
		url.Values(q).Set(name, v)
	}
}

func (q query) int(name string, v int64) {
	if v != 0 {
		url.Values(q).Set(name, strconv.FormatInt(v, 10))
	}
}

func (q query) time(name string, t time.Time) {
	if !t.IsZero() {
		url.Values(q).Set(name, t.UTC().Format(wireTimeLayout))
	}
}

// list sends "name[]=v" for every value.
func (q query) list(name string, vs []string) {
	for _, v := range vs {
		url.Values(q).Add(name+"[]", v)
	}
}

func (q query) ints(name string, vs []int64) {
	for _, v := range vs {
		url.Values(q).Add(name+"[]", strconv.FormatInt(v, 10))
	}
}

// codes sends one status code as "name", several as "name[]".
func (q query) codes(name string, cs []int) {
	if len(cs) == 1 {
		url.Values(q).Set(name, strconv.Itoa(cs[0]))
		return
	}
	for _, c := range cs {
		url.Values(q).Add(name+"[]", strconv.Itoa(c))
	}
}

// TimeRange bounds a timestamp filter; zero bounds are omitted.
type TimeRange struct {
	Before, StrictlyBefore, After, StrictlyAfter time.Time
}

// span sends "name[after]" and "name[before]".
func (q query) span(name string, after, before time.Time) {
	q.time(name+"[after]", after)
	q.time(name+"[before]", before)
}

func (q query) rng(name string, r TimeRange) {
	q.time(name+"[before]", r.Before)
	q.time(name+"[strictly_before]", r.StrictlyBefore)
	q.time(name+"[after]", r.After)
	q.time(name+"[strictly_after]", r.StrictlyAfter)
}

// PartnerFilter filters suppliers (A) / connections (B).
type PartnerFilter struct {
	Name         string   // search by name
	Code         string   // one code
	Codes        []string // several codes (code[])
	Relationship string   // Manufacturer, Customer, Marketplace, Entity, Forwarder, Warehouse
	// ItemsPerPage is the page size of this list (0: Config.ItemsPerPage;
	// at most model.MaxItemsPerPage).
	ItemsPerPage int
}

func (f PartnerFilter) query() url.Values {
	q := query{}
	q.str("name", f.Name)
	q.str("code", f.Code)
	q.list("code", f.Codes)
	q.str("relationship", f.Relationship)
	return url.Values(q)
}

// ItemFilter filters SKUs (A) / variants (B).
type ItemFilter struct {
	Name  string   // search by name
	SKU   string   // one SKU code
	Codes []string // several SKU codes (code[])
	// UpdatedAfter is updatedAt[after] (Edition B's flow description; the
	// parameter tables do not list it).
	UpdatedAfter time.Time
	// ItemsPerPage is the page size of this list (0: Config.ItemsPerPage;
	// at most model.MaxItemsPerPage).
	ItemsPerPage int
}

func (f ItemFilter) query() url.Values {
	q := query{}
	q.str("name", f.Name)
	q.str("sku", f.SKU)
	q.list("code", f.Codes)
	q.time("updatedAt[after]", f.UpdatedAfter)
	return url.Values(q)
}

// PackagingFilter filters variant packagings (B).
type PackagingFilter struct {
	EAN         string // exact EAN
	Code        string // exact packaging code
	Variant     string // exact variant IRI
	VariantName string // partial variant name
	VariantSKU  string // exact variant SKU
	// Sorting: "asc" or "desc".
	OrderCreatedAt, OrderUpdatedAt string
	// UpdatedAfter is updatedAt[after] (flow description only).
	UpdatedAfter time.Time
}

func (f PackagingFilter) query() url.Values {
	q := query{}
	q.str("ean", f.EAN)
	q.str("code", f.Code)
	q.str("variant", f.Variant)
	q.str("variant.name", f.VariantName)
	q.str("variant.sku", f.VariantSKU)
	q.str("order[createdAt]", f.OrderCreatedAt)
	q.str("order[updatedAt]", f.OrderUpdatedAt)
	q.time("updatedAt[after]", f.UpdatedAfter)
	return url.Values(q)
}

// WarehouseClientFilter filters warehouse clients (B).
type WarehouseClientFilter struct {
	CompanyID int64  // company.id
	Company   string // company IRI
	Warehouse string // warehouse IRI
}

func (f WarehouseClientFilter) query() url.Values {
	q := query{}
	q.int("company.id", f.CompanyID)
	q.str("company", f.Company)
	q.str("warehouse", f.Warehouse)
	return url.Values(q)
}

// CarrierFilter filters carriers (B).
type CarrierFilter struct {
	CompanyID              int64
	Company                string // company IRI
	Code, Name             string
	MainTransportationCode string // SEA, EXPRESS, ROAD, RAIL, AIR, LOCAL
}

func (f CarrierFilter) query() url.Values {
	q := query{}
	q.int("company.id", f.CompanyID)
	q.str("company", f.Company)
	q.str("code", f.Code)
	q.str("name", f.Name)
	q.str("mainTransportation.code", f.MainTransportationCode)
	return url.Values(q)
}

// CarrierServiceFilter filters carrier services (B).
type CarrierServiceFilter struct {
	CompanyID  int64
	Company    string // company IRI
	Code, Name string
	CarrierID  int64
}

func (f CarrierServiceFilter) query() url.Values {
	q := query{}
	q.int("company.id", f.CompanyID)
	q.str("company", f.Company)
	q.str("code", f.Code)
	q.str("name", f.Name)
	q.int("carrier", f.CarrierID)
	return url.Values(q)
}

// InboundFilter filters receptions (A) / purchase orders (B).
type InboundFilter struct {
	OrderNumber     string // partial search
	ReferenceNumber string // exact
	StatusCodes     []int  // status.code (one) or status.code[] (several)
	CreatedAfter    time.Time
	CreatedBefore   time.Time
	UpdatedAfter    time.Time // inclusive (>=)
	UpdatedBefore   time.Time
	ReceivedAfter   time.Time
	ReceivedBefore  time.Time
}

func (f InboundFilter) query() url.Values {
	q := query{}
	q.str("orderNumber", f.OrderNumber)
	q.str("referenceNumber", f.ReferenceNumber)
	q.codes("status.code", f.StatusCodes)
	q.span("createdAt", f.CreatedAfter, f.CreatedBefore)
	q.span("updatedAt", f.UpdatedAfter, f.UpdatedBefore)
	q.span("receivedAt", f.ReceivedAfter, f.ReceivedBefore)
	return url.Values(q)
}

// OutboundFilter filters orders (A) / sales orders (B).
type OutboundFilter struct {
	OrderNumber         string // partial search
	ExternalOrderNumber string // exact
	// StatusCodes filters by fulfillment status: Edition A sends it under
	// Config.ShipmentStatusFilter, Edition B as status.code. Results are
	// also checked here.
	StatusCodes   []int
	CreatedAfter  time.Time
	CreatedBefore time.Time
	UpdatedAfter  time.Time // inclusive (>=)
	UpdatedBefore time.Time
	// ShippedAfter and ShippedBefore are the receivedAt[...] parameters,
	// which bound the shipping time.
	ShippedAfter  time.Time
	ShippedBefore time.Time
}

func (f OutboundFilter) query(statusParam string) url.Values {
	q := query{}
	q.str("orderNumber", f.OrderNumber)
	q.str("externalOrderNumber", f.ExternalOrderNumber)
	q.codes(statusParam, f.StatusCodes)
	q.span("createdAt", f.CreatedAfter, f.CreatedBefore)
	q.span("updatedAt", f.UpdatedAfter, f.UpdatedBefore)
	q.span("receivedAt", f.ShippedAfter, f.ShippedBefore)
	return url.Values(q)
}

// FulfillmentFilter filters fulfillments (B).
type FulfillmentFilter struct {
	ID                int64
	CompanyID         int64
	Company           string // IRI
	FulfillmentNumber string
	Status            string // status IRI
	StatusCode        string
	Warehouse         string // IRI
	WarehouseID       int64
	// The sales order, under the name salesOrder.
	SalesOrder                    string // IRI
	SalesOrderID                  int64
	SalesOrderNumber              string
	SalesOrderExternalOrderNumber string
	// The same filters under the name order.
	Order                    string // IRI
	OrderID                  int64
	OrderNumber              string
	OrderExternalOrderNumber string
	Shipment                 string // IRI
	ShipmentID               int64
	TrackingNumber           string
	Carrier                  string // IRI
	CarrierID                int64
	CarrierService           string // IRI
	CarrierServiceID         int64
	CreatedAt                TimeRange
	UpdatedAt                TimeRange
	FulfilledAt              TimeRange // bounds exclude fulfillments not fulfilled
	// Sorting, "asc" or "desc": order[id], order[createdAt], ...
	SortID, SortCreatedAt, SortUpdatedAt, SortFulfillmentNumber, SortFulfilledAt string
}

func (f FulfillmentFilter) query() url.Values {
	q := query{}
	q.int("id", f.ID)
	q.int("company.id", f.CompanyID)
	q.str("company", f.Company)
	q.str("fulfillmentNumber", f.FulfillmentNumber)
	q.str("status", f.Status)
	q.str("status.code", f.StatusCode)
	q.str("warehouse", f.Warehouse)
	q.int("warehouse.id", f.WarehouseID)
	q.str("salesOrder", f.SalesOrder)
	q.int("salesOrder.id", f.SalesOrderID)
	q.str("salesOrder.orderNumber", f.SalesOrderNumber)
	q.str("salesOrder.externalOrderNumber", f.SalesOrderExternalOrderNumber)
	q.str("order", f.Order)
	q.int("order.id", f.OrderID)
	q.str("order.orderNumber", f.OrderNumber)
	q.str("order.externalOrderNumber", f.OrderExternalOrderNumber)
	q.str("shipment", f.Shipment)
	q.int("shipment.id", f.ShipmentID)
	q.str("trackingNumber", f.TrackingNumber)
	q.str("carrier", f.Carrier)
	q.int("carrier.id", f.CarrierID)
	q.str("carrierService", f.CarrierService)
	q.int("carrierService.id", f.CarrierServiceID)
	q.rng("createdAt", f.CreatedAt)
	q.rng("updatedAt", f.UpdatedAt)
	q.rng("fulfilledAt", f.FulfilledAt)
	q.str("order[id]", f.SortID)
	q.str("order[createdAt]", f.SortCreatedAt)
	q.str("order[updatedAt]", f.SortUpdatedAt)
	q.str("order[fulfillmentNumber]", f.SortFulfillmentNumber)
	q.str("order[fulfilledAt]", f.SortFulfilledAt)
	return url.Values(q)
}

// ShippingUnitFilter filters shipping units (B).
type ShippingUnitFilter struct {
	ShippingTrackingNumber string
	ShippingUnitNumber     string
	ShipmentNumber         string // shipment.shipmentNumber
	Status                 string // shippingUnitStatus (IRI)
	Statuses               []string
	StatusCode             string
	StatusCodes            []string
	ShipToName             string
	SalesOrderNumber       string
	CreatedAt              TimeRange
	UpdatedAt              TimeRange
	CompletedAt            TimeRange
}

func (f ShippingUnitFilter) query() url.Values {
	q := query{}
	q.str("shippingTrackingNumber", f.ShippingTrackingNumber)
	q.str("shippingUnitNumber", f.ShippingUnitNumber)
	q.str("shipment.shipmentNumber", f.ShipmentNumber)
	q.str("shippingUnitStatus", f.Status)
	q.list("shippingUnitStatus", f.Statuses)
	q.str("shippingUnitStatus.code", f.StatusCode)
	q.list("shippingUnitStatus.code", f.StatusCodes)
	q.str("shipTo.name", f.ShipToName)
	q.str("salesOrder.orderNumber", f.SalesOrderNumber)
	q.rng("createdAt", f.CreatedAt)
	q.rng("updatedAt", f.UpdatedAt)
	q.rng("completedAt", f.CompletedAt)
	return url.Values(q)
}

// EventFilter filters shipping unit events (B).
type EventFilter struct {
	Severity   *int // exact severity; nil = any
	StatusCode string
}

func (f EventFilter) query() url.Values {
	q := query{}
	if f.Severity != nil {
		url.Values(q).Set("severity", strconv.Itoa(*f.Severity))
	}
	q.str("shippingUnitStatus.code", f.StatusCode)
	return url.Values(q)
}

// StockFilter filters stocks.
type StockFilter struct {
	VariantID  int64
	VariantIDs []int64
	VariantSKU string
	// ItemsPerPage is the page size of this list (0: Config.ItemsPerPage;
	// at most model.MaxItemsPerPage).
	ItemsPerPage int
}

func (f StockFilter) query() url.Values {
	q := query{}
	q.int("variant.id", f.VariantID)
	q.ints("variant.id", f.VariantIDs)
	q.str("variant.sku", f.VariantSKU)
	return url.Values(q)
}

// MovementFilter filters stock movements.
type MovementFilter struct {
	VariantID     int64
	VariantIDs    []int64
	VariantSKU    string
	CreatedAfter  time.Time
	CreatedBefore time.Time
	// ItemsPerPage is the page size of this list (0: Config.ItemsPerPage;
	// at most model.MaxItemsPerPage).
	ItemsPerPage int
}

func (f MovementFilter) query() url.Values {
	q := query(StockFilter{VariantID: f.VariantID, VariantIDs: f.VariantIDs, VariantSKU: f.VariantSKU}.query())
	q.span("createdAt", f.CreatedAfter, f.CreatedBefore)
	return url.Values(q)
}
