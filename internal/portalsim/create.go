package portalsim

import (
	"fmt"
	"strings"

	"filebridge/internal/model"
	"filebridge/internal/portal"
)

// Creates run under the write lock: validation, uniqueness and insertion
// are one step, so of two concurrent creates of one key exactly one wins.

// docInput starts reading a created document of kind k: its input, whose
// company is checked, and its field rules.
func (s *Sim) docInput(m map[string]any, k model.Kind) (in, func(name string) model.Field) {
	o := s.input(m)
	o.checkCompany()
	return o, func(name string) model.Field { return s.fieldOf(k, name) }
}

// createConnection creates a supplier (A) or connection (B).
func (s *Sim) createConnection(m map[string]any) (doc, vset) {
	o := s.input(m)
	o.checkCompany()
	c := s.readConnection(o, false)
	if !s.free(o, portal.Connections, "code", c.Code) {
		return nil, *o.v
	}
	s.insertConnection(c)
	return c, nil
}

// readConnection reads a connection's fields with the edition's partner
// rules; an embedded consignee (address) needs model.AddressRequired and
// defaults to relationship Marketplace.
func (s *Sim) readConnection(o in, address bool) *connection {
	f := func(name string) model.Field { return s.fieldOf(model.KindPartner, name) }
	c := &connection{Company: s.opts.Company}
	c.Code = o.str("code", f("code"))
	c.Name = o.str("name", f("name"))
	rel := required(f("relationship"))
	if address && !o.has("relationship") {
		c.Relationship = "Marketplace"
	} else {
		c.Relationship = o.str("relationship", rel)
	}
	if !s.isB() {
		return c
	}
	c.CountryCode = o.str("countryCode", f("countryCode"))
	c.State = o.str("state", f("state"))
	c.City = o.str("city", f("city"))
	c.Zipcode = o.flex("zipcode", f("zipcode")).s
	c.Street1 = o.str("streetAddress", f("streetAddress"))
	c.Street2 = o.str("streetAddress2", f("streetAddress2"))
	c.Street3 = o.str("streetAddress3", f("streetAddress3"))
	c.Email = o.str("email", f("email"))
	c.ContactName = o.str("contactName", f("contactName"))
	c.Phone = o.str("phone", f("phone"))
	if address {
		requireAddress(o, map[string]string{"name": c.Name, "streetAddress": c.Street1, "zipcode": c.Zipcode, "city": c.City, "countryCode": c.CountryCode})
	}
	return c
}

// requireAddress reports each field of model.AddressRequired that got
// leaves blank and that has no violation yet.
func requireAddress(o in, got map[string]string) {
	for _, name := range model.AddressRequired {
		if got[name] == "" && !hasViolation(o, name) {
			o.v.add(o.path(name), msgBlank, codeNotBlank)
		}
	}
}

func hasViolation(o in, name string) bool {
	for _, v := range *o.v {
		if v.path == o.path(name) {
			return true
		}
	}
	return false
}

// insertConnection stores a connection, numbering it when it has no code.
func (s *Sim) insertConnection(c *connection) {
	if c.Code == "" {
		c.Code = fmt.Sprintf("CN%06d", s.tables[portal.Connections].next)
	}
	s.store(portal.Connections, c, c.Code)
}

// createVariant creates a SKU (A) or variant (B) and its stock row.
func (s *Sim) createVariant(m map[string]any) (doc, vset) {
	o, f := s.docInput(m, model.KindItem)
	v := &variant{Company: s.opts.Company}
	v.SKU = o.str("sku", f("sku"))
	v.Name = o.str("name", f("name"))
	v.Description1 = o.str("description1", f("description1"))
	v.EAN = o.str("ean", f("ean"))
	dim := f
	if s.ch.StrictInput && s.isB() {
		// Edition B's documents give the dimensions no bound: 0 is taken.
		dim = func(name string) model.Field { fl := f(name); fl.Positive = false; return fl }
	}
	v.Length = o.num("length", dim("length"))
	v.Width = o.num("width", dim("width"))
	v.Height = o.num("height", dim("height"))
	v.GrossWeight = o.num("grossWeight", dim("grossWeight"))
	if !s.isB() {
		v.EANBox = o.str("eanBox", f("eanBox"))
		v.QuantityPerBox = o.num("quantityPerBox", f("quantityPerBox"))
		v.GrossWeightBox = o.num("grossWeightBox", f("grossWeightBox"))
		v.BuyPrice = o.num("buyPrice", f("buyPrice"))
		v.SupplierID = o.ref("supplier", f("supplierCode").Required, portal.Connections)
		if v.QuantityPerBox.Float64() > 1 && v.EANBox == "" && !hasViolation(o, "eanBox") {
			o.v.add("eanBox", "This value should not be blank when quantityPerBox is above 1.", codeNotBlank)
		}
	}
	if !s.free(o, portal.Variants, "sku", v.SKU) {
		return nil, *o.v
	}
	s.store(portal.Variants, v, v.SKU)
	s.newStock(v)
	return v, nil
}

// createPackaging creates a variant packaging (B).
func (s *Sim) createPackaging(m map[string]any) (doc, vset) {
	f := func(name string) model.Field { return s.fieldOf(model.KindPackaging, name) }
	o := s.input(m)
	p := &packaging{}
	p.VariantID = o.ref("variant", f("sku").Required, portal.Variants)
	p.Code = o.str("code", f("code"))
	p.EAN = o.str("ean", f("ean"))
	p.Quantity = o.integer("quantity", f("quantity"))
	p.Length = o.num("length", f("length"))
	p.Width = o.num("width", f("width"))
	p.Height = o.num("height", f("height"))
	p.GrossWeight = o.num("grossWeight", f("grossWeight"))
	p.NetWeight = o.num("netWeight", f("netWeight"))
	p.Level = o.str("level", f("level"))
	p.Type = o.str("type", f("type"))
	if x, ok := o.get("supplier"); ok && s.ch.StrictInput {
		// The documents: "string or null, id of a supplier connection".
		if v, isStr := x.(string); x != nil && (!isStr || strings.Contains(v, "/")) {
			o.v.add("supplier", msgInvalid+" Give the id of a supplier connection as a string.", codeInvalid)
		}
	}
	p.SupplierID = o.ref("supplier", false, portal.Connections)
	// Without a variant or a code the packaging has a violation already.
	key := packagingKey(p.VariantID, p.Code)
	if !s.free(o, portal.VariantPackagings, "code", key) {
		return nil, *o.v
	}
	s.store(portal.VariantPackagings, p, key)
	return p, nil
}

func packagingKey(variantID int64, code string) string {
	return itoa(variantID) + "/" + code
}
