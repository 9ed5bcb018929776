package portal

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"filebridge/internal/model"
)

// ErrNoKey says a document has no key the portal can be searched by: a
// create of it whose outcome is unknown cannot be settled by a look-up.
var ErrNoKey = errors.New("the document has no key the portal can be searched by")

// Prepared is a document whose references are resolved (PrepareInbound
// and friends): Create posts it, Settle looks it up by its key and posts
// nothing.
type Prepared struct {
	c      *Client
	create func(ctx context.Context) (Outcome, error)
	// lookup is the create whose document Settle searches; false when
	// the document cannot be on the portal (a SKU its lines would create
	// first is not there).
	lookup func(ctx context.Context) (createOp, bool, error)
}

// prepared is a document with nothing to create before it: op, posted
// by create.
func (c *Client) prepared(op createOp, create func(ctx context.Context) (Outcome, error)) Prepared {
	return Prepared{c: c, create: create, lookup: func(context.Context) (createOp, bool, error) { return op, true, nil }}
}

// Create posts the document (creating first the SKUs its lines carry and
// the portal lacks). A lost answer is never blindly resent: the document
// is looked up by its key first.
func (p Prepared) Create(ctx context.Context) (Outcome, error) { return p.create(ctx) }

// Settle looks the document up by its key without creating anything (nor
// the SKUs its lines would create). It serves documents whose earlier
// create may have reached the portal (a crash while it was in flight).
//
// found and no error: the document is on the portal with the file's
// values (out.Existed). found and a Conflict error: it is there with
// other values. Not found and no error: it was never created, send it.
// ErrNoKey: it cannot be looked up. Any other error: the look-up itself
// failed.
func (p Prepared) Settle(ctx context.Context) (out Outcome, found bool, err error) {
	op, ok, err := p.lookup(ctx)
	if err != nil || !ok {
		return Outcome{}, false, err
	}
	if op.key == "" || op.find == nil {
		return Outcome{}, false, fmt.Errorf("looking %s up: %w", op.what, ErrNoKey)
	}
	out, found, err = p.c.settle(ctx, op, nil)
	switch {
	case err == nil:
		return out, found, nil
	case IsConflict(err) && out.ID != 0:
		return out, true, err
	}
	return Outcome{}, false, err
}

// createPrepared is the Create of a document prepared without error.
func createPrepared(ctx context.Context, p Prepared, err error) (Outcome, error) {
	if err != nil {
		return Outcome{}, err
	}
	return p.Create(ctx)
}

// CreatePartner creates a supplier (A; relationship Manufacturer unless
// given) or a connection (B).
func (c *Client) CreatePartner(ctx context.Context, p model.Partner) (Outcome, error) {
	return c.PreparePartner(p).Create(ctx)
}

// PreparePartner prepares the create of a supplier or connection.
func (c *Client) PreparePartner(p model.Partner) Prepared {
	op := createOf(c, c.wire.partners, p.Code, p, func(ctx context.Context) (int64, []Violation, bool, error) {
		got, found, err := c.findPartner(ctx, p.Code)
		return got.ID, diffDoc(c.cfg.Edition, model.KindPartner, p, got), found, err
	})
	return c.prepared(op, func(ctx context.Context) (Outcome, error) { return c.createAndRemember(ctx, op, RefPartner) })
}

// CreateItem creates a SKU (A: SupplierCode resolved to the supplier's id
// unless SupplierID is set) or a variant (B).
func (c *Client) CreateItem(ctx context.Context, it model.Item) (Outcome, error) {
	p, err := c.PrepareItem(ctx, it)
	return createPrepared(ctx, p, err)
}

// PrepareItem resolves the references of a SKU or variant.
func (c *Client) PrepareItem(ctx context.Context, it model.Item) (Prepared, error) {
	if err := c.resolveRefs(ctx, c.itemRefs(&it)); err != nil {
		return Prepared{}, err
	}
	op := createOf(c, c.wire.items, it.SKU, it, func(ctx context.Context) (int64, []Violation, bool, error) {
		got, found, err := c.findItem(ctx, it.SKU)
		return got.ID, diffDoc(c.cfg.Edition, model.KindItem, it, got), found, err
	})
	return c.prepared(op, func(ctx context.Context) (Outcome, error) { return c.createAndRemember(ctx, op, RefSKU) }), nil
}

// CreatePackaging creates a variant packaging (B only): the SKU is
// resolved to the variant's IRI, the supplier code to the connection's id
// (a string, as the documents give it).
func (c *Client) CreatePackaging(ctx context.Context, p model.Packaging) (Outcome, error) {
	pr, err := c.PreparePackaging(ctx, p)
	return createPrepared(ctx, pr, err)
}

