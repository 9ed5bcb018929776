package model

import (
	"time"
)

// The documents below are edition-neutral: they carry codes where files carry
// codes (supplier, SKU, warehouse, carrier) and the ids the portal returned
// where a list response gives them. A zero value means "not given". A
// field's `wire` tag is where the portal's answers give it, in either
// edition: the portal package reads responses by it (see its read.go).

// Status is a status object of the API: a numeric code and, in Edition B, a name.
type Status struct {
	Code int
	Name string
}

// Partner is a supplier (Edition A) or a connection (Edition B).
type Partner struct {
	ID             int64  `wire:"#"`
	Code           string `wire:"code"`
	Name           string `wire:"name"`
	Relationship   string `wire:"relationship"`
	CountryCode    string `wire:"countryCode"`
	State          string `wire:"state"`
	City           string `wire:"city"`
	Zipcode        string `wire:"zipcode"`
	StreetAddress  string `wire:"streetAddress"`
	StreetAddress2 string `wire:"streetAddress2"`
	StreetAddress3 string `wire:"streetAddress3"`
	Email          string `wire:"email"`
	ContactName    string `wire:"contactName"`
	Phone          string `wire:"phone"`
}

// Item is a SKU (Edition A) or a variant (Edition B).
type Item struct {
	ID             int64     `wire:"#"`
	SKU            string    `wire:"sku"`
	Name           string    `wire:"name"`
	Description1   string    `wire:"description1"`
	EAN            string    `wire:"ean"`
	EANBox         string    `wire:"eanBox"`         // A only
	QuantityPerBox Decimal   `wire:"quantityPerBox"` // A only
	Length         Decimal   `wire:"length"`         // centimetres
	Width          Decimal   `wire:"width"`
	Height         Decimal   `wire:"height"`
	GrossWeight    Decimal   `wire:"grossWeight"`    // kilograms, selling unit
	GrossWeightBox Decimal   `wire:"grossWeightBox"` // A only
	BuyPrice       Decimal   `wire:"buyPrice"`       // A only
	SupplierCode   string    `wire:"supplier.code"`  // A only: code of the supplier; resolved to its id
	SupplierID     int64     `wire:"#supplier"`      // returned, or resolved
	CreatedAt      time.Time `wire:"createdAt"`
	UpdatedAt      time.Time `wire:"updatedAt"`
}

// Packaging is a variant packaging level (Edition B only).
type Packaging struct {
	ID           int64     `wire:"#"`
	SKU          string    `wire:"variant.sku"` // the variant it belongs to
	Code         string    `wire:"code"`        // unique per variant
	EAN          string    `wire:"ean"`
	Quantity     int64     `wire:"quantity"` // base units contained; 0 = not given
	Length       Decimal   `wire:"length"`
	Width        Decimal   `wire:"width"`
	Height       Decimal   `wire:"height"`
	GrossWeight  Decimal   `wire:"grossWeight"`
	NetWeight    Decimal   `wire:"netWeight"`
	Level        string    `wire:"level"` // PCB, SPCB, UVC
	Type         string    `wire:"type"`  // BOX, PALLET, BAG...
	SupplierCode string    `wire:"supplier.code"`
	CreatedAt    time.Time `wire:"createdAt"`
	UpdatedAt    time.Time `wire:"updatedAt"`
}

// Inbound is a reception (Edition A) or a purchase order (Edition B).
type Inbound struct {
	ID                int64             `wire:"#"`
	OrderNumber       string            `wire:"orderNumber"`
	ReferenceNumber   string            `wire:"referenceNumber"`
	WarehouseLocation int64             `wire:"#warehouseLocation"`     // warehouse id
	WarehouseCode     string            `wire:"warehouseLocation.code"` // B: warehouse code, resolved through warehouse clients
	WarehouseName     string            `wire:"warehouseLocation.name"` // returned (B)
	SupplierCode      string            `wire:"supplier.code"`
	SupplierID        int64             `wire:"#supplier"`
	OrderType         string            `wire:"orderType"`
	Attributes        map[string]string `wire:"attributes"` // A: e.g. deliveryType
	DueAt             time.Time         `wire:"dueAt"`
	Lines             []InboundLine     `wire:"purchaseOrderLineItems"`
	Status            Status            `wire:"status"`     // returned
	ReceivedAt        time.Time         `wire:"receivedAt"` // returned
	CreatedAt         time.Time         `wire:"createdAt"`
	UpdatedAt         time.Time         `wire:"updatedAt"`
}

// InboundLine is one expected SKU of an inbound delivery.
type InboundLine struct {
	Position         int       `wire:"position"`
	SKU              string    `wire:"variant.sku"`
	VariantID        int64     `wire:"#variant"` // resolved or returned
	Quantity         int64     `wire:"quantity"`
	LotNumber        string    `wire:"lotNumber"`        // B
	ExpiryDate       time.Time `wire:"expiryDate"`       // B
	OwnerCode        string    `wire:"ownerCode"`        // B
	QuantityReceived int64     `wire:"quantityReceived"` // returned
	// Item is the SKU master data carried on the line, when the file has
	// item.* columns: the SKU is created first when it does not exist.
	Item *Item
}

