package portal

import (
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"time"
)

// Filters of the list operations, one struct per list, with every filter
// the API documents list for it; a field's `query` tag is its parameter.
// Zero fields are omitted; a slice becomes a repeated "name[]=v"; times are
// sent as "2006-01-02T15:04:05+00:00" (UTC).

// TimeRange bounds a timestamp filter; zero bounds are omitted.
type TimeRange struct {
	Before, StrictlyBefore, After, StrictlyAfter time.Time
}

// encodeQuery builds the query of a filter from its tagged fields: a
// string, an int64 or a time.Time as "name=v"; a []string or []int64 as
// "name[]=v" per value; a []int (status codes) as "name" when it holds one,
// else "name[]" per value; a TimeRange as name[before],
// name[strictly_before], name[after] and name[strictly_after]; a *int when
// set. Fields without a tag are not parameters.
func encodeQuery(filter any) url.Values {
	q := url.Values{}
	set := func(name, v string) {
		if v != "" {
			q.Set(name, v)
		}
	}
	stamp := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format(wireTimeLayout)
	}
	v := reflect.ValueOf(filter)
	for i := range v.NumField() {
		name := v.Type().Field(i).Tag.Get("query")
		if name == "" {
			continue
		}
		switch x := v.Field(i).Interface().(type) {
		case string:
			set(name, x)
		case int64:
			if x != 0 {
				set(name, strconv.FormatInt(x, 10))
			}
		case *int:
			if x != nil {
				set(name, strconv.Itoa(*x))
			}
		case time.Time:
			set(name, stamp(x))
		case TimeRange:
			set(name+"[before]", stamp(x.Before))
			set(name+"[strictly_before]", stamp(x.StrictlyBefore))
			set(name+"[after]", stamp(x.After))
			set(name+"[strictly_after]", stamp(x.StrictlyAfter))
		case []string:
			for _, s := range x {
				q.Add(name+"[]", s)
			}
		case []int64:
			for _, n := range x {
				q.Add(name+"[]", strconv.FormatInt(n, 10))
			}
		case []int:
			addCodes(q, name, x)
		default:
			panic(fmt.Sprintf("filter %s: field %s of type %T has no query form", v.Type(), v.Type().Field(i).Name, x))
		}
	}
	return q
}

// addCodes sends one status code as "name", several as "name[]".
func addCodes(q url.Values, name string, cs []int) {
	if len(cs) == 1 {
		q.Set(name, strconv.Itoa(cs[0]))
		return
	}
	for _, c := range cs {
		q.Add(name+"[]", strconv.Itoa(c))
	}
}

// PartnerFilter filters suppliers (A) / connections (B).
type PartnerFilter struct {
	Name         string   `query:"name"`         // search by name
	Code         string   `query:"code"`         // one code
	Codes        []string `query:"code"`         // several codes (code[])
	Relationship string   `query:"relationship"` // Manufacturer, Customer, Marketplace, Entity, Forwarder, Warehouse
	// ItemsPerPage is the page size of this list (0: Config.ItemsPerPage;
	// at most model.MaxItemsPerPage).
	ItemsPerPage int
}

// ItemFilter filters SKUs (A) / variants (B).
type ItemFilter struct {
	Name  string   `query:"name"` // search by name
	SKU   string   `query:"sku"`  // one SKU code
	Codes []string `query:"code"` // several SKU codes (code[])
	// UpdatedAfter is updatedAt[after] (Edition B's flow description; the
	// parameter tables do not list it).
	UpdatedAfter time.Time `query:"updatedAt[after]"`
	// ItemsPerPage is the page size of this list (0: Config.ItemsPerPage;
	// at most model.MaxItemsPerPage).
	ItemsPerPage int
}

// PackagingFilter filters variant packagings (B).
type PackagingFilter struct {
	EAN         string `query:"ean"`          // exact EAN
	Code        string `query:"code"`         // exact packaging code
	Variant     string `query:"variant"`      // exact variant IRI
	VariantName string `query:"variant.name"` // partial variant name
	VariantSKU  string `query:"variant.sku"`  // exact variant SKU
	// Sorting: "asc" or "desc".
	OrderCreatedAt string `query:"order[createdAt]"`
	OrderUpdatedAt string `query:"order[updatedAt]"`
	// UpdatedAfter is updatedAt[after] (flow description only).
	UpdatedAfter time.Time `query:"updatedAt[after]"`
}

// WarehouseClientFilter filters warehouse clients (B).
type WarehouseClientFilter struct {
	CompanyID int64  `query:"company.id"`
	Company   string `query:"company"`   // company IRI
	Warehouse string `query:"warehouse"` // warehouse IRI
}

// CarrierFilter filters carriers (B).
type CarrierFilter struct {
	CompanyID              int64  `query:"company.id"`
	Company                string `query:"company"` // company IRI
	Code                   string `query:"code"`
	Name                   string `query:"name"`
	MainTransportationCode string `query:"mainTransportation.code"` // SEA, EXPRESS, ROAD, RAIL, AIR, LOCAL
}

// CarrierServiceFilter filters carrier services (B).
type CarrierServiceFilter struct {
	CompanyID int64  `query:"company.id"`
	Company   string `query:"company"` // company IRI
	Code      string `query:"code"`
	Name      string `query:"name"`
	CarrierID int64  `query:"carrier"`
}

// InboundFilter filters receptions (A) / purchase orders (B).
type InboundFilter struct {
	OrderNumber     string    `query:"orderNumber"`     // partial search
	ReferenceNumber string    `query:"referenceNumber"` // exact
	StatusCodes     []int     `query:"status.code"`     // status.code (one) or status.code[] (several)
	CreatedAfter    time.Time `query:"createdAt[after]"`
	CreatedBefore   time.Time `query:"createdAt[before]"`
	UpdatedAfter    time.Time `query:"updatedAt[after]"` // inclusive (>=)
	UpdatedBefore   time.Time `query:"updatedAt[before]"`
	ReceivedAfter   time.Time `query:"receivedAt[after]"`
	ReceivedBefore  time.Time `query:"receivedAt[before]"`
}