// PreparePackaging resolves the references of a variant packaging.
func (c *Client) PreparePackaging(ctx context.Context, p model.Packaging) (Prepared, error) {
	if err := c.serves(VariantPackagings, "packagings"); err != nil {
		return Prepared{}, err
	}
	var variant, supplier int64
	if err := c.resolveRefs(ctx, packagingRefs(p, &variant, &supplier)); err != nil {
		return Prepared{}, err
	}
	supplierID := "" // the documents: "string, id of a supplier connection"
	if supplier != 0 {
		supplierID = strconv.FormatInt(supplier, 10)
	}
	op := createOp{docKind: packagingsB.docKind, key: p.SKU + " " + p.Code, body: model.Body(model.EditionB, model.KindPackaging, p,
		map[string]any{"variant": c.IRI(Variants, variant), "supplier": supplierID})}
	op.find = func(ctx context.Context) (int64, []Violation, bool, error) {
		got, found, err := c.findPackaging(ctx, p.SKU, p.Code)
		return got.ID, diffDoc(c.cfg.Edition, model.KindPackaging, p, got), found, err
	}
	return c.prepared(op, func(ctx context.Context) (Outcome, error) { return c.create(ctx, op) }), nil
}

// CreateInbound creates a reception (A) or a purchase order (B). The
// supplier code, the lines' SKUs (in batches) and, in B, the warehouse
// code are resolved; a line carrying SKU master data whose SKU is not on
// the portal gets its SKU created first. Every reference that does not
// resolve is reported in one Invalid error.
func (c *Client) CreateInbound(ctx context.Context, in model.Inbound) (Outcome, error) {
	p, err := c.PrepareInbound(ctx, in)
	return createPrepared(ctx, p, err)
}

// PrepareInbound resolves the references of a reception or purchase
// order; the SKUs its lines carry and the portal lacks are created by
// Create, searched by Settle.
func (c *Client) PrepareInbound(ctx context.Context, in model.Inbound) (Prepared, error) {
	whCode, err := c.warehouseCode(ctx, in.WarehouseLocation, in.WarehouseCode)
	if err != nil {
		return Prepared{}, err
	}
	var refs refErrors
	if err := c.resolveAll(ctx, &refs, c.inboundRefs(&in)); err != nil {
		return Prepared{}, err
	}
	in.Lines = slices.Clone(in.Lines)
	skus := make([]string, 0, len(in.Lines))
	items := map[string]*model.Item{}
	for _, l := range in.Lines {
		if l.VariantID == 0 {
			skus = append(skus, l.SKU)
			if l.Item != nil {
				items[l.SKU] = l.Item
			}
		}
	}
	ids, missing, err := c.resolveLineSKUs(ctx, skus, items, in.SupplierCode)
	if err := refs.add(err); err != nil {
		return Prepared{}, err
	}
	if err := refs.err(); err != nil {
		return Prepared{}, err
	}
	setIDs := func() {
		for i := range in.Lines {
			if in.Lines[i].VariantID == 0 {
				in.Lines[i].VariantID = ids[in.Lines[i].SKU]
			}
		}
	}
	lookup := func(ctx context.Context) (createOp, bool, error) {
		found, err := c.findLineItems(ctx, ids, missing)
		if !found || err != nil {
			return createOp{}, false, err
		}
		setIDs()
		return c.inboundOp(in, in.WarehouseLocation), true, nil
	}
	return Prepared{c: c, lookup: lookup, create: func(ctx context.Context) (Outcome, error) {
		if err := c.createLineItems(ctx, ids, missing); err != nil {
			return Outcome{}, err
		}
		setIDs()
		return c.sendInbound(ctx, in, whCode)
	}}, nil
}

// warehouseCode is the code of an Edition B order's warehouse that
// withWarehouse needs: the code given when no id is, else the code of the
// account's warehouse with that id; "" in Edition A.
func (c *Client) warehouseCode(ctx context.Context, id int64, code string) (string, error) {
	switch {
	case c.cfg.Edition != model.EditionB:
		return "", nil
	case id != 0:
		return c.warehouseOf(ctx, id)
	}
	return code, nil
}

// inboundOp is the create of in with warehouse id wh.
func (c *Client) inboundOp(in model.Inbound, wh int64) createOp {
	body := in
	body.WarehouseLocation = wh
	return createOf(c, c.wire.inbounds, in.OrderNumber, body, func(ctx context.Context) (int64, []Violation, bool, error) {
		got, found, err := c.findInbound(ctx, in.OrderNumber)
		return got.ID, diffDoc(c.cfg.Edition, model.KindInbound, in, got), found, err
	})
}

