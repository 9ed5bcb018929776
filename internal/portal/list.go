package portal

import (
	"context"
	"fmt"
	"iter"
	"net/url"
	"reflect"
	"slices"
	"strconv"

	"filebridge/internal/model"
)

// pageBody decodes a page while the response streams in.
type pageBody struct{ p *PageResult }

func (b *pageBody) UnmarshalJSON(data []byte) error {
	p, err := decodePageRaw(data)
	*b.p = p
	return err
}

// Page reads one page of a resource with the given query (page and
// itemsPerPage included by the caller).
func (c *Client) Page(ctx context.Context, r Resource, q url.Values) (PageResult, error) {
	var p PageResult
	path, ok := c.paths[r]
	if !ok {
		return p, c.serves(r, string(r))
	}
	if err := c.get(ctx, path, q, &pageBody{&p}); err != nil {
		return p, err
	}
	return p, nil
}

// listOpts are the paging options of one list.
type listOpts struct {
	perPage int // 0: the configured page size
	// ahead fetches the next page while the current one is consumed.
	// Lookups that stop at the first match go without.
	ahead bool
	// total, when set, is told the total each page announces (-1: none).
	total func(int64)
}

// all is the options of a list read to its end.
func all(perPage int) listOpts { return listOpts{perPage: perPage, ahead: true} }

// listAll iterates over every document of a resource matching q, page by
// page, each page read by dec. Paging goes on by page number while fewer
// documents than the page's total were read, whether or not the page links
// a next one (the documents show a next link on the shipping-unit list
// only); without a total it follows the view's next link, or (without a
// view) stops at a short page. It always stops at an empty page: one that
// comes before the total was read is an error, so that an export never
// moves its cursor past documents it did not see. A page equal to the one
// before it (a portal ignoring the page parameter) is an error too, so
// that the loop ends. With o.ahead, the next page is requested before the
// current one is yielded (when the total already says it will be needed,
// before it is even decoded), so that the portal prepares it meanwhile; a
// consumer that stops early cancels it.
func listAll[M any](c *Client, ctx context.Context, d docWire[M], q url.Values, o listOpts) iter.Seq2[M, error] {
	return func(yield func(M, error) bool) {
		var zero M
		r := d.res
		if err := c.serves(r, string(r)); err != nil {
			yield(zero, err)
			return
		}
		perPage := o.perPage
		if perPage <= 0 {
			perPage = c.cfg.ItemsPerPage
		}
		perPage = min(perPage, model.MaxItemsPerPage)
		f := &fetcher{c: c, ctx: ctx, path: c.paths[r], q: q, perPage: perPage}
		defer f.close()
		fail := func(page int, err error) {
			yield(zero, fmt.Errorf("listing %s (page %d): %w", r, page, err))
		}
		var seen int64
		total := int64(-1)
		var prev []M
		for page := 1; ; page++ {
			body, err := f.take(page)
			if err != nil {
				fail(page, err)
				return
			}
			if o.ahead && total >= 0 && seen+int64(perPage) < total {
				f.start(page + 1)
			}
			p, err := d.page(body.Bytes())
			f.release(body)
			if err != nil {
				fail(page, err)
				return
			}
			if len(p.Members) > 0 && reflect.DeepEqual(p.Members, prev) {
				f.cancel()
				fail(page, fmt.Errorf("page %d is the same as page %d: the portal seems to ignore the page parameter, so the list cannot be read to its end", page, page-1))
				return
			}
			prev = p.Members
			seen += int64(len(p.Members))
			total = p.TotalItems
			if o.total != nil {
				o.total(total)
			}
			var more bool
			switch {
			case p.Err != nil || len(p.Members) == 0:
			case p.TotalItems >= 0:
				more = seen < p.TotalItems
			case p.Next != "":
				more = true
			case p.HasView:
			default:
				more = len(p.Members) >= perPage
			}
			if !more {
				f.cancel()
			} else if o.ahead {
				f.start(page + 1)
			}
			for _, v := range p.Members {
				if !yield(v, nil) {
					return
				}
			}
			if p.Err != nil {
				fail(page, p.Err)
				return
			}
			if len(p.Members) == 0 && total >= 0 && seen < total {
				fail(page, fmt.Errorf("the list ended after %d of the %d documents it announced (page %d is empty): it changed while it was read, or the portal pages differently; try again later", seen, total, page))
				return
			}
			if !more {
				return
			}
		}
	}
}