// OutboundFilter filters orders (A) / sales orders (B).
type OutboundFilter struct {
	OrderNumber         string `query:"orderNumber"`         // partial search
	ExternalOrderNumber string `query:"externalOrderNumber"` // exact
	// StatusCodes filters by fulfillment status: Edition A sends it under
	// both documented names (fulfillmentStatus.code and status.code),
	// Edition B as status.code. Results are also checked here.
	StatusCodes   []int
	CreatedAfter  time.Time `query:"createdAt[after]"`
	CreatedBefore time.Time `query:"createdAt[before]"`
	UpdatedAfter  time.Time `query:"updatedAt[after]"` // inclusive (>=)
	UpdatedBefore time.Time `query:"updatedAt[before]"`
	// ShippedAfter and ShippedBefore are the receivedAt[...] parameters,
	// which bound the shipping time.
	ShippedAfter  time.Time `query:"receivedAt[after]"`
	ShippedBefore time.Time `query:"receivedAt[before]"`
}

// query sends the status codes under each of the edition's parameters.
func (f OutboundFilter) query(statusParams ...string) url.Values {
	q := encodeQuery(f)
	for _, p := range statusParams {
		addCodes(q, p, f.StatusCodes)
	}
	return q
}

// FulfillmentFilter filters fulfillments (B).
type FulfillmentFilter struct {
	ID                int64  `query:"id"`
	CompanyID         int64  `query:"company.id"`
	Company           string `query:"company"` // IRI
	FulfillmentNumber string `query:"fulfillmentNumber"`
	Status            string `query:"status"` // status IRI
	StatusCode        string `query:"status.code"`
	Warehouse         string `query:"warehouse"` // IRI
	WarehouseID       int64  `query:"warehouse.id"`
	// The sales order, under the name salesOrder.
	SalesOrder                    string `query:"salesOrder"` // IRI
	SalesOrderID                  int64  `query:"salesOrder.id"`
	SalesOrderNumber              string `query:"salesOrder.orderNumber"`
	SalesOrderExternalOrderNumber string `query:"salesOrder.externalOrderNumber"`
	// The same filters under the name order.
	Order                    string    `query:"order"` // IRI
	OrderID                  int64     `query:"order.id"`
	OrderNumber              string    `query:"order.orderNumber"`
	OrderExternalOrderNumber string    `query:"order.externalOrderNumber"`
	Shipment                 string    `query:"shipment"` // IRI
	ShipmentID               int64     `query:"shipment.id"`
	TrackingNumber           string    `query:"trackingNumber"`
	Carrier                  string    `query:"carrier"` // IRI
	CarrierID                int64     `query:"carrier.id"`
	CarrierService           string    `query:"carrierService"` // IRI
	CarrierServiceID         int64     `query:"carrierService.id"`
	CreatedAt                TimeRange `query:"createdAt"`
	UpdatedAt                TimeRange `query:"updatedAt"`
	FulfilledAt              TimeRange `query:"fulfilledAt"` // bounds exclude fulfillments not fulfilled
	// Sorting, "asc" or "desc".
	SortID                string `query:"order[id]"`
	SortCreatedAt         string `query:"order[createdAt]"`
	SortUpdatedAt         string `query:"order[updatedAt]"`
	SortFulfillmentNumber string `query:"order[fulfillmentNumber]"`
	SortFulfilledAt       string `query:"order[fulfilledAt]"`
}

// ShippingUnitFilter filters shipping units (B).
type ShippingUnitFilter struct {
	ShippingTrackingNumber string    `query:"shippingTrackingNumber"`
	ShippingUnitNumber     string    `query:"shippingUnitNumber"`
	ShipmentNumber         string    `query:"shipment.shipmentNumber"`
	Status                 string    `query:"shippingUnitStatus"` // IRI
	Statuses               []string  `query:"shippingUnitStatus"`
	StatusCode             string    `query:"shippingUnitStatus.code"`
	StatusCodes            []string  `query:"shippingUnitStatus.code"`
	ShipToName             string    `query:"shipTo.name"`
	SalesOrderNumber       string    `query:"salesOrder.orderNumber"`
	CreatedAt              TimeRange `query:"createdAt"`
	UpdatedAt              TimeRange `query:"updatedAt"`
	CompletedAt            TimeRange `query:"completedAt"`
}

// EventFilter filters shipping unit events (B).
type EventFilter struct {
	Severity   *int   `query:"severity"` // exact severity; nil = any
	StatusCode string `query:"shippingUnitStatus.code"`
}

// StockFilter filters stocks.
type StockFilter struct {
	VariantID  int64   `query:"variant.id"`
	VariantIDs []int64 `query:"variant.id"`
	VariantSKU string  `query:"variant.sku"`
	// ItemsPerPage is the page size of this list (0: Config.ItemsPerPage;
	// at most model.MaxItemsPerPage).
	ItemsPerPage int
}

// MovementFilter filters stock movements.
type MovementFilter struct {
	VariantID     int64     `query:"variant.id"`
	VariantIDs    []int64   `query:"variant.id"`
	VariantSKU    string    `query:"variant.sku"`
	CreatedAfter  time.Time `query:"createdAt[after]"`
	CreatedBefore time.Time `query:"createdAt[before]"`
	// ItemsPerPage is the page size of this list (0: Config.ItemsPerPage;
	// at most model.MaxItemsPerPage).
	ItemsPerPage int
}
