package outbox

import (
	"context"
	"fmt"
	"sync"

	"filebridge/internal/model"
	"filebridge/internal/portal"
)

// codes turns the ids some list responses carry (a reception line's
// variant, a reception's supplier) back into the codes files carry. Each id
// is read once from the portal (GET by id) and kept for the next runs; an
// id the portal does not know maps to "".
type codes struct {
	mu        sync.Mutex
	skus      map[int64]string
	suppliers map[int64]string
}

// sku returns the SKU code of a variant id; "" when the portal does not
// know the id.
func (c *codes) sku(ctx context.Context, client *portal.Client, id int64) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.skus[id]; ok {
		return s, nil
	}
	s, err := client.SKUOf(ctx, id)
	if err != nil && !portal.IsNotFound(err) {
		return "", fmt.Errorf("looking up the SKU of variant %d: %w", id, err)
	}
	if c.skus == nil {
		c.skus = map[int64]string{}
	}
	c.skus[id] = s
	return s, nil
}

// supplier returns the code of a supplier (connection) id; "" when the
// portal does not know the id.
func (c *codes) supplier(ctx context.Context, client *portal.Client, id int64) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.suppliers[id]; ok {
		return s, nil
	}
	p, err := client.Partner(ctx, id)
	if err != nil && !portal.IsNotFound(err) {
		return "", fmt.Errorf("looking up the code of supplier %d: %w", id, err)
	}
	if c.suppliers == nil {
		c.suppliers = map[int64]string{}
	}
	c.suppliers[id] = p.Code
	return p.Code, nil
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
			code, err := p.codes.sku(ctx, p.Client, l.VariantID)
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
			code, err := p.codes.sku(ctx, p.Client, l.VariantID)
			if err != nil {
				return err
			}
			l.SKU = code
		}
	}
	return nil
}