// Partners lists suppliers (A) / connections (B).
func (c *Client) Partners(ctx context.Context, f PartnerFilter) iter.Seq2[model.Partner, error] {
	return stableList(c, ctx, c.wire.partners, encodeQuery(f), all(f.ItemsPerPage), func(p model.Partner) string { return p.Code })
}

// Items lists SKUs (A) / variants (B).
func (c *Client) Items(ctx context.Context, f ItemFilter) iter.Seq2[model.Item, error] {
	return stableList(c, ctx, c.wire.items, encodeQuery(f), all(f.ItemsPerPage), func(it model.Item) string { return it.SKU })
}

// Packagings lists variant packagings (B).
func (c *Client) Packagings(ctx context.Context, f PackagingFilter) iter.Seq2[model.Packaging, error] {
	return listAll(c, ctx, packagingsB, encodeQuery(f), all(0))
}

// WarehouseClients lists the warehouses of the account (B).
func (c *Client) WarehouseClients(ctx context.Context, f WarehouseClientFilter) iter.Seq2[WarehouseClient, error] {
	return listAll(c, ctx, warehouseClientsB, encodeQuery(f), all(0))
}

// Carriers lists carriers (B).
func (c *Client) Carriers(ctx context.Context, f CarrierFilter) iter.Seq2[Carrier, error] {
	return listAll(c, ctx, carriersB, encodeQuery(f), all(0))
}

// CarrierServices lists carrier services (B).
func (c *Client) CarrierServices(ctx context.Context, f CarrierServiceFilter) iter.Seq2[CarrierService, error] {
	return listAll(c, ctx, carrierServicesB, encodeQuery(f), all(0))
}

// Inbounds lists receptions (A) / purchase orders (B).
func (c *Client) Inbounds(ctx context.Context, f InboundFilter) iter.Seq2[model.Inbound, error] {
	return withSKUs(stableList(c, ctx, c.wire.inbounds, encodeQuery(f), all(0), func(in model.Inbound) string { return in.OrderNumber }), func(in *model.Inbound) error {
		for i := range in.Lines {
			if err := c.fillSKU(ctx, &in.Lines[i].SKU, in.Lines[i].VariantID); err != nil {
				return err
			}
		}
		return nil
	})
}

// withSKUs completes every document of a list with fill (SKUs of variants
// given as bare ids).
func withSKUs[T any](seq iter.Seq2[T, error], fill func(*T) error) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for v, err := range seq {
			if err == nil {
				err = fill(&v)
			}
			if !yield(v, err) || err != nil {
				return
			}
		}
	}
}

// fillSKU sets an empty SKU from its variant id.
func (c *Client) fillSKU(ctx context.Context, sku *string, variantID int64) error {
	if *sku != "" || variantID == 0 {
		return nil
	}
	s, err := c.SKUOf(ctx, variantID)
	*sku = s
	return err
}

// orderStatusFiltersA are the two names Edition A's documents give the
// order list's fulfillment status filter (the flow text and the parameter
// table): both are sent, since which one a portal honours is not shown, and
// API Platform ignores a filter it does not know.
var orderStatusFiltersA = []string{"fulfillmentStatus.code", "status.code"}

// Outbounds lists orders (A) / sales orders (B). Status codes are sent
// under the edition's fulfillment status parameters (Edition A: both
// documented names, and Config.ShipmentStatusFilter when it is a third)
// and checked again on every document that carries a fulfillment status.
func (c *Client) Outbounds(ctx context.Context, f OutboundFilter) iter.Seq2[model.Outbound, error] {
	params := []string{"status.code"}
	if c.cfg.Edition == model.EditionA {
		params = orderStatusFiltersA
		if p := c.cfg.ShipmentStatusFilter; p != "" && !slices.Contains(params, p) {
			params = append(slices.Clone(params), p)
		}
	}
	all := withSKUs(stableList(c, ctx, c.wire.outbounds, f.query(params...), all(0), func(o model.Outbound) string { return o.OrderNumber }), func(o *model.Outbound) error {
		for i := range o.Lines {
			if err := c.fillSKU(ctx, &o.Lines[i].SKU, o.Lines[i].VariantID); err != nil {
				return err
			}
		}
		return nil
	})
	if len(f.StatusCodes) == 0 {
		return all
	}
	return func(yield func(model.Outbound, error) bool) {
		for o, err := range all {
			if err == nil && o.FulfillmentStatus.Code != 0 && !slices.Contains(f.StatusCodes, o.FulfillmentStatus.Code) {
				continue
			}
			if !yield(o, err) {
				return
			}
		}
	}
}

