package model

import (
	"strings"
)

// FieldType is the type of a field's value as it appears in a file.
type FieldType int

const (
	TString   FieldType = iota
	TInt                // whole number
	TDecimal            // exact decimal
	TDate               // a calendar date
	TDateTime           // an instant, converted to UTC
	TTime               // a time of day, "15:04"
	TEAN                // EAN/GTIN digits with a valid check digit
	TCountry            // ISO 3166-1 alpha-2
	TEmail              // an e-mail address
)

func (t FieldType) String() string {
	switch t {
	case TInt:
		return "integer"
	case TDecimal:
		return "number"
	case TDate:
		return "date"
	case TDateTime:
		return "date-time"
	case TTime:
		return "time"
	case TEAN:
		return "EAN/GTIN"
	case TCountry:
		return "country code"
	case TEmail:
		return "e-mail"
	}
	return "text"
}

// Level says where a field sits in a grouped document.
type Level int

const (
	LevelHeader  Level = iota // the document itself (repeated on every row of a grouped document)
	LevelLine                 // one row = one line
	LevelService              // Edition A service lines (rows with serviceType and no sku)
)

// Field describes one field of an inbound document as files carry it: the
// name is the file column (API field names, nested objects flattened with
// dots, codes instead of ids), with the edition's rules.
type Field struct {
	Name     string
	Level    Level
	Type     FieldType
	Required bool     // required on every document (or line, at line level)
	MaxLen   int      // characters; 0 = no stated limit
	Enum     []string // allowed values (exact), empty = any
	Positive bool     // numbers must be > 0
	Doc      string   // one line for templates and the README
	Example  string
}

// Spec is the field table of one document kind in one edition.
type Spec struct {
	Edition Edition
	Kind    Kind
	Fields  []Field
	// Key is the column that identifies a document (unique within a file and
	// on the portal).
	Key string
}

