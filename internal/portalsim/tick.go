package portalsim

import (
	"fmt"
	"strconv"
	"time"
)

// Shipping unit status codes (the documents only confirm 80 = Delivered).
const (
	suPickedUp  = 10
	suInTransit = 50
	suDelivered = 80
)

// reasonID is the reference code id of the unfulfillable reason.
const reasonID = 501

// TickSummary says what one step of the warehouse did.
type TickSummary struct {
	Tick         int `json:"tick"`
	Advanced     int `json:"advanced"`     // inbound and outbound documents moved to an intermediate status
	Received     int `json:"received"`     // receptions / purchase orders received in full (80)
	Partial      int `json:"partial"`      // purchase orders received short (75)
	Shipped      int `json:"shipped"`      // orders shipped (fulfillment status 80)
	Fulfillments int `json:"fulfillments"` // fulfillments created (B)
	Events       int `json:"events"`       // shipping unit events created (B)
	Delivered    int `json:"delivered"`    // shipping units delivered (B)
	Movements    int `json:"movements"`    // damage movements
}

// Tick moves the warehouse on one step: receptions advance towards
// received, orders towards shipped (with fulfillments and shipping units in
// Edition B), parcels towards delivered, and now and then some stock gets
// damaged. It is deterministic for a given seed and request history.
func (s *Sim) Tick() { s.tick() }

func (s *Sim) tick() TickSummary {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ticks++
	sum := TickSummary{Tick: s.ticks}
	now := s.clock.stamp()
	// Parcels first, so that a parcel shipped in this step waits for the next.
	for _, d := range s.tables[ShippingUnits].items {
		if u := d.(*shippingUnit); u.Status < suDelivered {
			s.moveParcel(u, now, &sum)
		}
	}
	for _, d := range s.tables[PurchaseOrders].items {
		p := d.(*purchaseOrder)
		switch {
		case p.Status == statusCreated:
			p.Status = statusInWMS
		case p.Status == statusInWMS && s.isB():
			p.Status = statusOnDocks
		case p.Status == statusInWMS || p.Status == statusOnDocks:
			s.receive(p, now, &sum)
			continue
		default:
			continue
		}
		sum.Advanced++
		s.clock.touch(&p.base)
	}
	for _, d := range s.tables[SalesOrders].items {
		o := d.(*salesOrder)
		switch o.FulfillmentStatus {
		case statusCreated:
			o.FulfillmentStatus = statusInWMS
			sum.Advanced++
			s.clock.touch(&o.base)
		case statusInWMS:
			s.ship(o, now, &sum)
		}
	}
	if st := s.tables[Stocks].items; len(st) > 0 && s.rng.IntN(4) == 0 {
		s.damage(st, now, &sum)
	}
	return sum
}

// receive books a purchase order in: in Edition B one in five is short on
// one line (status 75).
func (s *Sim) receive(p *purchaseOrder, now time.Time, sum *TickSummary) {
	short := -1
	if s.isB() && len(p.Lines) > 0 && s.rng.IntN(5) == 0 {
		short = s.rng.IntN(len(p.Lines))
	}
	p.Status = statusReceived
	for i := range p.Lines {
		l := &p.Lines[i]
		l.QuantityReceived = l.Quantity
		if i == short {
			l.QuantityReceived = l.Quantity - max(1, l.Quantity/4)
			p.Status = statusPartial
		}
		st := s.stockOf(l.VariantID)
		st.Incoming = max(0, st.Incoming-l.Quantity)
		st.Available += l.QuantityReceived
		s.clock.touchStock(&st.base)
		if v := s.variantOf(l.VariantID); s.isB() && v.Length == "" && v.ID > 0 {
			// The warehouse measures items it did not know the size of.
			v.Length, v.Width, v.Height = "40", "30", "25"
			v.GrossWeight = decimal(strconv.Itoa(1 + s.rng.IntN(20)))
			s.clock.touch(&v.base)
		}
	}
	p.ReceivedAt = now
	s.clock.touch(&p.base)
	if p.Status == statusPartial {
		sum.Partial++
	} else {
		sum.Received++
	}
}

