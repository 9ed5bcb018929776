package portalsim

import (
	"fmt"
	"time"
)

// base is what every stored document has.
type base struct {
	ID        int64
	CreatedAt time.Time
	UpdatedAt time.Time
}

func (b *base) meta() *base { return b }

// doc is a stored document of any resource.
type doc interface{ meta() *base }

// table holds the documents of one resource ordered by id (ids only grow,
// so appending keeps the order), with indexes by id and by unique key.
type table struct {
	items []doc
	byID  map[int64]doc
	byKey map[string]doc
	next  int64
}

func newTable() *table { return &table{byID: map[int64]doc{}, byKey: map[string]doc{}, next: 1} }

// store stamps d as created now and inserts it into the table of r under
// key ("" for none).
func (s *Sim) store(r Resource, d doc, key string) {
	s.clock.created(d.meta())
	s.tables[r].insert(d, key)
}

// free adds a violation of field when key is already used in the table of
// r, and reports whether the document read by o may be stored: it has no
// violation.
func (s *Sim) free(o in, r Resource, field, key string) bool {
	if key != "" && s.tables[r].byKey[key] != nil {
		o.v.add(field, msgUsed, codeUnique)
	}
	return len(*o.v) == 0
}

// insert stores d under the next id (or its own id when it has one: seeded
// reference data) and indexes it by key when key is not empty.
func (t *table) insert(d doc, key string) {
	m := d.meta()
	if m.ID == 0 {
		m.ID = t.next
	}
	if m.ID >= t.next {
		t.next = m.ID + 1
	}
	t.items = append(t.items, d)
	t.byID[m.ID] = d
	if key != "" {
		t.byKey[key] = d
	}
}

func (t *table) get(id int64) doc { return t.byID[id] }

// clock hands out timestamps of whole seconds that never go back across the
// simulator, so a client polling with an inclusive updatedAt[after] misses
// nothing; many documents share one instant.
type clock struct {
	now  func() time.Time
	last time.Time
}

// stamp returns the current instant.
func (c *clock) stamp() time.Time {
	t := c.now().UTC().Truncate(time.Second)
	if t.Before(c.last) {
		t = c.last
	}
	c.last = t
	return t
}

// touch sets b.UpdatedAt to now, strictly after its previous value (the
// whole clock moves on a second when needed).
func (c *clock) touch(b *base) time.Time {
	t := c.stamp()
	if !t.After(b.UpdatedAt) {
		t = b.UpdatedAt.Add(time.Second)
		c.last = t
	}
	b.UpdatedAt = t
	return t
}

// touchStock sets a stock row's updatedAt to now without forcing it past
// its previous value: stock rows change many times a second under load and
// are exported as snapshots, not through an updatedAt cursor, so they must
// not drag the clock ahead of time.
func (c *clock) touchStock(b *base) {
	if t := c.stamp(); t.After(b.UpdatedAt) {
		b.UpdatedAt = t
	}
}

// created stamps a new document.
func (c *clock) created(b *base) {
	t := c.stamp()
	b.CreatedAt, b.UpdatedAt = t, t
}

// Stored documents. Field names follow the API's; ids reference other tables.

type connection struct {
	base
	Company                           int64
	Code, Name, Relationship          string
	CountryCode, State, City, Zipcode string
	Street1, Street2, Street3         string
	Email, ContactName, Phone         string
}

type variant struct {
	base
	Company                              int64
	SKU, Name, Description1, EAN, EANBox string
	QuantityPerBox                       decimal
	Length, Width, Height                decimal
	GrossWeight, GrossWeightBox          decimal
	BuyPrice                             decimal
	SupplierID                           int64
	StockID                              int64
}

type packaging struct {
	base
	VariantID             int64
	Code, EAN             string
	Quantity              int64 // 0 = null
	Length, Width, Height decimal
	GrossWeight           decimal
	NetWeight             decimal
	Level, Type           string
	SupplierID            int64
}

type warehouse struct {
	ID         int64
	Code, Name string
}

type warehouseClient struct {
	base
	ClientCode  string
	Company     int64
	WarehouseID int64
}

