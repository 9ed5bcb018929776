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

// headerRef is a reference of a document to be resolved into one of its
// id fields.
type headerRef struct {
	Ref
	id *int64
}

// open are the references of hs that have a code and no id yet.
func open(hs []headerRef) []Ref {
	var refs []Ref
	for _, h := range hs {
		if *h.id == 0 && h.Code != "" {
			refs = append(refs, h.Ref)
		}
	}
	return refs
}

// itemRefs are the references of a SKU: in A, its supplier.
func (c *Client) itemRefs(it *model.Item) []headerRef {
	if c.cfg.Edition != model.EditionA {
		return nil
	}
	return []headerRef{{Ref{Kind: RefPartner, Code: it.SupplierCode, Field: "supplierCode"}, &it.SupplierID}}
}

// inboundRefs are the references of a reception's or purchase order's
// header: its supplier and (B) its warehouse.
func (c *Client) inboundRefs(in *model.Inbound) []headerRef {
	hs := []headerRef{{Ref{Kind: RefPartner, Code: in.SupplierCode, Field: "supplierCode"}, &in.SupplierID}}
	if c.cfg.Edition == model.EditionB {
		hs = append(hs, headerRef{Ref{Kind: RefWarehouse, Code: in.WarehouseCode, Field: "warehouseCode"}, &in.WarehouseLocation})
	}
	return hs
}

// outboundRefs are the references of a sales order's header (B): its
// warehouse, ship-to and billing connections (unless embedded), carrier
// and carrier service.
func (c *Client) outboundRefs(o *model.Outbound) []headerRef {
	if c.cfg.Edition != model.EditionB {
		return nil
	}
	hs := []headerRef{{Ref{Kind: RefWarehouse, Code: o.WarehouseCode, Field: "warehouseCode"}, &o.WarehouseLocation}}
	if o.ShipTo == nil {
		hs = append(hs, headerRef{Ref{Kind: RefPartner, Code: o.ShipToCode, Field: "shipToCode"}, &o.ShipToID})
	}
	if o.BillingTo == nil {
		hs = append(hs, headerRef{Ref{Kind: RefPartner, Code: o.BillingToCode, Field: "billingToCode"}, &o.BillingToID})
	}
	return append(hs,
		headerRef{Ref{Kind: RefCarrier, Code: o.CarrierCode, Field: "carrierCode"}, &o.CarrierID},
		headerRef{Ref{Kind: RefCarrierService, Code: o.CarrierServiceCode, Scope: o.CarrierCode, Field: "carrierServiceCode"}, &o.CarrierServiceID})
}

// ItemRefs are the references of a SKU (A: its supplier).
func (c *Client) ItemRefs(it model.Item) []Ref { return open(c.itemRefs(&it)) }

// packagingRefs are the references of a packaging: its variant and its
// supplier (whose id goes as a string).
func packagingRefs(p model.Packaging, variant, supplier *int64) []headerRef {
	return []headerRef{{Ref{Kind: RefSKU, Code: p.SKU, Field: "sku"}, variant},
		{Ref{Kind: RefPartner, Code: p.SupplierCode, Field: "supplierCode"}, supplier}}
}

// PackagingRefs are the references of a packaging: its variant and its
// supplier.
func (c *Client) PackagingRefs(p model.Packaging) []Ref {
	var variant, supplier int64
	return open(packagingRefs(p, &variant, &supplier))
}

// InboundRefs are the references of a reception or purchase order: its
// supplier, its warehouse (B) and its lines' SKUs, except SKUs whose line
// carries their master data (CreateInbound creates them; their supplier
// counts instead).
func (c *Client) InboundRefs(in model.Inbound) []Ref {
	refs := open(c.inboundRefs(&in))
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
	refs := open(c.outboundRefs(&o))
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
		case RefReceptionLine:
			if err := c.checkReceptionLine(ctx, r, receptions, missing); err != nil {
				return nil, err
			}
		default:
			_, err := c.resolve(ctx, r)
			if err := noteMissing(r, err, missing); err != nil {
				return nil, err
			}
		}
	}
	ids, err := c.ResolveSKUs(ctx, skus)
	if err != nil && !IsInvalid(err) {
		return nil, err
	}
	for _, r := range refs {
		if r.Kind == RefSKU && r.Code != "" && ids[r.Code] == 0 {
			missing[r] = c.unresolved(r).Violations[0].Message
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
