package portal

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"filebridge/internal/model"
)

// Outcome is the result of a create.
type Outcome struct {
	ID int64 // the document's portal id
	// Existed: the document was already on the portal (a resend after a
	// lost answer, or a file submitted again) with the file's values.
	Existed bool
}

// createOp is one create: where it goes, its body, and how to look the
// document up by its unique key when the outcome is unknown or the key is
// refused as already used.
type createOp struct {
	docKind
	key  string // the unique key's value; "" when the portal numbers it
	body any
	// find looks the document up by key: its id and how it differs from
	// the file's document.
	find func(ctx context.Context) (id int64, diffs []Violation, found bool, err error)
}

// create posts op.body. A lost answer (no response after sending, 5xx) is
// never blindly resent: the document is first looked up by its key. A key
// refused as existing is looked up too: equal means already done,
// different is a Conflict.
func (c *Client) create(ctx context.Context, op createOp) (Outcome, error) {
	if op.key != "" && op.find != nil {
		// Two files carrying the same document (released from a hold
		// together, say) create it once: the second waits for the first
		// and then finds it instead of posting it again.
		ids := []string{string(op.res) + " " + op.key}
		unlock := c.created.lock(ids)
		defer unlock()
		if c.created.madeAny(ids) {
			if out, found, err := c.settle(ctx, op, nil); err != nil || found {
				return out, err
			}
		}
		out, err := c.post(ctx, op)
		if err == nil {
			c.created.made(ids)
		}
		return out, err
	}
	return c.post(ctx, op)
}

// post sends op's create; see create.
func (c *Client) post(ctx context.Context, op createOp) (Outcome, error) {
	buf, err := encodeBody(op.body)
	if err != nil {
		return Outcome{}, err
	}
	defer releaseBody(buf)
	var (
		cr      docID
		settled *Outcome // found by key after an unknown outcome
	)
	err = c.send(ctx, request{method: http.MethodPost, path: c.paths[op.res], body: buf.Bytes(), out: &cr,
		doing: fmt.Sprintf("creating %s %q", op.what, op.key),
		unknown: func(ctx context.Context, e *Error) (bool, error) {
			if op.key == "" || op.find == nil {
				e.Message = fmt.Sprintf("no answer after sending %s without a key: it may have been created; check the portal before sending it again (%s)", op.what, e.Message)
				return true, e
			}
			out, found, serr := c.settle(ctx, op, nil)
			if serr != nil || found {
				settled = &out
				return true, serr
			}
			c.log.Info("portal create unanswered and not found: sending again", "what", op.what, "key", op.key)
			return false, nil
		}})
	switch e, isErr := asError(err); {
	case settled != nil:
		return *settled, err
	case err == nil:
		if id := cr.id(); id != 0 || op.find == nil || op.key == "" {
			return Outcome{ID: id}, nil
		}
		return c.createdID(ctx, op)
	case isErr && c.duplicate(e, op):
		out, found, serr := c.settle(ctx, op, e)
		if serr != nil || found {
			return out, serr
		}
	}
	return Outcome{}, err
}

// createdID finds the id of a document this call created when the answer
// carries none (the documents list no id in the answers of some creates):
// it is looked up by its key, and counted as created, whatever the look-up
// says of its values, since the portal just accepted them. A list that
// shows no id either leaves the outcome's ID 0: created, id unknown.
func (c *Client) createdID(ctx context.Context, op createOp) (Outcome, error) {
	id, _, found, err := op.find(ctx)
	switch {
	case err != nil:
		return Outcome{}, fmt.Errorf("%s %q was created but the answer carried no id, and looking it up by its key failed: %w", op.what, op.key, err)
	case !found:
		return Outcome{}, &Error{Class: Transient, Method: http.MethodPost, Path: c.paths[op.res],
			Message: fmt.Sprintf("%s %q was created but the answer carried no id, and the list does not show it yet: it is looked up again before anything is resent", op.what, op.key)}
	}
	return Outcome{ID: id}, nil
}