// sendInbound posts a prepared reception or purchase order (whCode: the
// code its warehouse was resolved from).
func (c *Client) sendInbound(ctx context.Context, in model.Inbound, whCode string) (Outcome, error) {
	send := func() (Outcome, error) {
		return c.withWarehouse(ctx, whCode, in.WarehouseLocation, func(wh int64) (Outcome, error) {
			return c.create(ctx, c.inboundOp(in, wh))
		})
	}
	out, err := send()
	if c.cfg.Edition == model.EditionA && in.OrderType != "" && !slices.Contains(model.ReceptionOrderTypesA, in.OrderType) && refusedOnly(err, "orderType") {
		// A value the documents' samples use but their enum excludes
		// (STANDARD): the field is optional, so the reception goes without
		// it (validate warns about it).
		c.log.Info("portal refused an order type the documents do not list: sending the reception without it",
			"reception", in.OrderNumber, "orderType", in.OrderType)
		in.OrderType = ""
		return send()
	}
	return out, err
}

// resolveLineSKUs resolves line SKUs; a missing SKU with master data on
// its line is returned in missing (its supplier defaulting to the
// document's), for the document's create to create first.
func (c *Client) resolveLineSKUs(ctx context.Context, skus []string, items map[string]*model.Item, supplierCode string) (ids map[string]int64, missing []model.Item, err error) {
	ids, err = c.ResolveSKUs(ctx, skus)
	if err == nil || !IsInvalid(err) || len(items) == 0 {
		return ids, nil, err
	}
	var refs refErrors
	seen := map[string]bool{}
	for _, code := range skus {
		if _, ok := ids[code]; ok || seen[code] || code == "" {
			continue
		}
		seen[code] = true
		it := items[code]
		if it == nil {
			_ = refs.add(c.unresolved(Ref{Kind: RefSKU, Code: code, Field: "sku"}))
			continue
		}
		item := *it
		item.SKU = code
		if item.SupplierCode == "" && item.SupplierID == 0 {
			item.SupplierCode = supplierCode
		}
		missing = append(missing, item)
	}
	return ids, missing, refs.err()
}

// createLineItems creates the missing line SKUs, adding their ids.
func (c *Client) createLineItems(ctx context.Context, ids map[string]int64, missing []model.Item) error {
	var refs refErrors
	for _, item := range missing {
		out, err := c.CreateItem(ctx, item)
		if err := refs.add(err); err != nil {
			return err
		}
		if out.ID != 0 {
			ids[item.SKU] = out.ID
		}
	}
	return refs.err()
}

// findLineItems looks the missing line SKUs up, adding their ids; false
// when one is not on the portal (nor then the document that needs it).
func (c *Client) findLineItems(ctx context.Context, ids map[string]int64, missing []model.Item) (bool, error) {
	for _, item := range missing {
		got, found, err := c.findItem(ctx, item.SKU)
		if err != nil {
			return false, fmt.Errorf("checking whether SKU %q is on the portal: %w", item.SKU, err)
		}
		if !found {
			return false, nil
		}
		ids[item.SKU] = got.ID
	}
	return true, nil
}

// CreateOutbound creates an order (A) or a sales order (B). Line SKUs are
// resolved in batches; in B also the warehouse code, the shipTo and
// billingTo connection codes (unless the consignee is embedded), and the
// carrier and carrier service codes.
func (c *Client) CreateOutbound(ctx context.Context, o model.Outbound) (Outcome, error) {
	p, err := c.PrepareOutbound(ctx, o)
	return createPrepared(ctx, p, err)
}

// PrepareOutbound resolves the references of an order or sales order.
func (c *Client) PrepareOutbound(ctx context.Context, o model.Outbound) (Prepared, error) {
	whCode, err := c.warehouseCode(ctx, o.WarehouseLocation, o.WarehouseCode)
	if err != nil {
		return Prepared{}, err
	}
	var refs refErrors
	if err := c.resolveAll(ctx, &refs, c.outboundRefs(&o)); err != nil {
		return Prepared{}, err
	}
	o.Lines = slices.Clone(o.Lines)
	var skus []string
	for _, l := range o.Lines {
		if l.VariantID == 0 && l.SKU != "" {
			skus = append(skus, l.SKU)
		}
	}
	ids, err := c.ResolveSKUs(ctx, skus)
	if err := refs.add(err); err != nil {
		return Prepared{}, err
	}
	for i := range o.Lines {
		if o.Lines[i].VariantID == 0 {
			o.Lines[i].VariantID = ids[o.Lines[i].SKU]
		}
	}
	if err := refs.err(); err != nil {
		return Prepared{}, err
	}
	if c.cfg.Edition == model.EditionB {
		if _, err := c.referExisting(ctx, &o, nil); err != nil {
			return Prepared{}, err
		}
	}
	return Prepared{c: c, create: func(ctx context.Context) (Outcome, error) { return c.sendOutbound(ctx, o, whCode) },
		lookup: func(context.Context) (createOp, bool, error) { return c.outboundOp(o, o.WarehouseLocation), true, nil }}, nil
}