type carrier struct {
	base
	Code, Name, Mode string
	ModeID           int64
}

type carrierService struct {
	base
	CarrierID  int64
	Code, Name string
}

// orderLine is what purchase and sales order lines have in common.
type orderLine struct {
	Position   int64
	VariantID  int64
	Quantity   int64
	LotNumber  string    // B
	ExpiryDate time.Time // B
	OwnerCode  string    // B
}

type poLine struct {
	orderLine
	QuantityReceived int64
}

type purchaseOrder struct {
	base
	Company                 int64
	OrderNumber, Reference  string
	WarehouseID, SupplierID int64
	OrderType, DeliveryType string
	HasAttributes           bool
	DueAt, ReceivedAt       time.Time
	Lines                   []poLine
	Status                  int
}

// address is an Edition A ShipTo.
type address struct {
	Name, Title, FirstName, LastName string
	Street1, Street2, City           string
	CountryCode                      string
	Zipcode                          numText
	Email, Phone, LanguageCode       string
	AccessCode                       numText
	Company, Floor, Building         string
	HasAttributes                    bool
}

type soLine struct {
	orderLine
	POOrderNumber   string // A: purchaseOrderLineItem.orderNumber
	POPosition      int64  // A: purchaseOrderLineItem.position
	HasPOLink       bool
	QuantityShipped int64
}

type serviceLine struct {
	Position    int64
	ServiceType string
	Quantity    int64
}

type salesOrder struct {
	base
	Company                          int64
	OrderNumber, ExternalOrderNumber string
	DeliveryMode                     string
	WarehouseID                      int64
	ShipTo                           *address // A
	ShipToID, BillingToID            int64    // B
	CarrierID, CarrierServiceID      int64    // B
	PlannedDeliveryDate, TimeSlot    string   // B
	Lines                            []soLine
	Services                         []serviceLine
	FulfillmentStatus                int
	TransportationStatus             int
	ShippedAt                        time.Time
	TrackingNumber, ReceiptNumber    string
	ShippingUnitIDs                  []int64
	FulfillmentIDs                   []int64
}

type fulfillmentLine struct {
	ID             int64
	VariantID      int64
	SOLinePosition int64
	Quantity       int64
	OwnerCode, Lot string
	ExpiryDate     time.Time
	ReasonCode     string // unfulfillable lines
	ReasonComment  string
}

type fulfillment struct {
	base
	Company           int64
	FulfillmentNumber string
	FulfilledAt       time.Time
	WarehouseID       int64
	TrackingNumber    string
	CarrierID         int64
	CarrierServiceID  int64
	SalesOrderID      int64
	ShippingUnitID    int64
	Lines             []fulfillmentLine
	Unfulfillable     []fulfillmentLine
}

type shippingUnitLine struct {
	ID             int64
	VariantID      int64
	Quantity       int64
	TotalWeight    decimal
	TotalVolume    decimal
	ExpiryDate     time.Time
	Lot, OwnerCode string
	SOLinePosition int64
	UpdatedAt      time.Time
}

type shippingUnit struct {
	base
	Number, TrackingNumber        string
	Lines                         []shippingUnitLine
	EventIDs                      []int64
	ShipToID                      int64
	Weight, Volume                decimal
	Height, Width, Length         decimal
	CompletedAt, DeliveryDateTime time.Time
	SalesOrderID                  int64
	Status                        int
}

type shippingUnitEvent struct {
	base
	ShippingUnitID int64
	OccurredAt     time.Time
	Location       string
	Lat, Lon       float64
	Message        string
	StatusDetail   string
	StatusCode     int
	Severity       int
}

type stock struct {
	base
	VariantID                              int64
	Available, Incoming, Allocated, Locked int64
}

type movement struct {
	base
	VariantID          int64
	From, To           string
	FromOwner, ToOwner string
	FromLot, ToLot     string
	Quantity           int64
	MovedAt            time.Time
	Comment            string
	Processed          bool
}

