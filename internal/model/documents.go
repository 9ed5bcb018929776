package model

import (
	"time"
)

// The documents below are edition-neutral: they carry codes where files carry
// codes (supplier, SKU, warehouse, carrier) and the ids the portal returned
// where a list response gives them. A zero value means "not given".

// Status is a status object of the API: a numeric code and, in Edition B, a name.
type Status struct {
	Code int
	Name string
}

// Partner is a supplier (Edition A) or a connection (Edition B).
type Partner struct {
	ID             int64
	Code           string
	Name           string
	Relationship   string
	CountryCode    string
	State          string
	City           string
	Zipcode        string
	StreetAddress  string
	StreetAddress2 string
	StreetAddress3 string
	Email          string
	ContactName    string
	Phone          string
}

// Item is a SKU (Edition A) or a variant (Edition B).
type Item struct {
	ID             int64
	SKU            string
	Name           string
	Description1   string
	EAN            string
	EANBox         string  // A only
	QuantityPerBox Decimal // A only
	Length         Decimal // centimetres
	Width          Decimal
	Height         Decimal
	GrossWeight    Decimal // kilograms, selling unit
	GrossWeightBox Decimal // A only
	BuyPrice       Decimal // A only
	SupplierCode   string  // A only: code of the supplier; resolved to its id
	SupplierID     int64   // returned, or resolved
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Packaging is a variant packaging level (Edition B only).
type Packaging struct {
	ID           int64
	SKU          string // the variant it belongs to
	Code         string // unique per variant
	EAN          string
	Quantity     int64 // base units contained; 0 = not given
	Length       Decimal
	Width        Decimal
	Height       Decimal
	GrossWeight  Decimal
	NetWeight    Decimal
	Level        string // PCB, SPCB, UVC
	Type         string // BOX, PALLET, BAG...
	SupplierCode string
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// Inbound is a reception (Edition A) or a purchase order (Edition B).
type Inbound struct {
	ID                int64
	OrderNumber       string
	ReferenceNumber   string
	WarehouseLocation int64  // warehouse id
	WarehouseCode     string // B: warehouse code, resolved through warehouse clients
	WarehouseName     string // returned (B)
	SupplierCode      string
	SupplierID        int64
	OrderType         string
	Attributes        map[string]string // A: e.g. deliveryType
	DueAt             time.Time
	Lines             []InboundLine
	Status            Status    // returned
	ReceivedAt        time.Time // returned
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// InboundLine is one expected SKU of an inbound delivery.
type InboundLine struct {
	Position         int
	SKU              string
	VariantID        int64 // resolved or returned
	Quantity         int64
	LotNumber        string    // B
	ExpiryDate       time.Time // B
	OwnerCode        string    // B
	QuantityReceived int64     // returned
	// Item is the SKU master data carried on the line, when the file has
	// item.* columns: the SKU is created first when it does not exist.
	Item *Item
}

// Address is a consignee or billing party: Edition A's ShipTo, or an
// Edition B connection embedded in a sales order. Fields an edition does not
// know are left empty.
type Address struct {
	Code           string // B: connection code of an embedded connection
	Relationship   string // B: embedded connection relationship
	Name           string
	Title          string // A
	FirstName      string // A
	LastName       string // A
	ContactName    string // B
	StreetAddress  string
	StreetAddress2 string
	StreetAddress3 string // B
	City           string
	State          string // B
	Zipcode        string
	CountryCode    string
	Email          string
	Phone          string
	LanguageCode   string // A
	AccessCode     string // A: attributes.accessCode
	Company        string // A: attributes.company
	Floor          string // A: attributes.floor
	Building       string // A: attributes.building
}

// Outbound is an order (Edition A) or a sales order (Edition B).
type Outbound struct {
	ID                     int64
	OrderNumber            string
	ExternalOrderNumber    string
	DeliveryMode           string
	WarehouseLocation      int64
	WarehouseCode          string // B
	ShipTo                 *Address
	ShipToCode             string // B: code of an existing connection
	ShipToID               int64
	BillingTo              *Address // B
	BillingToCode          string   // B
	BillingToID            int64
	CarrierCode            string // B
	CarrierID              int64
	CarrierServiceCode     string // B
	CarrierServiceID       int64
	PlannedDeliveryDate    time.Time // B: a date
	DeliveryTimeSlotBefore string    // B: a time, "15:04"
	Lines                  []OutboundLine
	ServiceLines           []ServiceLine // A

	// Returned.
	FulfillmentStatus    Status
	TransportationStatus Status
	ShippedAt            time.Time
	Attributes           map[string]string // A: marketplaceTrackingNumber, receiptNumber
	ShippingUnits        []ShippingUnit    // B
	CreatedAt            time.Time
	UpdatedAt            time.Time
}

// OutboundLine is one ordered SKU.
type OutboundLine struct {
	Position   int
	SKU        string
	VariantID  int64
	Quantity   int64
	LotNumber  string    // B
	ExpiryDate time.Time // B
	OwnerCode  string    // B
	// A: the reception line the goods come from.
	ReceptionOrderNumber string
	ReceptionPosition    int
	QuantityShipped      int64 // returned
}

// ServiceLine is a service ordered with an Edition A order (e.g. take-back).
type ServiceLine struct {
	Position    int
	ServiceType string
	Quantity    int64
}

// Stock is the stock of one SKU.
type Stock struct {
	SKU       string
	VariantID int64
	Name      string
	EAN       string
	Available int64
	Incoming  int64
	Allocated int64
	Locked    int64
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Movement is a stock movement not caused by a reception or a shipment.
type Movement struct {
	ID             int64
	SKU            string
	VariantID      int64
	FromPosition   string
	ToPosition     string
	FromOwnerCode  string // B
	FromLotNumber  string // B
	FromExpiryDate time.Time
	ToOwnerCode    string // B
	ToLotNumber    string // B
	ToExpiryDate   time.Time
	Quantity       int64
	MovedAt        time.Time
	Comment        string
	Processed      bool
	CreatedAt      time.Time
}

// Shipment is a shipment confirmation: an Edition A order whose fulfillment
// status is 80, or an Edition B fulfillment.
type Shipment struct {
	ID                  int64
	FulfillmentNumber   string // B
	OrderNumber         string
	ExternalOrderNumber string
	Status              Status
	ShippedAt           time.Time
	TrackingNumber      string
	CarrierCode         string
	CarrierName         string
	WarehouseCode       string
	Lines               []ShipmentLine
	CreatedAt           time.Time
	UpdatedAt           time.Time
}

// ShipmentLine is one shipped (or unfulfillable) line.
type ShipmentLine struct {
	Position              int
	SKU                   string
	QuantityOrdered       int64
	QuantityShipped       int64
	QuantityUnfulfillable int64
	ReasonCode            string
	ReasonComment         string
	LotNumber             string
	OwnerCode             string
	ExpiryDate            time.Time
}

// ShippingUnit is a parcel of a sales order (Edition B).
type ShippingUnit struct {
	ID                     int64
	ShippingUnitNumber     string
	ShippingTrackingNumber string
	OrderNumber            string
	Status                 Status
	Weight                 Decimal
	Volume                 Decimal
	CompletedAt            time.Time
	DeliveryDateTime       time.Time
	Events                 []TrackingEvent
	CreatedAt              time.Time
	UpdatedAt              time.Time
}

// TrackingEvent is a shipping unit event (Edition B).
type TrackingEvent struct {
	ID                 int64
	ShippingUnitNumber string
	TrackingNumber     string
	OrderNumber        string
	Status             Status
	OccurredAt         time.Time
	Location           string
	Latitude           Decimal
	Longitude          Decimal
	Message            string
	StatusDetail       string
	Severity           int
	UpdatedAt          time.Time
}
