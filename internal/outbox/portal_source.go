package outbox

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"time"

	"filebridge/internal/model"
	"filebridge/internal/portal"
)

// StockPageSize is the page size of the stock snapshot: the API's largest,
// so that a snapshot of 100,000 SKUs takes ten requests.
const StockPageSize = model.MaxItemsPerPage

// PortalSource reads the exports from the customer portal, per edition:
//
//	receipts   A: receptions with status.code=80; B: purchase orders with
//	           status.code[]=75&status.code[]=80 (one list, so an order
//	           moving from 75 to 80 during a run stays in it); both with
//	           updatedAt[after]
//	shipments  A: orders with fulfillment status 80 (under both names
//	           the documents give the filter) and updatedAt[after], the
//	           status checked again here; B: fulfillments with
//	           createdAt[after]
//	stock      stocks, every page of StockPageSize
//	movements  stock movements with createdAt[after]
//	tracking   B: the events embedded in the shipping units with
//	           updatedAt[after] (the event list has no time filter);
//	           events older than the cursor are dropped by the runner
//	items      B: variants with updatedAt[after]
type PortalSource struct {
	// Client lists everything.
	Client *portal.Client
	// Snapshot, when set, lists stocks instead of Client. It is not needed:
	// the stock list asks for pages of StockPageSize whatever the client's
	// page size.
	Snapshot *portal.Client

	codes codes // variant and supplier ids to codes
}

var _ Source = (*PortalSource)(nil)

// NewPortalSource builds the client of a portal.
func NewPortalSource(cfg portal.Config) (*PortalSource, error) {
	c, err := portal.New(cfg)
	if err != nil {
		return nil, err
	}
	return &PortalSource{Client: c}, nil
}

// Close releases the clients' idle connections.
func (p *PortalSource) Close() {
	p.Client.Close()
	if p.Snapshot != nil && p.Snapshot != p.Client {
		p.Snapshot.Close()
	}
}

func (p *PortalSource) edition() model.Edition { return p.Client.Edition() }

func (p *PortalSource) snapshot() *portal.Client {
	if p.Snapshot != nil {
		return p.Snapshot
	}
	return p.Client
}

// Receipts implements Source.
func (p *PortalSource) Receipts(ctx context.Context, after time.Time) iter.Seq2[model.Inbound, error] {
	codes := []int{model.StatusReceived}
	if p.edition() == model.EditionB {
		codes = []int{model.StatusPartial, model.StatusReceived}
	}
	all := p.Client.Inbounds(ctx, portal.InboundFilter{StatusCodes: codes, UpdatedAfter: after})
	return filterMap(all, func(in model.Inbound) (model.Inbound, bool, error) {
		if !slices.Contains(codes, in.Status.Code) {
			return in, false, nil // the filter was not honoured
		}
		err := p.fillInbound(ctx, &in)
		return in, true, err
	})
}

// Shipments implements Source.
func (p *PortalSource) Shipments(ctx context.Context, after time.Time) iter.Seq2[model.Shipment, error] {
	if p.edition() == model.EditionB {
		return p.Client.Fulfillments(ctx, portal.FulfillmentFilter{CreatedAt: portal.TimeRange{After: after}})
	}
	orders := p.Client.Outbounds(ctx, portal.OutboundFilter{StatusCodes: []int{model.StatusReceived}, UpdatedAfter: after})
	return filterMap(orders, func(o model.Outbound) (model.Shipment, bool, error) {
		if o.FulfillmentStatus.Code != model.StatusReceived {
			return model.Shipment{}, false, nil
		}
		if err := p.fillOutbound(ctx, &o); err != nil {
			return model.Shipment{}, false, err
		}
		return ShipmentOfOrder(o), true, nil
	})
}

// ShipmentOfOrder is the shipment confirmation of an Edition A order whose
// fulfillment status is 80: one line per order line.
func ShipmentOfOrder(o model.Outbound) model.Shipment {
	s := model.Shipment{
		ID: o.ID, OrderNumber: o.OrderNumber, ExternalOrderNumber: o.ExternalOrderNumber,
		Status: o.FulfillmentStatus, ShippedAt: o.ShippedAt, TrackingNumber: o.Attributes["marketplaceTrackingNumber"],
		CarrierCode: o.CarrierCode, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt,
	}
	for _, l := range o.Lines {
		s.Lines = append(s.Lines, model.ShipmentLine{
			Position: l.Position, SKU: l.SKU, QuantityOrdered: l.Quantity, QuantityShipped: l.QuantityShipped,
			LotNumber: l.LotNumber, OwnerCode: l.OwnerCode, ExpiryDate: l.ExpiryDate,
		})
	}
	return s
}

// Stock implements Source.
func (p *PortalSource) Stock(ctx context.Context) iter.Seq2[model.Stock, error] {
	return p.snapshot().Stocks(ctx, portal.StockFilter{ItemsPerPage: StockPageSize})
}

// Movements implements Source.
func (p *PortalSource) Movements(ctx context.Context, after time.Time) iter.Seq2[model.Movement, error] {
	return p.Client.Movements(ctx, portal.MovementFilter{CreatedAfter: after})
}

// Tracking implements Source.
func (p *PortalSource) Tracking(ctx context.Context, after time.Time) iter.Seq2[model.TrackingEvent, error] {
	if err := p.only(model.EditionB, model.ExportTracking); err != nil {
		return fail[model.TrackingEvent](err)
	}
	units := p.Client.ShippingUnits(ctx, portal.ShippingUnitFilter{UpdatedAt: portal.TimeRange{After: after}})
	return func(yield func(model.TrackingEvent, error) bool) {
		for u, err := range units {
			if err != nil {
				yield(model.TrackingEvent{}, err)
				return
			}
			for _, e := range u.Events {
				if e.ShippingUnitNumber == "" {
					e.ShippingUnitNumber = u.ShippingUnitNumber
				}
				if e.TrackingNumber == "" {
					e.TrackingNumber = u.ShippingTrackingNumber
				}
				if e.OrderNumber == "" {
					e.OrderNumber = u.OrderNumber
				}
				if !yield(e, nil) {
					return
				}
			}
		}
	}
}

// Items implements Source.
func (p *PortalSource) Items(ctx context.Context, after time.Time) iter.Seq2[model.Item, error] {
	if err := p.only(model.EditionB, model.ExportItems); err != nil {
		return fail[model.Item](err)
	}
	return p.Client.Items(ctx, portal.ItemFilter{UpdatedAfter: after})
}

func (p *PortalSource) only(e model.Edition, t model.ExportType) error {
	if p.edition() != e {
		return fmt.Errorf("the %s export needs an Edition %s portal; this one is Edition %s", t, e, p.edition())
	}
	return nil
}

func fail[T any](err error) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		yield(zero, err)
	}
}
