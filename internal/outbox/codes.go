package outbox

import (
	"context"
	"fmt"
	"sync"

	"filebridge/internal/model"
	"filebridge/internal/portal"
)

// codes turns the ids some list responses carry (a reception line's
// variant, a reception's supplier) back into the codes files carry. The
// API has no lookup by id in its lists, so a miss reloads the whole table
// once (variants with the snapshot's page size) and the table is kept for
// the next runs: in steady state the SKUs of new receptions are known.
type codes struct {
	mu        sync.Mutex
	skus      map[int64]string
	suppliers map[int64]string
}

// sku returns the SKU code of a variant id, reloading the variants once on
// a miss; "" when the portal does not know the id.
func (c *codes) sku(ctx context.Context, list *portal.Client, id int64) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.skus[id]; ok {
		return s, nil
	}
	m := map[int64]string{}
	for it, err := range list.Items(ctx, portal.ItemFilter{}) {
		if err != nil {
			return "", fmt.Errorf("looking up the SKU of variant %d: %w", id, err)
		}
		m[it.ID] = it.SKU
	}
	if _, ok := m[id]; !ok {
		m[id] = "" // not there: do not reload for it again
	}
	c.skus = m
	return m[id], nil
}

// supplier returns the code of a supplier (connection) id, reloading the
// suppliers once on a miss.
func (c *codes) supplier(ctx context.Context, list *portal.Client, id int64) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.suppliers[id]; ok {
		return s, nil
	}
	m := map[int64]string{}
	for p, err := range list.Partners(ctx, portal.PartnerFilter{Relationship: "Manufacturer"}) {
		if err != nil {
			return "", fmt.Errorf("looking up the code of supplier %d: %w", id, err)
		}
		m[p.ID] = p.Code
	}
	if _, ok := m[id]; !ok {
		m[id] = ""
	}
	c.suppliers = m
	return m[id], nil
}

// inbound fills the supplier code and the lines' SKUs of a reception.
func (p *PortalSource) fillInbound(ctx context.Context, in *model.Inbound) error {
	if in.SupplierCode == "" && in.SupplierID != 0 {
		code, err := p.codes.supplier(ctx, p.Client, in.SupplierID)
		if err != nil {
			return err
		}
		in.SupplierCode = code
	}
	for i := range in.Lines {
		l := &in.Lines[i]
		if l.SKU == "" && l.VariantID != 0 {
			code, err := p.codes.sku(ctx, p.snapshot(), l.VariantID)
			if err != nil {
				return err
			}
			l.SKU = code
		}
	}
	return nil
}

// fillOutbound fills the lines' SKUs of an order.
func (p *PortalSource) fillOutbound(ctx context.Context, o *model.Outbound) error {
	for i := range o.Lines {
		l := &o.Lines[i]
		if l.SKU == "" && l.VariantID != 0 {
			code, err := p.codes.sku(ctx, p.snapshot(), l.VariantID)
			if err != nil {
				return err
			}
			l.SKU = code
		}
	}
	return nil
}