// settle looks a document up by its key: found and equal is Existed,
// found and different a Conflict listing the differing fields.
func (c *Client) settle(ctx context.Context, op createOp, refused *Error) (Outcome, bool, error) {
	id, diffs, found, err := op.find(ctx)
	if err != nil {
		return Outcome{}, false, fmt.Errorf("checking whether %s %q is on the portal: %w", op.what, op.key, err)
	}
	if !found {
		return Outcome{}, false, nil
	}
	if len(diffs) == 0 {
		return Outcome{ID: id, Existed: true}, true, nil
	}
	e := &Error{Class: Conflict, Method: http.MethodPost, Path: c.paths[op.res], Violations: diffs,
		Message: fmt.Sprintf("%s %q already exists on the portal with different values", op.what, op.key)}
	if refused != nil {
		e.Status = refused.Status
	}
	return Outcome{ID: id}, true, e
}

// duplicate reports whether a refusal says the document's key is taken:
// 409, or a violation on the key property saying it is already used.
func (c *Client) duplicate(e *Error, op createOp) bool {
	if op.find == nil || op.key == "" {
		return false
	}
	if e.Status == http.StatusConflict {
		return true
	}
	if e.Class != Invalid {
		return false
	}
	for _, v := range e.Violations {
		field := v.Field
		if i := strings.LastIndexByte(field, '.'); i >= 0 {
			field = field[i+1:]
		}
		if slices.Contains(op.keys, field) && saysTaken(v.Message) {
			return true
		}
	}
	return len(e.Violations) == 0 && saysTaken(e.Message)
}

