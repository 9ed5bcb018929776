package portalsim

import "fmt"

// Creates run under the write lock: validation, uniqueness and insertion
// are one step, so of two concurrent creates of one key exactly one wins.

// docInput starts reading a created document: its input, whose company
// is checked.
func (s *Sim) docInput(m map[string]any) in {
	o := s.input(m)
	o.checkCompany()
	return o
}

// createConnection creates a supplier (A) or connection (B).
func (s *Sim) createConnection(m map[string]any) (doc, vset) {
	o := s.docInput(m)
	c := s.readConnection(o, false)
	if !s.free(o, Connections, "code", c.Code) {
		return nil, *o.v
	}
	s.insertConnection(c)
	return c, nil
}

// readConnection reads a supplier (A: code, name, relationship) or a
// connection (B). An embedded consignee (address) may leave out company
// and relationship (Marketplace), and needs the address fields
// Choices.ShipToAddress asks for.
func (s *Sim) readConnection(o in, address bool) *connection {
	c := &connection{Company: s.opts.Company}
	if !s.isB() {
		c.Code = o.str("code", req)
		c.Name = o.str("name", req)
		c.Relationship = o.str("relationship", field{required: true, enum: relationshipsA})
		return c
	}
	c.Code = o.str("code", optMax(connectionCodeMaxB))
	c.Name = o.str("name", reqMax(connectionNameMaxB))
	if address && !o.has("relationship") {
		c.Relationship = "Marketplace"
	} else {
		c.Relationship = o.str("relationship", field{required: true, enum: relationshipsB})
	}
	c.CountryCode = o.str("countryCode", field{format: countryCode})
	c.State = o.str("state", opt)
	c.City = o.str("city", opt)
	c.Zipcode = o.str("zipcode", opt)
	c.Street1 = o.str("streetAddress", opt)
	c.Street2 = o.str("streetAddress2", opt)
	c.Street3 = o.str("streetAddress3", opt)
	c.Email = o.str("email", field{format: emailText})
	c.ContactName = o.str("contactName", opt)
	c.Phone = o.str("phone", opt)
	if address {
		s.requireAddress(o, map[string]string{"name": c.Name, "streetAddress": c.Street1, "zipcode": c.Zipcode, "city": c.City, "countryCode": c.CountryCode})
	}
	return c
}

// addressFields are the fields of a consignee a carrier needs, which
// Choices.ShipToAddress requires (the documents do not show which are).
var addressFields = []string{"name", "streetAddress", "zipcode", "city", "countryCode"}

// requireAddress reports each of addressFields that got leaves blank and
// that has no violation yet, when Choices.ShipToAddress asks for them.
func (s *Sim) requireAddress(o in, got map[string]string) {
	if !s.ch.ShipToAddress {
		return
	}
	for _, name := range addressFields {
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
		c.Code = fmt.Sprintf("CN%06d", s.tables[Connections].next)
	}
	s.store(Connections, c, c.Code)
}

// createVariant creates a SKU (A) or variant (B) and its stock row.
func (s *Sim) createVariant(m map[string]any) (doc, vset) {
	o := s.docInput(m)
	v := &variant{Company: s.opts.Company}
	v.Name = o.str("name", req)
	v.Description1 = o.str("description1", opt)
	v.EAN = o.str("ean", field{required: true, format: eanText})
	if s.isB() {
		// Edition B: dimensions are optional numbers without a bound.
		v.SKU = o.str("sku", reqMax(skuMaxB))
		v.Length = o.num("length", opt)
		v.Width = o.num("width", opt)
		v.Height = o.num("height", opt)
		v.GrossWeight = o.num("grossWeight", opt)
	} else {
		above0 := field{required: true, positive: true}
		v.SKU = o.str("sku", reqMax(skuMaxA))
		v.EANBox = o.str("eanBox", field{format: eanText})
		v.QuantityPerBox = o.num("quantityPerBox", above0)
		v.Length = o.num("length", above0)
		v.Width = o.num("width", above0)
		v.Height = o.num("height", above0)
		v.GrossWeight = o.num("grossWeight", above0)
		v.GrossWeightBox = o.num("grossWeightBox", above0)
		v.BuyPrice = o.num("buyPrice", above0)
		v.SupplierID = o.ref("supplier", true, Connections, refInt)
		if v.QuantityPerBox.Float64() > 1 && v.EANBox == "" && !hasViolation(o, "eanBox") {
			o.v.add("eanBox", "This value should not be blank when quantityPerBox is above 1.", codeNotBlank)
		}
	}
	if !s.free(o, Variants, "sku", v.SKU) {
		return nil, *o.v
	}
	s.store(Variants, v, v.SKU)
	s.newStock(v)
	return v, nil
}

// createPackaging creates a variant packaging (B): its variant an IRI, its
// supplier the id of a connection as a string.
func (s *Sim) createPackaging(m map[string]any) (doc, vset) {
	o := s.input(m)
	p := &packaging{}
	p.VariantID = o.ref("variant", true, Variants, refIRI)
	p.Code = o.str("code", req)
	p.EAN = o.str("ean", field{format: eanText})
	p.Quantity = o.integer("quantity", opt)
	p.Length = o.num("length", opt)
	p.Width = o.num("width", opt)
	p.Height = o.num("height", opt)
	p.GrossWeight = o.num("grossWeight", opt)
	p.NetWeight = o.num("netWeight", opt)
	p.Level = o.str("level", field{enum: packagingLevels})
	p.Type = o.str("type", opt)
	p.SupplierID = o.ref("supplier", false, Connections, refIDText)
	// Without a variant or a code the packaging has a violation already.
	key := packagingKey(p.VariantID, p.Code)
	if !s.free(o, VariantPackagings, "code", key) {
		return nil, *o.v
	}
	s.store(VariantPackagings, p, key)
	return p, nil
}

func packagingKey(variantID int64, code string) string {
	return itoa(variantID) + "/" + code
}