// Fulfillments lists fulfillments (B) as shipments.
func (c *Client) Fulfillments(ctx context.Context, f FulfillmentFilter) iter.Seq2[model.Shipment, error] {
	return stableList(c, ctx, fulfillmentsB, encodeQuery(f), all(0), func(s model.Shipment) string { return idOr(s.ID, s.FulfillmentNumber) })
}

// ShippingUnits lists shipping units (B).
func (c *Client) ShippingUnits(ctx context.Context, f ShippingUnitFilter) iter.Seq2[model.ShippingUnit, error] {
	return stableList(c, ctx, shippingUnitsB, encodeQuery(f), all(0), func(u model.ShippingUnit) string { return idOr(u.ID, u.ShippingUnitNumber) })
}

// ShippingUnitEvents lists shipping unit events (B).
func (c *Client) ShippingUnitEvents(ctx context.Context, f EventFilter) iter.Seq2[model.TrackingEvent, error] {
	return listAll(c, ctx, eventsB, encodeQuery(f), all(0))
}

// Stocks lists stock levels.
func (c *Client) Stocks(ctx context.Context, f StockFilter) iter.Seq2[model.Stock, error] {
	return withSKUs(stableList(c, ctx, stocksDoc, encodeQuery(f), all(f.ItemsPerPage), func(s model.Stock) string { return idOr(s.VariantID, s.SKU) }), func(s *model.Stock) error {
		return c.fillSKU(ctx, &s.SKU, s.VariantID)
	})
}

// Movements lists stock movements.
func (c *Client) Movements(ctx context.Context, f MovementFilter) iter.Seq2[model.Movement, error] {
	return withSKUs(stableList(c, ctx, c.wire.movements, encodeQuery(f), all(f.ItemsPerPage), func(m model.Movement) string { return idOr(m.ID, "") }), func(m *model.Movement) error {
		return c.fillSKU(ctx, &m.SKU, m.VariantID)
	})
}

// first returns the first document of a list for which match holds.
func first[T any](seq iter.Seq2[T, error], match func(T) bool) (T, bool, error) {
	var zero T
	for v, err := range seq {
		if err != nil {
			return zero, false, err
		}
		if match(v) {
			return v, true, nil
		}
	}
	return zero, false, nil
}

// lookup is the paging of key lookups: pages of 100 (partial filters may
// return neighbours of the key), no read-ahead (the first match ends them).
var lookup = listOpts{perPage: 100}

// findPartner looks a partner up by its exact code.
func (c *Client) findPartner(ctx context.Context, code string) (model.Partner, bool, error) {
	return first(listAll(c, ctx, c.wire.partners, encodeQuery(PartnerFilter{Code: code}), lookup),
		func(p model.Partner) bool { return p.Code == code })
}

// findItem looks an item up by its exact SKU.
func (c *Client) findItem(ctx context.Context, sku string) (model.Item, bool, error) {
	return first(listAll(c, ctx, c.wire.items, encodeQuery(ItemFilter{SKU: sku}), lookup),
		func(it model.Item) bool { return it.SKU == sku })
}

// findInbound looks an inbound up by its exact order number (the filter
// is a partial search).
func (c *Client) findInbound(ctx context.Context, number string) (model.Inbound, bool, error) {
	return first(listAll(c, ctx, c.wire.inbounds, encodeQuery(InboundFilter{OrderNumber: number}), lookup),
		func(in model.Inbound) bool { return in.OrderNumber == number })
}

// findOutbound looks an outbound up by its exact order number.
func (c *Client) findOutbound(ctx context.Context, number string) (model.Outbound, bool, error) {
	return first(listAll(c, ctx, c.wire.outbounds, OutboundFilter{OrderNumber: number}.query("status.code"), lookup),
		func(o model.Outbound) bool { return o.OrderNumber == number })
}

// findPackaging looks a packaging up by its variant's SKU and its code.
func (c *Client) findPackaging(ctx context.Context, sku, code string) (model.Packaging, bool, error) {
	q := encodeQuery(PackagingFilter{VariantSKU: sku, Code: code})
	return first(listAll(c, ctx, packagingsB, q, lookup),
		func(p model.Packaging) bool { return p.Code == code && (p.SKU == "" || p.SKU == sku) })
}

// idOr is the key of a document by its portal id, else by other (a
// document with neither has no key).
func idOr(id int64, other string) string {
	if id != 0 {
		return "#" + strconv.FormatInt(id, 10)
	}
	return other
}