// Field returns the named field (exact name) and whether it exists.
func (s Spec) Field(name string) (Field, bool) {
	for _, f := range s.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// Enums and limits of the API documents.
var (
	// RelationshipsCreate are the connection relationships accepted on create.
	RelationshipsCreate = []string{"Manufacturer", "Customer", "Marketplace", "Entity"}
	// RelationshipsFilter are the relationships accepted by list filters.
	RelationshipsFilter = []string{"Manufacturer", "Customer", "Marketplace", "Entity", "Forwarder", "Warehouse"}
	// ReceptionOrderTypesA are Edition A reception order types. The documents
	// list the first five; their samples also use STANDARD, which filebridge
	// accepts.
	ReceptionOrderTypesA = []string{"SEMI", "CONT20", "CONT40", "CONT40HC", "CONT45HC", "STANDARD"}
	// DeliveryModesA are Edition A order delivery modes.
	DeliveryModesA = []string{"ECO", "STANDARD", "UNPACKING", "MOUNTING"}
	// PackagingLevels are Edition B packaging levels.
	PackagingLevels = []string{"PCB", "SPCB", "UVC"}
	// TransportationModes are Edition B carrier transportation mode codes.
	TransportationModes = []string{"SEA", "EXPRESS", "ROAD", "RAIL", "AIR", "LOCAL"}
	// InboundStatusCodes are the reception/purchase-order status codes used in filters.
	InboundStatusCodes = map[Edition][]int{EditionA: {10, 20, 80, 95, 99}, EditionB: {10, 20, 70, 75, 80, 95, 99}}
	// OutboundStatusCodes are the order fulfillment status codes used in filters.
	OutboundStatusCodes = map[Edition][]int{EditionA: {10, 20, 80, 95, 99}, EditionB: {10, 20, 30, 35, 40, 50, 75, 80, 95, 99}}
)

// Status codes with a confirmed meaning, and the names the simulator uses.
const (
	StatusCreated   = 10
	StatusInWMS     = 20
	StatusOnDocks   = 70
	StatusPartial   = 75
	StatusReceived  = 80 // reception received; order fulfillment shipped
	StatusCanceling = 95
	StatusCanceled  = 99
)

// StatusName names the inbound lifecycle codes (operator documentation).
func StatusName(code int) string {
	switch code {
	case StatusCreated:
		return "Created"
	case StatusInWMS:
		return "In WMS"
	case StatusOnDocks:
		return "On docks"
	case StatusPartial:
		return "Partially received"
	case StatusReceived:
		return "Received"
	case StatusCanceling:
		return "Cancelling"
	case StatusCanceled:
		return "Cancelled"
	}
	return ""
}

// MaxItemsPerPage is the largest page size the API accepts.
const MaxItemsPerPage = 10000

// AddressRequired are the shipping address fields filebridge requires on an
// embedded consignee although the documents do not say: what a carrier needs.
// "name" is satisfied by name or lastName.
var AddressRequired = []string{"name", "streetAddress", "zipcode", "city", "countryCode"}

func f(name string, lvl Level, t FieldType, req bool, maxLen int, doc, ex string) Field {
	return Field{Name: name, Level: lvl, Type: t, Required: req, MaxLen: maxLen, Doc: doc, Example: ex}
}

func pos(fl Field) Field              { fl.Positive = true; return fl }
func enum(fl Field, v []string) Field { fl.Enum = v; return fl }

// SpecFor returns the field table of a kind in an edition, and false when the
// edition has no such kind (packagings in Edition A).
func SpecFor(e Edition, k Kind) (Spec, bool) {
	var fs []Field
	key := ""
	H, L, S := LevelHeader, LevelLine, LevelService
	switch k {
	case KindPartner:
		key = "code"
		if e == EditionA {
			fs = []Field{
				f("code", H, TString, true, 0, "unique supplier code", "SUP-001"),
				f("name", H, TString, true, 0, "supplier name", "Nordic Furniture AB"),
				enum(f("relationship", H, TString, false, 0, "always Manufacturer for a supplier (default)", "Manufacturer"), []string{"Manufacturer"}),
			}
		} else {
			fs = []Field{
				f("code", H, TString, false, 14, "unique connection code (empty: the portal numbers it)", "SUP-001"),
				f("name", H, TString, true, 30, "connection name", "Nordic Furniture AB"),
				enum(f("relationship", H, TString, true, 0, "Manufacturer (supplier), Customer (B2B), Marketplace (B2C), Entity (billing)", "Manufacturer"), RelationshipsCreate),
				f("countryCode", H, TCountry, false, 2, "ISO 3166 alpha-2 country", "SE"),
				f("state", H, TString, false, 0, "state or province", ""),
				f("city", H, TString, false, 0, "city", "Malmö"),
				f("zipcode", H, TString, false, 0, "postal code", "21120"),
				f("streetAddress", H, TString, false, 0, "address line 1", "Industrigatan 4"),
				f("streetAddress2", H, TString, false, 0, "address line 2", ""),
				f("streetAddress3", H, TString, false, 0, "address line 3", ""),
				f("email", H, TEmail, false, 0, "contact e-mail", "orders@nordic.example"),
				f("contactName", H, TString, false, 0, "contact person", "Eva Lind"),
				f("phone", H, TString, false, 0, "contact phone", "+46 40 123456"),
			}
		}
	case KindItem:
		key = "sku"
		if e == EditionA {
			fs = []Field{
				f("sku", H, TString, true, 14, "unique SKU code", "CHAIR-OAK-01"),
				f("name", H, TString, true, 0, "SKU name", "Oak chair"),
				f("description1", H, TString, false, 0, "long description", "Solid oak dining chair"),
				f("ean", H, TEAN, true, 0, "EAN of the selling unit", "4006381333931"),
				f("eanBox", H, TEAN, false, 0, "EAN of the master carton; required when quantityPerBox > 1", "14006381333938"),
				pos(f("quantityPerBox", H, TDecimal, true, 0, "selling units per master carton", "1")),
				pos(f("length", H, TDecimal, true, 0, "centimetres", "45")),
				pos(f("width", H, TDecimal, true, 0, "centimetres", "50")),
				pos(f("height", H, TDecimal, true, 0, "centimetres", "90")),
				pos(f("grossWeight", H, TDecimal, true, 0, "kilograms, selling unit", "6.5")),
				pos(f("grossWeightBox", H, TDecimal, true, 0, "kilograms, master carton", "7.2")),
				pos(f("buyPrice", H, TDecimal, true, 0, "product value, for transport claims", "89.90")),
				f("supplierCode", H, TString, true, 0, "code of an existing supplier", "SUP-001"),
			}
		} else {
			fs = []Field{
				f("sku", H, TString, true, 17, "unique SKU code", "CHAIR-OAK-01"),
				f("name", H, TString, true, 0, "variant name", "Oak chair"),
				f("description1", H, TString, false, 0, "long description", "Solid oak dining chair"),
				f("ean", H, TEAN, true, 0, "EAN of the selling unit", "4006381333931"),
				pos(f("length", H, TDecimal, false, 0, "centimetres", "45")),
				pos(f("width", H, TDecimal, false, 0, "centimetres", "50")),
				pos(f("height", H, TDecimal, false, 0, "centimetres", "90")),
				pos(f("grossWeight", H, TDecimal, false, 0, "kilograms, selling unit", "6.5")),
			}
		}
	case KindPackaging:
		if e == EditionA {
			return Spec{}, false
		}
		key = "code"
		fs = []Field{
			f("sku", H, TString, true, 17, "SKU of the variant this packaging belongs to", "CHAIR-OAK-01"),
			f("code", H, TString, true, 0, "packaging code, unique per variant", "OUTER_CARTON"),
			f("ean", H, TEAN, false, 0, "EAN of this packaging level", "14006381333938"),
			pos(f("quantity", H, TInt, false, 0, "base units contained", "4")),
			pos(f("length", H, TDecimal, false, 0, "centimetres", "60")),
			pos(f("width", H, TDecimal, false, 0, "centimetres", "55")),
			pos(f("height", H, TDecimal, false, 0, "centimetres", "95")),
			pos(f("grossWeight", H, TDecimal, false, 0, "kilograms including contents", "28")),
			pos(f("netWeight", H, TDecimal, false, 0, "kilograms, contents only", "26")),
			enum(f("level", H, TString, false, 0, "packaging level of the warehouse system", "PCB"), PackagingLevels),
			f("type", H, TString, false, 0, "BOX, PALLET, BAG...", "BOX"),
			f("supplierCode", H, TString, false, 0, "code of a supplier connection", "SUP-001"),
		}
	case KindInbound:
		key = "orderNumber"
		if e == EditionA {
			fs = []Field{
				f("orderNumber", H, TString, true, 13, "unique delivery number (container number for containers)", "REC-2026-0042"),
				f("referenceNumber", H, TString, false, 0, "purchase order number on the bill of lading", "PO-88123"),
				pos(f("warehouseLocation", H, TInt, true, 0, "id of the destination warehouse", "3")),
				f("supplierCode", H, TString, true, 0, "code of the supplier", "SUP-001"),
				enum(f("orderType", H, TString, false, 0, "delivery type", "CONT40"), ReceptionOrderTypesA),
				f("attributes.deliveryType", H, TString, false, 0, "delivery type attribute", "pallet"),
				f("dueAt", H, TDateTime, true, 0, "expected arrival at the warehouse", "2026-12-01T08:00:00Z"),
			}
		} else {
			fs = []Field{
				f("orderNumber", H, TString, true, 27, "unique purchase order number", "PO-2026-000042"),
				f("referenceNumber", H, TString, false, 0, "additional reference", "ERP-88123"),
				pos(f("warehouseLocation", H, TInt, false, 0, "id of the destination warehouse (or warehouseCode)", "3")),
				f("warehouseCode", H, TString, false, 0, "code of the destination warehouse (or warehouseLocation)", "WH-LYON"),
				f("supplierCode", H, TString, true, 0, "code of the supplier connection", "SUP-001"),
				f("orderType", H, TString, false, 0, "purchase order type", ""),
				f("dueAt", H, TDateTime, false, 0, "planned receiving date", "2026-12-01T08:00:00Z"),
			}
		}
		fs = append(fs,
			pos(f("position", L, TInt, false, 0, "line number, unique in the order (default 1..n)", "1")),
			f("sku", L, TString, true, 0, "SKU code of the line", "CHAIR-OAK-01"),
			pos(f("quantity", L, TInt, true, 0, "expected quantity", "40")),
		)
		if e == EditionB {
			fs = append(fs,
				f("lotNumber", L, TString, false, 0, "lot number", "LOT-7781"),
				f("expiryDate", L, TDateTime, false, 0, "expiry date", "2027-06-30"),
				f("ownerCode", L, TString, false, 0, "stock owner", ""),
			)
		}
		fs = append(fs, itemOnLine(e)...)
	case KindOutbound:
		key = "orderNumber"
		fs = []Field{
			f("orderNumber", H, TString, true, 17, "unique order number", "SO-2026-10001"),
			f("externalOrderNumber", H, TString, e == EditionA, 0, "the customer's own order number", "WEB-558812"),
		}
		if e == EditionA {
			fs = append(fs, enum(f("deliveryMode", H, TString, false, 0, "delivery mode", "STANDARD"), DeliveryModesA))
			fs = append(fs, pos(f("warehouseLocation", H, TInt, true, 0, "id of the warehouse the goods ship from", "3")))
		} else {
			fs = append(fs,
				f("deliveryMode", H, TString, false, 0, "used in carrier selection", ""),
				pos(f("warehouseLocation", H, TInt, false, 0, "id of the origin warehouse (or warehouseCode)", "3")),
				f("warehouseCode", H, TString, false, 0, "code of the origin warehouse (or warehouseLocation)", "WH-LYON"),
				f("shipToCode", H, TString, false, 0, "consignee connection code: alone, an existing connection; with shipTo.* columns, the code of the embedded consignee", ""),
				f("billingToCode", H, TString, false, 0, "code of the billing connection", ""),
				f("carrierCode", H, TString, false, 0, "carrier code (empty: automatic selection)", "DHL"),
				f("carrierServiceCode", H, TString, false, 0, "carrier service code (empty: automatic selection)", ""),
				f("plannedDeliveryDate", H, TDate, false, 0, "wished delivery date", "2026-12-03"),
				f("deliveryTimeSlotBefore", H, TTime, false, 0, "latest wished delivery time", "17:00"),
			)
		}
		fs = append(fs, shipTo(e)...)
		fs = append(fs,
			pos(f("position", L, TInt, false, 0, "line number, unique in the order (default 1..n)", "1")),
			f("sku", L, TString, false, 0, "SKU code of the line (empty on a service line)", "CHAIR-OAK-01"),
			pos(f("quantity", L, TInt, true, 0, "ordered quantity", "2")),
		)
		if e == EditionA {
			fs = append(fs,
				f("serviceType", S, TString, false, 0, "service line type (row without sku), e.g. take-back", ""),
				f("purchaseOrderLineItem.orderNumber", L, TString, false, 13, "reception the line's goods come from", ""),
				pos(f("purchaseOrderLineItem.position", L, TInt, false, 0, "position of that reception line", "")),
			)
		} else {
			fs = append(fs,
				f("lotNumber", L, TString, false, 0, "requested lot", ""),
				f("expiryDate", L, TDateTime, false, 0, "requested expiry date", ""),
				f("ownerCode", L, TString, false, 0, "requested stock owner", ""),
			)
		}
	default:
		return Spec{}, false
	}
	return Spec{Edition: e, Kind: k, Fields: fs, Key: key}, true
}

// itemOnLine are the optional SKU master columns of an inbound line: when a
// row carries them, the SKU is created before the inbound document if it does
// not exist yet (the documents' nested-SKU rule).
func itemOnLine(e Edition) []Field {
	item, _ := SpecFor(e, KindItem)
	var out []Field
	for _, fl := range item.Fields {
		if fl.Name == "sku" || fl.Name == "supplierCode" {
			continue
		}
		fl.Name = "item." + fl.Name
		fl.Level = LevelLine
		fl.Required = false // required only when the line carries SKU master data
		fl.Doc = "SKU master data: " + fl.Doc
		out = append(out, fl)
	}
	return out
}

// shipTo are the columns of an embedded consignee.
func shipTo(e Edition) []Field {
	H := LevelHeader
	if e == EditionA {
		return []Field{
			f("shipTo.name", H, TString, false, 0, "receiver name (or lastName)", "Jeanne Martin"),
			f("shipTo.title", H, TString, false, 0, "title", "Mme"),
			f("shipTo.firstName", H, TString, false, 0, "first name", "Jeanne"),
			f("shipTo.lastName", H, TString, false, 0, "last name", "Martin"),
			f("shipTo.streetAddress", H, TString, false, 0, "street, required", "12 rue des Lilas"),
			f("shipTo.streetAddress2", H, TString, false, 0, "address line 2", ""),
			f("shipTo.city", H, TString, false, 0, "city, required", "Lyon"),
			f("shipTo.countryCode", H, TCountry, false, 2, "ISO 3166 alpha-2, required", "FR"),
			f("shipTo.zipcode", H, TString, false, 0, "postal code, required", "69003"),
			f("shipTo.email", H, TEmail, false, 0, "e-mail", "jeanne.martin@example.org"),
			f("shipTo.phone", H, TString, false, 0, "phone", "+33 6 12 34 56 78"),
			f("shipTo.languageCode", H, TString, false, 0, "language", "fr"),
			f("shipTo.attributes.accessCode", H, TString, false, 0, "door code", "4521"),
			f("shipTo.attributes.company", H, TString, false, 0, "company", ""),
			f("shipTo.attributes.floor", H, TString, false, 0, "floor", "3"),
			f("shipTo.attributes.building", H, TString, false, 0, "building", "B"),
		}
	}
	return []Field{
		enum(f("shipTo.relationship", H, TString, false, 0, "Customer (B2B) or Marketplace (B2C, default)", "Marketplace"), RelationshipsCreate),
		f("shipTo.name", H, TString, false, 30, "consignee name, required", "Jeanne Martin"),
		f("shipTo.contactName", H, TString, false, 0, "contact person", ""),
		f("shipTo.streetAddress", H, TString, false, 0, "street, required", "12 rue des Lilas"),
		f("shipTo.streetAddress2", H, TString, false, 0, "address line 2", ""),
		f("shipTo.streetAddress3", H, TString, false, 0, "address line 3", ""),
		f("shipTo.city", H, TString, false, 0, "city, required", "Lyon"),
		f("shipTo.state", H, TString, false, 0, "state or province", ""),
		f("shipTo.zipcode", H, TString, false, 0, "postal code, required", "69003"),
		f("shipTo.countryCode", H, TCountry, false, 2, "ISO 3166 alpha-2, required", "FR"),
		f("shipTo.email", H, TEmail, false, 0, "e-mail", "jeanne.martin@example.org"),
		f("shipTo.phone", H, TString, false, 0, "phone", "+33 6 12 34 56 78"),
	}
}

// NormalizeHeader folds a column name for matching: lower case, without
// spaces, '_', '-' and '.'.
func NormalizeHeader(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(s)) {
		switch r {
		case ' ', '_', '-', '.', '\t':
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