// ship ships a sales order; in Edition B it creates the fulfillment (one in
// six with an unfulfillable unit) and a shipping unit picked up by the
// carrier.
func (s *Sim) ship(o *salesOrder, now time.Time, sum *TickSummary) {
	o.FulfillmentStatus = statusReceived
	o.ShippedAt = now
	short := -1
	if s.isB() && len(o.Lines) > 0 && s.rng.IntN(6) == 0 {
		short = s.rng.IntN(len(o.Lines))
	}
	for i := range o.Lines {
		l := &o.Lines[i]
		l.QuantityShipped = l.Quantity
		if i == short {
			l.QuantityShipped = l.Quantity - 1
		}
		st := s.stockOf(l.VariantID)
		st.Allocated = max(0, st.Allocated-l.Quantity)
		s.clock.touchStock(&st.base)
	}
	sum.Shipped++
	if !s.isB() {
		o.TransportationStatus = suDelivered
		o.TrackingNumber = fmt.Sprintf("JJD%014d", 4_200_000_000+o.ID)
		o.ReceiptNumber = fmt.Sprintf("RCPT-%08d", o.ID)
		s.clock.touch(&o.base)
		return
	}
	carrierID, serviceID := o.CarrierID, o.CarrierServiceID
	if svc, ok := s.tables[CarrierServices].get(serviceID).(*carrierService); ok && carrierID == 0 {
		carrierID = svc.CarrierID
	}
	if carrierID == 0 {
		carrierID = seedCarriers[s.rng.IntN(len(seedCarriers))].ID
	}
	tracking := fmt.Sprintf("%s%012d", s.carrierOf(carrierID).Code, 700_000_000_000+o.ID)
	u := &shippingUnit{TrackingNumber: tracking, ShipToID: o.ShipToID, SalesOrderID: o.ID, Status: suPickedUp,
		Height: "40", Width: "30", Length: "60", Volume: "0.072"}
	f := &fulfillment{Company: o.Company, FulfilledAt: now, WarehouseID: o.WarehouseID, TrackingNumber: tracking,
		CarrierID: carrierID, CarrierServiceID: serviceID, SalesOrderID: o.ID}
	weight := 0.0
	for i, l := range o.Lines {
		v := s.variantOf(l.VariantID)
		if l.QuantityShipped > 0 {
			s.lineIDs++
			f.Lines = append(f.Lines, fulfillmentLine{ID: s.lineIDs, VariantID: l.VariantID, SOLinePosition: l.Position,
				Quantity: l.QuantityShipped, OwnerCode: l.OwnerCode, Lot: l.LotNumber, ExpiryDate: l.ExpiryDate})
			w := v.GrossWeight.Float64() * float64(l.QuantityShipped)
			weight += w
			u.Lines = append(u.Lines, shippingUnitLine{ID: s.lineIDs, VariantID: l.VariantID, Quantity: l.QuantityShipped,
				TotalWeight: decimalOf(w), TotalVolume: "0.072", ExpiryDate: l.ExpiryDate, Lot: l.LotNumber,
				OwnerCode: l.OwnerCode, SOLinePosition: l.Position, UpdatedAt: now})
		}
		if i == short {
			s.lineIDs++
			f.Unfulfillable = append(f.Unfulfillable, fulfillmentLine{ID: s.lineIDs, VariantID: l.VariantID, SOLinePosition: l.Position,
				Quantity: 1, ReasonCode: "NOT_FOUND", ReasonComment: "Unit not found at its picking location"})
		}
	}
	u.Weight = decimalOf(weight)
	s.clock.created(&u.base)
	st := s.tables[ShippingUnits]
	u.Number = fmt.Sprintf("%018d", 340_123_450_000_000_000+st.next)
	st.insert(u, u.Number)
	s.clock.created(&f.base)
	f.FulfilledAt = f.CreatedAt
	ft := s.tables[Fulfillments]
	f.FulfillmentNumber = fmt.Sprintf("FUL-%08d", ft.next)
	f.ShippingUnitID = u.ID
	ft.insert(f, f.FulfillmentNumber)
	o.ShippingUnitIDs = append(o.ShippingUnitIDs, u.ID)
	o.FulfillmentIDs = append(o.FulfillmentIDs, f.ID)
	o.TransportationStatus = suPickedUp
	s.addEvent(u, suPickedUp, now, sum)
	s.clock.touch(&o.base)
	sum.Fulfillments++
}

// moveParcel takes a parcel one step towards delivery.
func (s *Sim) moveParcel(u *shippingUnit, now time.Time, sum *TickSummary) {
	next := suInTransit
	if u.Status == suInTransit {
		next = suDelivered
	}
	u.Status = next
	if next == suDelivered {
		u.CompletedAt, u.DeliveryDateTime = now, now
		sum.Delivered++
	}
	s.addEvent(u, next, now, sum)
	s.clock.touch(&u.base)
	o := s.salesOrderOf(u.SalesOrderID)
	status := suDelivered
	for _, id := range o.ShippingUnitIDs {
		status = min(status, s.shippingUnitOf(id).Status)
	}
	if o.ID > 0 && o.TransportationStatus != status {
		o.TransportationStatus = status
		s.clock.touch(&o.base)
	}
}

type place struct {
	name     string
	lat, lon float64
}

var hubs = []place{{"Lyon, FR", 45.7640, 4.8357}, {"Hamburg, DE", 53.5511, 9.9937}, {"Milano, IT", 45.4642, 9.19}, {"Paris, FR", 48.8566, 2.3522}}

// addEvent records a tracking event of a parcel.
func (s *Sim) addEvent(u *shippingUnit, code int, now time.Time, sum *TickSummary) {
	at := hubs[s.rng.IntN(len(hubs))]
	detail, msg := "PICKED_UP", "Parcel picked up by the carrier"
	switch code {
	case suInTransit:
		detail, msg = "IN_TRANSIT", "Parcel in transit"
	case suDelivered:
		detail, msg = "DELIVERED", "Parcel delivered"
		if c := s.connectionOf(u.ShipToID); c.City != "" {
			at = place{name: c.City + ", " + c.CountryCode, lat: at.lat, lon: at.lon}
		}
	}
	e := &shippingUnitEvent{ShippingUnitID: u.ID, OccurredAt: now, Location: at.name, Lat: at.lat, Lon: at.lon,
		Message: msg, StatusDetail: detail, StatusCode: code}
	s.store(ShippingUnitEvents, e, "")
	u.EventIDs = append(u.EventIDs, e.ID)
	sum.Events++
}

// damage moves a few available units of a random stock to locked.
func (s *Sim) damage(items []doc, now time.Time, sum *TickSummary) {
	for try := 0; try < 5; try++ {
		st := items[s.rng.IntN(len(items))].(*stock)
		if st.Available <= 0 {
			continue
		}
		qty := 1 + s.rng.Int64N(min(3, st.Available))
		st.Available -= qty
		st.Locked += qty
		s.clock.touchStock(&st.base)
		m := &movement{VariantID: st.VariantID, From: "available", To: "locked", Quantity: qty, MovedAt: now, Comment: "damaged"}
		s.store(StockMovements, m, "")
		m.MovedAt = m.CreatedAt
		sum.Movements++
		return
	}
}

func decimalOf(f float64) decimal {
	d, err := parseDecimal(strconv.FormatFloat(f, 'f', 3, 64))
	if err != nil {
		return ""
	}
	return d
}