// outboundOp is the create of o with warehouse id wh.
func (c *Client) outboundOp(o model.Outbound, wh int64) createOp {
	body := o
	body.WarehouseLocation = wh
	return createOf(c, c.wire.outbounds, o.OrderNumber, body, func(ctx context.Context) (int64, []Violation, bool, error) {
		got, found, err := c.findOutbound(ctx, o.OrderNumber)
		return got.ID, diffDoc(c.cfg.Edition, model.KindOutbound, o, got), found, err
	})
}

// sendOutbound posts a prepared order (whCode: the code its warehouse was
// resolved from). In B, orders embedding the same party go one at a time:
// an order after one that created the party's connection refers to it
// rather than embed it again.
func (c *Client) sendOutbound(ctx context.Context, o model.Outbound, whCode string) (Outcome, error) {
	if c.cfg.Edition != model.EditionB {
		return c.sendOutboundOnce(ctx, o, whCode)
	}
	return c.created.once(embeddedCodes(&o), func() (Outcome, bool, error) {
		_, err := c.referExisting(ctx, &o, nil)
		return Outcome{}, false, err
	}, func() (Outcome, error) { return c.sendOutboundOnce(ctx, o, whCode) })
}

// sendOutboundOnce posts the order, and once more referring to an embedded
// party's connection when its code is refused as already used.
func (c *Client) sendOutboundOnce(ctx context.Context, o model.Outbound, whCode string) (Outcome, error) {
	for try := 0; ; try++ {
		out, err := c.withWarehouse(ctx, whCode, o.WarehouseLocation, func(wh int64) (Outcome, error) {
			return c.create(ctx, c.outboundOp(o, wh))
		})
		if err == nil || try > 0 || c.cfg.Edition != model.EditionB || !consigneeTaken(err) {
			return out, err
		}
		// Another order created the consignee meanwhile: refer to it.
		changed, rerr := c.referExisting(ctx, &o, err)
		if rerr != nil {
			return Outcome{}, rerr
		}
		if !changed {
			return out, err
		}
	}
}

// embeddedParty is a party an Edition B order embeds (shipTo, billingTo):
// its connection is created with the order.
type embeddedParty struct {
	addr  **model.Address
	id    *int64
	code  string // the address's code, else the order's column
	field string
}

// embedded are the parties o embeds that have a code.
func embedded(o *model.Outbound) []embeddedParty {
	var ps []embeddedParty
	for _, p := range []embeddedParty{{&o.ShipTo, &o.ShipToID, o.ShipToCode, "shipToCode"}, {&o.BillingTo, &o.BillingToID, o.BillingToCode, "billingToCode"}} {
		if a := *p.addr; a != nil {
			if p.code = cmp.Or(a.Code, p.code); p.code != "" {
				ps = append(ps, p)
			}
		}
	}
	return ps
}

// embeddedCodes are the lock names of the parties an order embeds, sorted
// so that locks are taken in one order.
func embeddedCodes(o *model.Outbound) []string {
	var codes []string
	for _, p := range embedded(o) {
		codes = append(codes, "party "+p.code)
	}
	slices.Sort(codes)
	return slices.Compact(codes)
}

// referExisting replaces an embedded consignee (shipTo) or billing party
// whose code is already a connection by that connection's id: a code is
// unique, so embedding it again would be refused as already used. After
// such a refusal (refused) the codes are looked up again even when cached
// as missing. changed reports whether a party is now referred to by id.
func (c *Client) referExisting(ctx context.Context, o *model.Outbound, refused error) (changed bool, err error) {
	for _, p := range embedded(o) {
		id, found, err := c.existingPartner(ctx, p.code)
		if err != nil {
			if refused != nil {
				return false, fmt.Errorf("%w (then looking up %s %q: %w)", refused, p.field, p.code, err)
			}
			return false, fmt.Errorf("looking up %s %q: %w", p.field, p.code, err)
		}
		if found {
			*p.addr, *p.id = nil, id
			changed = true
		}
	}
	return changed, nil
}

// existingPartner returns the id of the connection with this code, when
// there is one: from the cache, else from the list.
func (c *Client) existingPartner(ctx context.Context, code string) (int64, bool, error) {
	if id, _ := c.refs.get(RefPartner, code); id != 0 {
		return id, true, nil
	}
	p, found, err := c.findPartner(ctx, code)
	if err != nil || !found {
		return 0, false, err
	}
	c.refs.put(RefPartner, code, p.ID)
	return p.ID, true, nil
}

// consigneeTaken reports whether a refusal says the code of an embedded
// shipTo or billingTo is already used.
func consigneeTaken(err error) bool {
	return slices.ContainsFunc(violations(err), func(v Violation) bool {
		return (v.Field == "shipTo.code" || v.Field == "billingTo.code") && saysTaken(v.Message)
	})
}