// Address is a consignee or billing party: Edition A's ShipTo, or an
// Edition B connection embedded in a sales order. Fields an edition does not
// know are left empty.
type Address struct {
	Code           string `wire:"code"`         // B: connection code of an embedded connection
	Relationship   string `wire:"relationship"` // B: embedded connection relationship
	Name           string `wire:"name"`
	Title          string `wire:"title"`       // A
	FirstName      string `wire:"firstName"`   // A
	LastName       string `wire:"lastName"`    // A
	ContactName    string `wire:"contactName"` // B
	StreetAddress  string `wire:"streetAddress"`
	StreetAddress2 string `wire:"streetAddress2"`
	StreetAddress3 string `wire:"streetAddress3"` // B
	City           string `wire:"city"`
	State          string `wire:"state"` // B
	Zipcode        string `wire:"zipcode"`
	CountryCode    string `wire:"countryCode"`
	Email          string `wire:"email"`
	Phone          string `wire:"phone"`
	LanguageCode   string `wire:"languageCode"`          // A
	AccessCode     string `wire:"attributes.accessCode"` // A
	Company        string `wire:"attributes.company"`    // A: attributes.company
	Floor          string `wire:"attributes.floor"`      // A: attributes.floor
	Building       string `wire:"attributes.building"`   // A: attributes.building
}

// Outbound is an order (Edition A) or a sales order (Edition B).
type Outbound struct {
	ID                     int64          `wire:"#"`
	OrderNumber            string         `wire:"orderNumber"`
	ExternalOrderNumber    string         `wire:"externalOrderNumber"`
	DeliveryMode           string         `wire:"deliveryMode"`
	WarehouseLocation      int64          `wire:"#warehouseLocation"`
	WarehouseCode          string         `wire:"warehouseLocation.code"` // B
	ShipTo                 *Address       `wire:"shipTo"`
	ShipToCode             string         `wire:"shipTo.code"` // B: code of an existing connection
	ShipToID               int64          `wire:"#shipTo"`
	BillingTo              *Address       `wire:"billingTo"`      // B
	BillingToCode          string         `wire:"billingTo.code"` // B
	BillingToID            int64          `wire:"#billingTo"`
	CarrierCode            string         `wire:"carrier.code;requestedCarrier.code"` // B
	CarrierID              int64          `wire:"#carrier;#requestedCarrier"`
	CarrierServiceCode     string         `wire:"carrierService.code;requestedCarrierService.code"` // B
	CarrierServiceID       int64          `wire:"#carrierService;#requestedCarrierService"`
	PlannedDeliveryDate    time.Time      `wire:"plannedDeliveryDate"`    // B: a date
	DeliveryTimeSlotBefore string         `wire:"deliveryTimeSlotBefore"` // B: a time, "15:04"
	Lines                  []OutboundLine `wire:"salesOrderLineItems"`
	ServiceLines           []ServiceLine  `wire:"serviceLineItems"` // A

	// Returned.
	FulfillmentStatus    Status            `wire:"fulfillmentStatus"`
	TransportationStatus Status            `wire:"transportationStatus"`
	ShippedAt            time.Time         `wire:"shippedAt"`
	Attributes           map[string]string `wire:"attributes"`    // A: marketplaceTrackingNumber, receiptNumber
	ShippingUnits        []ShippingUnit    `wire:"shippingUnits"` // B
	CreatedAt            time.Time         `wire:"createdAt"`
	UpdatedAt            time.Time         `wire:"updatedAt"`
}

// OutboundLine is one ordered SKU.
type OutboundLine struct {
	Position   int       `wire:"position"`
	SKU        string    `wire:"variant.sku"`
	VariantID  int64     `wire:"#variant"`
	Quantity   int64     `wire:"quantity"`
	LotNumber  string    `wire:"lotNumber"`  // B
	ExpiryDate time.Time `wire:"expiryDate"` // B
	OwnerCode  string    `wire:"ownerCode"`  // B
	// A: the reception line the goods come from.
	ReceptionOrderNumber string `wire:"purchaseOrderLineItem.orderNumber"`
	ReceptionPosition    int    `wire:"purchaseOrderLineItem.position"`
	QuantityShipped      int64  `wire:"quantityShipped"` // returned
}

// ServiceLine is a service ordered with an Edition A order (e.g. take-back).
type ServiceLine struct {
	Position    int    `wire:"position"`
	ServiceType string `wire:"serviceType"`
	Quantity    int64  `wire:"quantity"`
}

