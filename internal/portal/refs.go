package portal

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"

	"filebridge/internal/model"
)

// Identity names the portal account the client talks to: its base URL
// and company. Two clients with the same identity reach the same data
// (the journal finds duplicates per identity).
func (c *Client) Identity() string {
	return c.base.String() + " company " + strconv.FormatInt(c.cfg.Company, 10)
}

// RefReceptionLine is a line of a reception (Edition A) that an order line
// takes its goods from: Code is the reception's order number, Scope the
// line's position.
const RefReceptionLine RefKind = "reception_line"

// Ref is one reference of a document to something that must already be on
// the portal when the document is created.
type Ref struct {
	Kind  RefKind
	Code  string
	Scope string // carrier service: its carrier code (may be ""); reception line: the position
	Field string // the column that holds the code
}

// String names the reference for people: `SKU "CHR-1"`.
func (r Ref) String() string {
	switch r.Kind {
	case RefSKU:
		return fmt.Sprintf("SKU %q", r.Code)
	case RefReceptionLine:
		return fmt.Sprintf("reception %q line %s", r.Code, r.Scope)
	case RefCarrierService:
		if r.Scope != "" {
			return fmt.Sprintf("carrier service %q of carrier %q", r.Code, r.Scope)
		}
		return fmt.Sprintf("carrier service %q", r.Code)
	case RefWarehouse:
		return fmt.Sprintf("warehouse %q", r.Code)
	case RefCarrier:
		return fmt.Sprintf("carrier %q", r.Code)
	}
	return fmt.Sprintf("%s %q", r.Field, r.Code)
}

// ItemRefs are the references of a SKU (A: its supplier).
func (c *Client) ItemRefs(it model.Item) []Ref {
	if c.cfg.Edition == model.EditionA && it.SupplierID == 0 && it.SupplierCode != "" {
		return []Ref{{Kind: RefPartner, Code: it.SupplierCode, Field: "supplierCode"}}
	}
	return nil
}

// PackagingRefs are the references of a packaging: its variant and its
// supplier.
func (c *Client) PackagingRefs(p model.Packaging) []Ref {
	refs := []Ref{{Kind: RefSKU, Code: p.SKU, Field: "sku"}}
	if p.SupplierCode != "" {
		refs = append(refs, Ref{Kind: RefPartner, Code: p.SupplierCode, Field: "supplierCode"})
	}
	return refs
}

// InboundRefs are the references of a reception or purchase order: its
// supplier, its warehouse (B) and its lines' SKUs, except SKUs whose line
// carries their master data (CreateInbound creates them; their supplier
// counts instead).
func (c *Client) InboundRefs(in model.Inbound) []Ref {
	var refs []Ref
	if in.SupplierID == 0 && in.SupplierCode != "" {
		refs = append(refs, Ref{Kind: RefPartner, Code: in.SupplierCode, Field: "supplierCode"})
	}
	if c.cfg.Edition == model.EditionB && in.WarehouseLocation == 0 && in.WarehouseCode != "" {
		refs = append(refs, Ref{Kind: RefWarehouse, Code: in.WarehouseCode, Field: "warehouseCode"})
	}
	for _, l := range in.Lines {
		switch {
		case l.VariantID != 0 || l.SKU == "":
		case l.Item != nil:
			it := *l.Item
			if it.SupplierCode == "" && it.SupplierID == 0 {
				it.SupplierCode = in.SupplierCode
			}
			refs = append(refs, c.ItemRefs(it)...)
		default:
			refs = append(refs, Ref{Kind: RefSKU, Code: l.SKU, Field: "sku"})
		}
	}
	return compactRefs(refs)
}

// OutboundRefs are the references of an order or sales order: its lines'
// SKUs and (A) reception lines; (B) its warehouse, ship-to and billing
// connections, carrier and carrier service.
func (c *Client) OutboundRefs(o model.Outbound) []Ref {
	var refs []Ref
	if c.cfg.Edition == model.EditionB {
		if o.WarehouseLocation == 0 && o.WarehouseCode != "" {
			refs = append(refs, Ref{Kind: RefWarehouse, Code: o.WarehouseCode, Field: "warehouseCode"})
		}
		if o.ShipTo == nil && o.ShipToID == 0 && o.ShipToCode != "" {
			refs = append(refs, Ref{Kind: RefPartner, Code: o.ShipToCode, Field: "shipToCode"})
		}
		if o.BillingTo == nil && o.BillingToID == 0 && o.BillingToCode != "" {
			refs = append(refs, Ref{Kind: RefPartner, Code: o.BillingToCode, Field: "billingToCode"})
		}
		if o.CarrierID == 0 && o.CarrierCode != "" {
			refs = append(refs, Ref{Kind: RefCarrier, Code: o.CarrierCode, Field: "carrierCode"})
		}
		if o.CarrierServiceID == 0 && o.CarrierServiceCode != "" {
			refs = append(refs, Ref{Kind: RefCarrierService, Code: o.CarrierServiceCode, Scope: o.CarrierCode, Field: "carrierServiceCode"})
		}
	}
	for _, l := range o.Lines {
		if l.VariantID == 0 && l.SKU != "" {
			refs = append(refs, Ref{Kind: RefSKU, Code: l.SKU, Field: "sku"})
		}
		if c.cfg.Edition == model.EditionA && l.ReceptionOrderNumber != "" && l.ReceptionPosition > 0 {
			refs = append(refs, Ref{Kind: RefReceptionLine, Code: l.ReceptionOrderNumber,
				Scope: strconv.Itoa(l.ReceptionPosition), Field: "purchaseOrderLineItem.orderNumber"})
		}
	}
	return compactRefs(refs)
}