// saysTaken recognises the uniqueness messages of API Platform and friends.
func saysTaken(msg string) bool {
	m := strings.ToLower(msg)
	for _, s := range []string{"already used", "already exists", "already taken", "already in use", "duplicate", "unique"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// createOf is the create of m as the edition's table describes its kind;
// key is the value of its unique key, find looks the document up by it.
func createOf[M any](c *Client, d docWire[M], key string, m M, find func(ctx context.Context) (int64, []Violation, bool, error)) createOp {
	return createOp{docKind: d.docKind, key: key, body: d.body(c.cfg.Company, m), find: find}
}

// createAndRemember creates op and, once the document is on the portal,
// remembers its id as the reference of that kind with op's key.
func (c *Client) createAndRemember(ctx context.Context, op createOp, kind RefKind) (Outcome, error) {
	out, err := c.create(ctx, op)
	if err == nil {
		c.Remember(kind, op.key, out.ID)
	}
	return out, err
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
	if err != nil {
		return Outcome{}, err
	}
	return p.Create(ctx)
}

// PrepareItem resolves the references of a SKU or variant.
func (c *Client) PrepareItem(ctx context.Context, it model.Item) (Prepared, error) {
	if c.cfg.Edition == model.EditionA && it.SupplierID == 0 && it.SupplierCode != "" {
		id, err := c.resolvePartner(ctx, it.SupplierCode, "supplierCode")
		if err != nil {
			return Prepared{}, err
		}
		it.SupplierID = id
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
	if err != nil {
		return Outcome{}, err
	}
	return pr.Create(ctx)
}

// PreparePackaging resolves the references of a variant packaging.
func (c *Client) PreparePackaging(ctx context.Context, p model.Packaging) (Prepared, error) {
	if err := c.serves(VariantPackagings, "packagings"); err != nil {
		return Prepared{}, err
	}
	var refs refErrors
	variant, err := c.resolveSKU(ctx, p.SKU)
	if err := refs.add(err); err != nil {
		return Prepared{}, err
	}
	supplierID := "" // the documents: "string, id of a supplier connection"
	if p.SupplierCode != "" {
		id, err := c.resolvePartner(ctx, p.SupplierCode, "supplierCode")
		if err := refs.add(err); err != nil {
			return Prepared{}, err
		}
		supplierID = strconv.FormatInt(id, 10)
	}
	if err := refs.err(); err != nil {
		return Prepared{}, err
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
	if err != nil {
		return Outcome{}, err
	}
	return p.Create(ctx)
}

// PrepareInbound resolves the references of a reception or purchase
// order; the SKUs its lines carry and the portal lacks are created by
// Create, searched by Settle.
func (c *Client) PrepareInbound(ctx context.Context, in model.Inbound) (Prepared, error) {
	var refs refErrors
	if in.SupplierID == 0 && in.SupplierCode != "" {
		id, err := c.resolvePartner(ctx, in.SupplierCode, "supplierCode")
		if err := refs.add(err); err != nil {
			return Prepared{}, err
		}
		in.SupplierID = id
	}
	whCode := "" // the code the warehouse was resolved from
	if c.cfg.Edition == model.EditionB && in.WarehouseLocation == 0 && in.WarehouseCode != "" {
		id, err := c.ResolveWarehouse(ctx, in.WarehouseCode)
		if err := refs.add(err); err != nil {
			return Prepared{}, err
		}
		in.WarehouseLocation, whCode = id, in.WarehouseCode
	} else if c.cfg.Edition == model.EditionB && in.WarehouseLocation != 0 {
		code, err := c.warehouseOf(ctx, in.WarehouseLocation)
		if err != nil {
			return Prepared{}, err
		}
		whCode = code
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
	if c.cfg.Edition == model.EditionA && in.OrderType != "" && !slices.Contains(model.ReceptionOrderTypesA, in.OrderType) && refusedField(err, "orderType") {
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

// refusedField reports whether err refuses a create for a violation on
// field (and on nothing else).
func refusedField(err error, field string) bool {
	e, ok := asError(err)
	if !ok || e.Class != Invalid || len(e.Violations) == 0 {
		return false
	}
	for _, v := range e.Violations {
		if v.Field != field {
			return false
		}
	}
	return true
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
			_ = refs.add(c.unresolved(RefSKU, "sku", code))
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
	if err != nil {
		return Outcome{}, err
	}
	return p.Create(ctx)
}

// PrepareOutbound resolves the references of an order or sales order.
func (c *Client) PrepareOutbound(ctx context.Context, o model.Outbound) (Prepared, error) {
	var refs refErrors
	whCode := "" // the code the warehouse was resolved from
	if c.cfg.Edition == model.EditionB {
		if o.WarehouseLocation == 0 && o.WarehouseCode != "" {
			id, err := c.ResolveWarehouse(ctx, o.WarehouseCode)
			if err := refs.add(err); err != nil {
				return Prepared{}, err
			}
			o.WarehouseLocation, whCode = id, o.WarehouseCode
		} else if o.WarehouseLocation != 0 {
			code, err := c.warehouseOf(ctx, o.WarehouseLocation)
			if err != nil {
				return Prepared{}, err
			}
			whCode = code
		}
		if o.ShipTo == nil && o.ShipToID == 0 && o.ShipToCode != "" {
			id, err := c.resolvePartner(ctx, o.ShipToCode, "shipToCode")
			if err := refs.add(err); err != nil {
				return Prepared{}, err
			}
			o.ShipToID = id
		}
		if o.BillingTo == nil && o.BillingToID == 0 && o.BillingToCode != "" {
			id, err := c.resolvePartner(ctx, o.BillingToCode, "billingToCode")
			if err := refs.add(err); err != nil {
				return Prepared{}, err
			}
			o.BillingToID = id
		}
		if o.CarrierID == 0 && o.CarrierCode != "" {
			id, err := c.ResolveCarrier(ctx, o.CarrierCode)
			if err := refs.add(err); err != nil {
				return Prepared{}, err
			}
			o.CarrierID = id
		}
		if o.CarrierServiceID == 0 && o.CarrierServiceCode != "" {
			id, err := c.resolveService(ctx, o.CarrierServiceCode, o.CarrierCode)
			if err := refs.add(err); err != nil {
				return Prepared{}, err
			}
			o.CarrierServiceID = id
		}
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
// resolved from).
func (c *Client) sendOutbound(ctx context.Context, o model.Outbound, whCode string) (Outcome, error) {
	if c.cfg.Edition == model.EditionB {
		codes := embeddedCodes(o)
		unlock := c.created.lock(codes)
		defer unlock()
		// An order holding the same code before this one may have created
		// the connection: refer to it rather than embed it again.
		if c.created.madeAny(codes) {
			if _, err := c.referExisting(ctx, &o, nil); err != nil {
				return Outcome{}, err
			}
		}
		out, err := c.sendOutboundOnce(ctx, o, whCode)
		if err == nil {
			c.created.made(codes)
		}
		return out, err
	}
	return c.sendOutboundOnce(ctx, o, whCode)
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

// referExisting replaces an embedded consignee (shipTo) or billing party
// whose code is already a connection by that connection's id: a code is
// unique, so embedding it again would be refused as already used. After
// such a refusal (refused) the codes are looked up again even when cached
// as missing. changed reports whether a party is now referred to by id.
func (c *Client) referExisting(ctx context.Context, o *model.Outbound, refused error) (changed bool, err error) {
	for _, p := range []struct {
		addr  **model.Address
		code  string
		id    *int64
		field string
	}{{&o.ShipTo, o.ShipToCode, &o.ShipToID, "shipToCode"}, {&o.BillingTo, o.BillingToCode, &o.BillingToID, "billingToCode"}} {
		a := *p.addr
		if a == nil {
			continue
		}
		code := p.code
		if a.Code != "" {
			code = a.Code
		}
		if code == "" {
			continue
		}
		id, found, err := c.existingPartner(ctx, code)
		if err != nil {
			if refused != nil {
				return false, fmt.Errorf("%w (then looking up %s %q: %w)", refused, p.field, code, err)
			}
			return false, fmt.Errorf("looking up %s %q: %w", p.field, code, err)
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
	e, ok := asError(err)
	if !ok || e.Class != Invalid {
		return false
	}
	for _, v := range e.Violations {
		if (v.Field == "shipTo.code" || v.Field == "billingTo.code") && saysTaken(v.Message) {
			return true
		}
	}
	return false
}

// refErrors gathers the violations of references that do not resolve, so
// that one error names them all.
type refErrors struct{ vs []Violation }

// add keeps an Invalid error's violations and returns any other error.
func (r *refErrors) add(err error) error {
	if err == nil {
		return nil
	}
	if e, ok := asError(err); ok && e.Class == Invalid && len(e.Violations) > 0 {
		r.vs = append(r.vs, e.Violations...)
		return nil
	}
	return err
}

// err is the Invalid error of every reference gathered, or nil.
func (r *refErrors) err() error {
	if len(r.vs) == 0 {
		return nil
	}
	return &Error{Class: Invalid, Violations: r.vs}
}

// embeddedCodes are the lock names of the parties an order embeds
// (shipTo, billingTo): their connections are created with the order.
func embeddedCodes(o model.Outbound) []string {
	var codes []string
	for _, p := range []struct {
		a    *model.Address
		code string
	}{{o.ShipTo, o.ShipToCode}, {o.BillingTo, o.BillingToCode}} {
		if p.a == nil {
			continue
		}
		if code := cmp.Or(p.a.Code, p.code); code != "" && !slices.Contains(codes, "party "+code) {
			codes = append(codes, "party "+code)
		}
	}
	slices.Sort(codes) // locks are taken in one order
	return codes
}

// keyLocks serialise the creates of one key: documents by resource and
// key, and the parties Edition B orders embed by code. A create waits for
// the one of the same key in flight, and a key this client created lately
// is looked up rather than posted again, so no create is sent twice.
type keyLocks struct {
	mu    sync.Mutex
	locks map[string]*keyLock // keys with a create in flight or waiting
	done  map[string]bool     // keys this client created lately
	order []string            // done's keys, oldest first
}

type keyLock struct {
	sync.Mutex
	users int // holders and waiters: the entry goes when none is left
}

// recentCreates bounds how many created keys a client remembers.
const recentCreates = 1 << 16

// lock takes the locks of keys (sorted) and returns their release.
func (kl *keyLocks) lock(keys []string) (unlock func()) {
	held := make([]*keyLock, 0, len(keys))
	for _, k := range keys {
		kl.mu.Lock()
		if kl.locks == nil {
			kl.locks = map[string]*keyLock{}
		}
		l := kl.locks[k]
		if l == nil {
			l = new(keyLock)
			kl.locks[k] = l
		}
		l.users++
		kl.mu.Unlock()
		l.Lock()
		held = append(held, l)
	}
	return func() {
		for i, l := range held {
			l.Unlock()
			kl.mu.Lock()
			if l.users--; l.users == 0 {
				delete(kl.locks, keys[i])
			}
			kl.mu.Unlock()
		}
	}
}

func (kl *keyLocks) madeAny(keys []string) bool {
	kl.mu.Lock()
	defer kl.mu.Unlock()
	return slices.ContainsFunc(keys, func(k string) bool { return kl.done[k] })
}

func (kl *keyLocks) made(keys []string) {
	kl.mu.Lock()
	defer kl.mu.Unlock()
	if kl.done == nil {
		kl.done = map[string]bool{}
	}
	for _, k := range keys {
		if kl.done[k] {
			continue
		}
		kl.done[k] = true
		kl.order = append(kl.order, k)
		if len(kl.order) > recentCreates {
			delete(kl.done, kl.order[0])
			kl.order = kl.order[1:]
		}
	}
}
