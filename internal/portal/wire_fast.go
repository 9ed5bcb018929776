package portal

// The wire types of the big lists read themselves (fastDecoder, see
// jsonread.go): stocks, stock movements, SKUs / variants and suppliers /
// connections, in both editions. Each reads the keys of its struct tags and
// passes over the others; a value in an unusual form goes through the
// field type's own UnmarshalJSON, and anything the reader does not handle
// sends the whole member back to encoding/json. TestFastDecodersMatch
// checks that both paths agree.

var (
	_ fastDecoder = (*wStock)(nil)
	_ fastDecoder = (*skuA)(nil)
	_ fastDecoder = (*supplierA)(nil)
	_ fastDecoder = (*wMovement)(nil)
	_ fastDecoder = (*variantB)(nil)
	_ fastDecoder = (*connectionB)(nil)
	_ fastDecoder = (*movementB)(nil)
	_ fastDecoder = (*variantHead)(nil)
)

var (
	stockKeys       = jsonKeys[wStock]()
	skuAKeys        = jsonKeys[skuA]()
	supplierAKeys   = jsonKeys[supplierA]()
	movementKeys    = jsonKeys[wMovement]()
	variantBKeys    = jsonKeys[variantB]()
	connectionBKeys = jsonKeys[connectionB]()
	movementBKeys   = jsonKeys[movementB]()
	variantHeadKeys = jsonKeys[variantHead]()
)

// docField reads "@id" and "id"; handled is false for any other key.
func (d *docID) docField(r *reader, key []byte) (handled, ok bool) {
	switch string(key) {
	case "@id":
		return true, r.iri(d)
	case "id":
		return true, r.wint(&d.ID)
	}
	return false, false
}

func (s *wStock) decodeFast(r *reader) bool {
	return r.object(func(k []byte) bool {
		switch string(k) {
		case "available":
			return r.wint(&s.Available)
		case "incoming":
			return r.wint(&s.Incoming)
		case "allocated":
			return r.wint(&s.Allocated)
		case "locked":
			return r.wint(&s.Locked)
		case "variant":
			return readRef(r, &s.Variant)
		case "createdAt":
			return r.wtime(&s.CreatedAt)
		case "updatedAt":
			return r.wtime(&s.UpdatedAt)
		}
		return r.other(k, stockKeys)
	})
}

func (s *skuA) decodeFast(r *reader) bool {
	return r.object(func(k []byte) bool {
		if handled, ok := s.docField(r, k); handled {
			return ok
		}
		switch string(k) {
		case "sku":
			return r.wstr(&s.SKU)
		case "name":
			return r.wstr(&s.Name)
		case "description1":
			return r.wstr(&s.Description1)
		case "ean":
			return r.wstr(&s.EAN)
		case "eanBox":
			return r.wstr(&s.EANBox)
		case "quantityPerBox":
			return r.decimal(&s.QuantityPerBox)
		case "length":
			return r.decimal(&s.Length)
		case "width":
			return r.decimal(&s.Width)
		case "height":
			return r.decimal(&s.Height)
		case "grossWeight":
			return r.decimal(&s.GrossWeight)
		case "grossWeightBox":
			return r.decimal(&s.GrossWeightBox)
		case "buyPrice":
			return r.decimal(&s.BuyPrice)
		case "supplier":
			return readRef(r, &s.Supplier)
		case "createdAt":
			return r.wtime(&s.CreatedAt)
		case "updatedAt":
			return r.wtime(&s.UpdatedAt)
		}
		return r.other(k, skuAKeys)
	})
}

func (v *variantB) decodeFast(r *reader) bool {
	return r.object(func(k []byte) bool {
		if handled, ok := v.docField(r, k); handled {
			return ok
		}
		switch string(k) {
		case "sku":
			return r.wstr(&v.SKU)
		case "name":
			return r.wstr(&v.Name)
		case "description1":
			return r.wstr(&v.Description1)
		case "ean":
			return r.wstr(&v.EAN)
		case "length":
			return r.decimal(&v.Length)
		case "width":
			return r.decimal(&v.Width)
		case "height":
			return r.decimal(&v.Height)
		case "grossWeight":
			return r.decimal(&v.GrossWeight)
		case "createdAt":
			return r.wtime(&v.CreatedAt)
		case "updatedAt":
			return r.wtime(&v.UpdatedAt)
		}
		return r.other(k, variantBKeys)
	})
}