func compactRefs(refs []Ref) []Ref {
	slices.SortFunc(refs, func(a, b Ref) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Code, b.Code), cmp.Compare(a.Scope, b.Scope))
	})
	return slices.CompactFunc(refs, func(a, b Ref) bool { return a.Kind == b.Kind && a.Code == b.Code && a.Scope == b.Scope })
}

// MissingRefs resolves every reference given (SKUs in batches, through the
// client's cache) without creating anything, and returns those that are
// not on the portal, each with the message a create would have given. An
// error other than "not on the portal" (network, 5xx, a refused token)
// stops it: nothing can be said then.
func (c *Client) MissingRefs(ctx context.Context, refs []Ref) (map[Ref]string, error) {
	missing := map[Ref]string{}
	var skus []string
	receptions := map[string]map[int]bool{} // order number -> line positions; nil: not on the portal
	for _, r := range refs {
		switch r.Kind {
		case RefSKU:
			skus = append(skus, r.Code)
			continue
		case RefReceptionLine:
			if err := c.checkReceptionLine(ctx, r, receptions, missing); err != nil {
				return nil, err
			}
			continue
		}
		var err error
		switch r.Kind {
		case RefPartner:
			_, err = c.resolvePartner(ctx, r.Code, r.Field)
		case RefWarehouse:
			_, err = c.ResolveWarehouse(ctx, r.Code)
		case RefCarrier:
			_, err = c.ResolveCarrier(ctx, r.Code)
		case RefCarrierService:
			_, err = c.resolveService(ctx, r.Code, r.Scope)
		default:
			return nil, fmt.Errorf("checking references: unknown kind %q", r.Kind)
		}
		if err := noteMissing(r, err, missing); err != nil {
			return nil, err
		}
	}
	if len(skus) > 0 {
		_, err := c.ResolveSKUs(ctx, skus)
		if err != nil && !IsInvalid(err) {
			return nil, err
		}
		if err != nil {
			for _, r := range refs {
				if r.Kind != RefSKU {
					continue
				}
				if id, miss := c.refs.get(RefSKU, r.Code); id == 0 && miss {
					missing[r] = c.unresolved(RefSKU, r.Field, r.Code).Violations[0].Message
				}
			}
		}
	}
	return missing, nil
}

// noteMissing records a reference whose resolution said "not on the
// portal" and returns any other error.
func noteMissing(r Ref, err error, missing map[Ref]string) error {
	if err == nil {
		return nil
	}
	e, ok := asError(err)
	if !ok || e.Class != Invalid {
		return err
	}
	msg := e.Message
	if len(e.Violations) > 0 {
		msg = e.Violations[0].Message
	}
	missing[r] = msg
	return nil
}

// checkReceptionLine looks the reception up (once per order number) and
// records the reference missing when it or its line is not on the portal.
func (c *Client) checkReceptionLine(ctx context.Context, r Ref, receptions map[string]map[int]bool, missing map[Ref]string) error {
	lines, seen := receptions[r.Code]
	if !seen {
		in, found, err := c.findInbound(ctx, r.Code)
		if err != nil {
			return fmt.Errorf("looking up reception %q: %w", r.Code, err)
		}
		if found {
			lines = map[int]bool{}
			for _, l := range in.Lines {
				lines[l.Position] = true
			}
		}
		receptions[r.Code] = lines
	}
	pos, _ := strconv.Atoi(r.Scope)
	switch {
	case lines == nil:
		missing[r] = fmt.Sprintf("reception %q is not on the portal: create the reception first or add it to a receptions file", r.Code)
	case !lines[pos]:
		missing[r] = fmt.Sprintf("reception %q has no line %d on the portal", r.Code, pos)
	}
	return nil
}