// Stock is the stock of one SKU.
type Stock struct {
	SKU       string    `wire:"variant.sku"`
	VariantID int64     `wire:"#variant"`
	Name      string    `wire:"variant.name"`
	EAN       string    `wire:"variant.ean"`
	Available int64     `wire:"available"`
	Incoming  int64     `wire:"incoming"`
	Allocated int64     `wire:"allocated"`
	Locked    int64     `wire:"locked"`
	CreatedAt time.Time `wire:"createdAt"`
	UpdatedAt time.Time `wire:"updatedAt"`
}

// Movement is a stock movement not caused by a reception or a shipment.
type Movement struct {
	ID             int64     `wire:"#"`
	SKU            string    `wire:"variant.sku"`
	VariantID      int64     `wire:"#variant"`
	FromPosition   string    `wire:"fromPosition"`
	ToPosition     string    `wire:"toPosition"`
	FromOwnerCode  string    `wire:"fromOwnerCode"` // B
	FromLotNumber  string    `wire:"fromLotNumber"` // B
	FromExpiryDate time.Time `wire:"fromExpiryDate"`
	ToOwnerCode    string    `wire:"toOwnerCode"` // B
	ToLotNumber    string    `wire:"toLotNumber"` // B
	ToExpiryDate   time.Time `wire:"toExpiryDate"`
	Quantity       int64     `wire:"quantity"`
	MovedAt        time.Time `wire:"movedAt"`
	Comment        string    `wire:"comment"`
	Processed      bool      `wire:"processed"`
	CreatedAt      time.Time `wire:"createdAt"`
}

// Shipment is a shipment confirmation: an Edition A order whose fulfillment
// status is 80, or an Edition B fulfillment.
type Shipment struct {
	ID                  int64          `wire:"#"`
	FulfillmentNumber   string         `wire:"fulfillmentNumber"` // B
	OrderNumber         string         `wire:"salesOrder.orderNumber"`
	ExternalOrderNumber string         `wire:"salesOrder.externalOrderNumber"`
	Status              Status         `wire:"status"`
	ShippedAt           time.Time      `wire:"fulfilledAt"`
	TrackingNumber      string         `wire:"trackingNumber"`
	CarrierCode         string         `wire:"carrier.code"`
	CarrierName         string         `wire:"carrier.name"`
	WarehouseCode       string         `wire:"warehouse.code"`
	Lines               []ShipmentLine `wire:"fulfillmentLineItems|unfulfillableLineItems"`
	CreatedAt           time.Time      `wire:"createdAt"`
	UpdatedAt           time.Time      `wire:"updatedAt"`
}

// ShipmentLine is one shipped (or unfulfillable) line.
type ShipmentLine struct {
	Position              int       `wire:"salesOrderLineItem.position"`
	SKU                   string    `wire:"variant.sku|salesOrderLineItem.variant.sku"`
	QuantityOrdered       int64     `wire:"salesOrderLineItem.quantity"`
	QuantityShipped       int64     `wire:"quantityFulfilled"`
	QuantityUnfulfillable int64     `wire:"quantityUnfulfillable"`
	ReasonCode            string    `wire:"reasonCode.code|#reasonCode"`
	ReasonComment         string    `wire:"reasonComment"`
	LotNumber             string    `wire:"lotNumber"`
	OwnerCode             string    `wire:"ownerCode"`
	ExpiryDate            time.Time `wire:"expiryDate"`
}

// ShippingUnit is a parcel of a sales order (Edition B).
type ShippingUnit struct {
	ID                     int64           `wire:"#"`
	ShippingUnitNumber     string          `wire:"shippingUnitNumber"`
	ShippingTrackingNumber string          `wire:"shippingTrackingNumber"`
	OrderNumber            string          `wire:"salesOrder.orderNumber"`
	Status                 Status          `wire:"shippingUnitStatus"`
	Weight                 Decimal         `wire:"weight"`
	Volume                 Decimal         `wire:"volume"`
	CompletedAt            time.Time       `wire:"completedAt"`
	DeliveryDateTime       time.Time       `wire:"deliveryDateTime"`
	Events                 []TrackingEvent `wire:"shippingUnitEvents"`
	CreatedAt              time.Time       `wire:"createdAt"`
	UpdatedAt              time.Time       `wire:"updatedAt"`
}

// TrackingEvent is a shipping unit event (Edition B).
type TrackingEvent struct {
	ID                 int64     `wire:"#"`
	ShippingUnitNumber string    `wire:"shippingUnit.shippingUnitNumber"`
	TrackingNumber     string    `wire:"shippingUnit.shippingTrackingNumber"`
	OrderNumber        string    `wire:"shippingUnit.salesOrder.orderNumber"`
	Status             Status    `wire:"shippingUnitStatus"`
	OccurredAt         time.Time `wire:"occurredAt"`
	Location           string    `wire:"location"`
	Latitude           Decimal   `wire:"latitude"`
	Longitude          Decimal   `wire:"longitude"`
	Message            string    `wire:"message"`
	StatusDetail       string    `wire:"statusDetail"`
	Severity           int       `wire:"severity"`
	UpdatedAt          time.Time `wire:"updatedAt"`
}