func (s *supplierA) decodeFast(r *reader) bool {
	return r.object(func(k []byte) bool {
		if handled, ok := s.docField(r, k); handled {
			return ok
		}
		switch string(k) {
		case "code":
			return r.wstr(&s.Code)
		case "name":
			return r.wstr(&s.Name)
		case "relationship":
			return r.wstr(&s.Relationship)
		}
		return r.other(k, supplierAKeys)
	})
}

func (c *connectionB) decodeFast(r *reader) bool {
	return r.object(func(k []byte) bool {
		if handled, ok := c.docField(r, k); handled {
			return ok
		}
		var dst *wStr
		switch string(k) {
		case "code":
			dst = &c.Code
		case "name":
			dst = &c.Name
		case "relationship":
			dst = &c.Relationship
		case "countryCode":
			dst = &c.CountryCode
		case "state":
			dst = &c.State
		case "city":
			dst = &c.City
		case "zipcode":
			dst = &c.Zipcode
		case "streetAddress":
			dst = &c.StreetAddress
		case "streetAddress2":
			dst = &c.StreetAddress2
		case "streetAddress3":
			dst = &c.StreetAddress3
		case "email":
			dst = &c.Email
		case "contactName":
			dst = &c.ContactName
		case "phone":
			dst = &c.Phone
		default:
			return r.other(k, connectionBKeys)
		}
		return r.wstr(dst)
	})
}

// field reads a key of the movement both editions send; handled is false
// for any other key.
func (m *wMovement) field(r *reader, key []byte) (handled, ok bool) {
	if handled, ok := m.docField(r, key); handled {
		return true, ok
	}
	switch string(key) {
	case "fromPosition":
		return true, r.wstr(&m.FromPosition)
	case "toPosition":
		return true, r.wstr(&m.ToPosition)
	case "quantity":
		return true, r.wint(&m.Quantity)
	case "movedAt":
		return true, r.wtime(&m.MovedAt)
	case "comment":
		return true, r.wstr(&m.Comment)
	case "variant":
		return true, readRef(r, &m.Variant)
	case "processed":
		return true, r.wbool(&m.Processed)
	case "createdAt":
		return true, r.wtime(&m.CreatedAt)
	}
	return false, false
}

func (m *wMovement) decodeFast(r *reader) bool {
	return r.object(func(k []byte) bool {
		if handled, ok := m.field(r, k); handled {
			return ok
		}
		return r.other(k, movementKeys)
	})
}

func (m *movementB) decodeFast(r *reader) bool {
	return r.object(func(k []byte) bool {
		if handled, ok := m.wMovement.field(r, k); handled {
			return ok
		}
		switch string(k) {
		case "fromOwnerCode":
			return r.wstr(&m.FromOwnerCode)
		case "fromLotNumber":
			return r.wstr(&m.FromLotNumber)
		case "fromExpiryDate":
			return r.wtime(&m.FromExpiryDate)
		case "toOwnerCode":
			return r.wstr(&m.ToOwnerCode)
		case "toLotNumber":
			return r.wstr(&m.ToLotNumber)
		case "toExpiryDate":
			return r.wtime(&m.ToExpiryDate)
		}
		return r.other(k, movementBKeys)
	})
}

func (v *variantHead) decodeFast(r *reader) bool {
	return r.object(func(k []byte) bool {
		if handled, ok := v.docField(r, k); handled {
			return ok
		}
		switch string(k) {
		case "sku":
			return r.wstr(&v.SKU)
		case "name":
			return r.wstr(&v.Name)
		case "ean":
			return r.wstr(&v.EAN)
		}
		return r.other(k, variantHeadKeys)
	})
}
