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
// is looked up once through the client (the documented variant or
// connection list, read whole) and kept for the next runs; an id
// the portal does not know maps to "".
type codes struct {
	mu        sync.Mutex
	skus      map[int64]string
	suppliers map[int64]string
}

// sku returns the SKU code of a variant id; "" when the portal does not
// know the id.
func (c *codes) sku(ctx context.Context, client *portal.Client, id int64) (string, error) {
	return c.lookup(&c.skus, id, func() (string, error) {
		s, err := client.SKUOf(ctx, id)
		if err != nil {
			err = fmt.Errorf("looking up the SKU of variant %d: %w", id, err)
		}
		return s, err
	})
}

// supplier returns the code of a supplier (connection) id; "" when the
// portal does not know the id.
func (c *codes) supplier(ctx context.Context, client *portal.Client, id int64) (string, error) {
	return c.lookup(&c.suppliers, id, func() (string, error) {
		p, err := client.Partner(ctx, id)
		if err != nil {
			err = fmt.Errorf("looking up the code of supplier %d: %w", id, err)
		}
		return p.Code, err
	})
}

// lookup returns the code of id in *m, asking fetch the first time; a
// not-found error from fetch is kept as "".
func (c *codes) lookup(m *map[int64]string, id int64, fetch func() (string, error)) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := (*m)[id]; ok {
		return s, nil
	}
	s, err := fetch()
	if err != nil && !portal.IsNotFound(err) {
		return "", err
	}
	if *m == nil {
		*m = map[int64]string{}
	}
	(*m)[id] = s
	return s, nil
}

// fillInbound fills the supplier code and the lines' SKUs of a reception.
func (p *PortalSource) fillInbound(ctx context.Context, in *model.Inbound) error {
	if in.SupplierCode == "" && in.SupplierID != 0 {
		code, err := p.codes.supplier(ctx, p.Client, in.SupplierID)
		if err != nil {
			return err
		}
		in.SupplierCode = code
	}
	for i := range in.Lines {
		if err := p.fillSKU(ctx, &in.Lines[i].SKU, in.Lines[i].VariantID); err != nil {
			return err
		}
	}
	return nil
}

// fillOutbound fills the lines' SKUs of an order.
func (p *PortalSource) fillOutbound(ctx context.Context, o *model.Outbound) error {
	for i := range o.Lines {
		if err := p.fillSKU(ctx, &o.Lines[i].SKU, o.Lines[i].VariantID); err != nil {
			return err
		}
	}
	return nil
}

// fillSKU sets an empty SKU from its variant id.
func (p *PortalSource) fillSKU(ctx context.Context, sku *string, variantID int64) error {
	if *sku != "" || variantID == 0 {
		return nil
	}
	code, err := p.codes.sku(ctx, p.Client, variantID)
	if err != nil {
		return err
	}
	*sku = code
	return nil
}