// Seeded reference data, the same in both editions.
var (
	seedWarehouses = []warehouse{
		{ID: 3, Code: "WH-LYON", Name: "Lyon Saint-Priest"},
		{ID: 5, Code: "WH-HAMBURG", Name: "Hamburg Billbrook"},
		{ID: 8, Code: "WH-MILANO", Name: "Milano Lodi"},
	}
	seedCarriers = []carrier{
		{base: base{ID: 1}, Code: "DHL", Name: "DHL Express", Mode: "EXPRESS", ModeID: 2},
		{base: base{ID: 2}, Code: "UPS", Name: "UPS", Mode: "EXPRESS", ModeID: 2},
		{base: base{ID: 3}, Code: "GLS", Name: "GLS", Mode: "ROAD", ModeID: 3},
	}
	seedServices = []carrierService{
		{base: base{ID: 11}, CarrierID: 1, Code: "DHL-EXP", Name: "DHL Express Worldwide"},
		{base: base{ID: 12}, CarrierID: 1, Code: "DHL-ECO", Name: "DHL Economy Select"},
		{base: base{ID: 21}, CarrierID: 2, Code: "UPS-STD", Name: "UPS Standard"},
		{base: base{ID: 22}, CarrierID: 2, Code: "UPS-SAVER", Name: "UPS Express Saver"},
		{base: base{ID: 31}, CarrierID: 3, Code: "GLS-BP", Name: "GLS BusinessParcel"},
		{base: base{ID: 32}, CarrierID: 3, Code: "GLS-EP", Name: "GLS ExpressParcel"},
	}
)

func findWarehouse(id int64) (warehouse, bool) {
	for _, w := range seedWarehouses {
		if w.ID == id {
			return w, true
		}
	}
	return warehouse{}, false
}

// seed fills the reference data and the preloaded master data.
func (s *Sim) seed(preload int) {
	for i, w := range seedWarehouses {
		wc := &warehouseClient{ClientCode: fmt.Sprintf("C%d-%s", s.opts.Company, w.Code), Company: s.opts.Company, WarehouseID: w.ID}
		wc.ID = int64(101 + i) // apart from the warehouse ids, so that one taken for the other is refused
		s.store(WarehouseClients, wc, "")
	}
	for _, c := range seedCarriers {
		c := c
		s.store(Carriers, &c, c.Code)
	}
	for _, cs := range seedServices {
		cs := cs
		s.store(CarrierServices, &cs, cs.Code)
	}
	if preload <= 0 {
		return
	}
	suppliers := preload/100 + 1
	for i := 1; i <= suppliers; i++ {
		c := &connection{Company: s.opts.Company, Code: fmt.Sprintf("PRE-SUP-%04d", i), Name: fmt.Sprintf("Preloaded supplier %d", i), Relationship: "Manufacturer"}
		s.store(Connections, c, c.Code)
	}
	for i := 1; i <= preload; i++ {
		v := &variant{
			Company: s.opts.Company, SKU: fmt.Sprintf("PRE-%06d", i), Name: fmt.Sprintf("Preloaded item %d", i),
			EAN: eanFor(int64(i)), QuantityPerBox: "1", Length: "30", Width: "20", Height: "10",
			GrossWeight: "1.5", GrossWeightBox: "1.7", BuyPrice: "19.9", SupplierID: int64((i-1)%suppliers + 1),
		}
		s.store(Variants, v, v.SKU)
		st := s.newStock(v)
		st.Available = 50 + s.rng.Int64N(100)
	}
}

// newStock gives a new variant its stock row.
func (s *Sim) newStock(v *variant) *stock {
	st := &stock{VariantID: v.ID}
	s.store(Stocks, st, "")
	v.StockID = st.ID
	return st
}

// eanFor makes a valid EAN-13 from a number (preloaded items, test data).
func eanFor(n int64) string {
	digits := fmt.Sprintf("200%09d", n%1_000_000_000)
	sum := 0
	for i, w := len(digits)-1, 3; i >= 0; i, w = i-1, 4-w {
		sum += int(digits[i]-'0') * w
	}
	return digits + string(rune('0'+(10-sum%10)%10))
}
