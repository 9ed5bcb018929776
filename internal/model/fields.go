package model

import (
	"slices"
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
	// Undocumented are values outside Enum that the documents' own
	// samples use: accepted with a warning, since a portal may refuse them.
	Undocumented []string
	Positive     bool   // numbers must be > 0
	Doc          string // one line for templates and the README
	Example      string
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
	// ReceptionOrderTypesA are Edition A reception order types the
	// documents list.
	ReceptionOrderTypesA = []string{"SEMI", "CONT20", "CONT40", "CONT40HC", "CONT45HC"}
	// UndocumentedOrderTypesA are the order types the documents' samples
	// use though their enum excludes them: accepted with a warning.
	UndocumentedOrderTypesA = []string{"STANDARD"}
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

// The field tables of the editions, one per document kind (see SpecFor).
// Inbound and outbound documents add their line columns.
var (
	suppliersA = []Field{
		{Name: "code", Required: true, Doc: "unique supplier code", Example: "SUP-001"},
		{Name: "name", Required: true, Doc: "supplier name", Example: "Nordic Furniture AB"},
		{Name: "relationship", Enum: []string{"Manufacturer"}, Doc: "always Manufacturer for a supplier (default)", Example: "Manufacturer"},
	}
	connectionsB = []Field{
		{Name: "code", MaxLen: 14, Doc: "unique connection code (empty: the portal numbers it)", Example: "SUP-001"},
		{Name: "name", Required: true, MaxLen: 30, Doc: "connection name", Example: "Nordic Furniture AB"},
		{Name: "relationship", Required: true, Enum: RelationshipsCreate, Doc: "Manufacturer (supplier), Customer (B2B), Marketplace (B2C), Entity (billing)", Example: "Manufacturer"},
		{Name: "countryCode", Type: TCountry, MaxLen: 2, Doc: "ISO 3166 alpha-2 country", Example: "SE"},
		{Name: "state", Doc: "state or province", Example: ""},
		{Name: "city", Doc: "city", Example: "Malmö"},
		{Name: "zipcode", Doc: "postal code", Example: "21120"},
		{Name: "streetAddress", Doc: "address line 1", Example: "Industrigatan 4"},
		{Name: "streetAddress2", Doc: "address line 2", Example: ""},
		{Name: "streetAddress3", Doc: "address line 3", Example: ""},
		{Name: "email", Type: TEmail, Doc: "contact e-mail", Example: "orders@nordic.example"},
		{Name: "contactName", Doc: "contact person", Example: "Eva Lind"},
		{Name: "phone", Doc: "contact phone", Example: "+46 40 123456"},
	}
	itemsA = []Field{
		{Name: "sku", Required: true, MaxLen: 14, Doc: "unique SKU code", Example: "CHAIR-OAK-01"},
		{Name: "name", Required: true, Doc: "SKU name", Example: "Oak chair"},
		{Name: "description1", Doc: "long description", Example: "Solid oak dining chair"},
		{Name: "ean", Type: TEAN, Required: true, Doc: "EAN of the selling unit", Example: "4006381333931"},
		{Name: "eanBox", Type: TEAN, Doc: "EAN of the master carton; required when quantityPerBox > 1", Example: "14006381333938"},
		{Name: "quantityPerBox", Type: TDecimal, Required: true, Positive: true, Doc: "selling units per master carton", Example: "1"},
		{Name: "length", Type: TDecimal, Required: true, Positive: true, Doc: "centimetres", Example: "45"},
		{Name: "width", Type: TDecimal, Required: true, Positive: true, Doc: "centimetres", Example: "50"},
		{Name: "height", Type: TDecimal, Required: true, Positive: true, Doc: "centimetres", Example: "90"},
		{Name: "grossWeight", Type: TDecimal, Required: true, Positive: true, Doc: "kilograms, selling unit", Example: "6.5"},
		{Name: "grossWeightBox", Type: TDecimal, Required: true, Positive: true, Doc: "kilograms, master carton", Example: "7.2"},
		{Name: "buyPrice", Type: TDecimal, Required: true, Positive: true, Doc: "product value, for transport claims", Example: "89.90"},
		{Name: "supplierCode", Required: true, Doc: "code of an existing supplier", Example: "SUP-001"},
	}
	variantsB = []Field{
		{Name: "sku", Required: true, MaxLen: 17, Doc: "unique SKU code", Example: "CHAIR-OAK-01"},
		{Name: "name", Required: true, Doc: "variant name", Example: "Oak chair"},
		{Name: "description1", Doc: "long description", Example: "Solid oak dining chair"},
		{Name: "ean", Type: TEAN, Required: true, Doc: "EAN of the selling unit", Example: "4006381333931"},
		{Name: "length", Type: TDecimal, Positive: true, Doc: "centimetres", Example: "45"},
		{Name: "width", Type: TDecimal, Positive: true, Doc: "centimetres", Example: "50"},
		{Name: "height", Type: TDecimal, Positive: true, Doc: "centimetres", Example: "90"},
		{Name: "grossWeight", Type: TDecimal, Positive: true, Doc: "kilograms, selling unit", Example: "6.5"},
	}
	packagingsB = []Field{
		{Name: "sku", Required: true, MaxLen: 17, Doc: "SKU of the variant this packaging belongs to", Example: "CHAIR-OAK-01"},
		{Name: "code", Required: true, Doc: "packaging code, unique per variant", Example: "OUTER_CARTON"},
		{Name: "ean", Type: TEAN, Doc: "EAN of this packaging level", Example: "14006381333938"},
		{Name: "quantity", Type: TInt, Positive: true, Doc: "base units contained", Example: "4"},
		{Name: "length", Type: TDecimal, Positive: true, Doc: "centimetres", Example: "60"},
		{Name: "width", Type: TDecimal, Positive: true, Doc: "centimetres", Example: "55"},
		{Name: "height", Type: TDecimal, Positive: true, Doc: "centimetres", Example: "95"},
		{Name: "grossWeight", Type: TDecimal, Positive: true, Doc: "kilograms including contents", Example: "28"},
		{Name: "netWeight", Type: TDecimal, Positive: true, Doc: "kilograms, contents only", Example: "26"},
		{Name: "level", Enum: PackagingLevels, Doc: "packaging level of the warehouse system", Example: "PCB"},
		{Name: "type", Doc: "BOX, PALLET, BAG...", Example: "BOX"},
		{Name: "supplierCode", Doc: "code of a supplier connection", Example: "SUP-001"},
	}
	receptionsA = []Field{
		{Name: "orderNumber", Required: true, MaxLen: 13, Doc: "unique delivery number (container number for containers)", Example: "REC-2026-0042"},
		{Name: "referenceNumber", Doc: "purchase order number on the bill of lading", Example: "PO-88123"},
		{Name: "warehouseLocation", Type: TInt, Required: true, Positive: true, Doc: "id of the destination warehouse", Example: "3"},
		{Name: "supplierCode", Required: true, Doc: "code of the supplier", Example: "SUP-001"},
		{Name: "orderType", Enum: ReceptionOrderTypesA, Undocumented: UndocumentedOrderTypesA, Doc: "delivery type", Example: "CONT40"},
		{Name: "attributes.deliveryType", Doc: "delivery type attribute", Example: "pallet"},
		{Name: "dueAt", Type: TDateTime, Required: true, Doc: "expected arrival at the warehouse", Example: "2026-12-01T08:00:00Z"},
	}
	purchaseOrdersB = []Field{
		{Name: "orderNumber", Required: true, MaxLen: 27, Doc: "unique purchase order number", Example: "PO-2026-000042"},
		{Name: "referenceNumber", Doc: "additional reference", Example: "ERP-88123"},
		{Name: "warehouseLocation", Type: TInt, Positive: true, Doc: "id of the destination warehouse (or warehouseCode)", Example: "3"},
		{Name: "warehouseCode", Doc: "code of the destination warehouse (or warehouseLocation)", Example: "WH-LYON"},
		{Name: "supplierCode", Required: true, Doc: "code of the supplier connection", Example: "SUP-001"},
		{Name: "orderType", Doc: "purchase order type", Example: ""},
		{Name: "dueAt", Type: TDateTime, Doc: "planned receiving date", Example: "2026-12-01T08:00:00Z"},
	}
	// inboundLines are the line columns of receptions and purchase orders.
	inboundLines = []Field{
		{Name: "position", Level: LevelLine, Type: TInt, Positive: true, Doc: "line number, unique in the order (default 1..n)", Example: "1"},
		{Name: "sku", Level: LevelLine, Required: true, Doc: "SKU code of the line", Example: "CHAIR-OAK-01"},
		{Name: "quantity", Level: LevelLine, Type: TInt, Required: true, Positive: true, Doc: "expected quantity", Example: "40"},
	}
	// inboundLinesB are the further line columns of purchase orders.
	inboundLinesB = []Field{
		{Name: "lotNumber", Level: LevelLine, Doc: "lot number", Example: "LOT-7781"},
		{Name: "expiryDate", Level: LevelLine, Type: TDateTime, Doc: "expiry date", Example: "2027-06-30"},
		{Name: "ownerCode", Level: LevelLine, Doc: "stock owner", Example: ""},
	}
	ordersA = []Field{
		{Name: "orderNumber", Required: true, MaxLen: 17, Doc: "unique order number", Example: "SO-2026-10001"},
		{Name: "externalOrderNumber", Required: true, Doc: "the customer's own order number", Example: "WEB-558812"},
		{Name: "deliveryMode", Enum: DeliveryModesA, Doc: "delivery mode", Example: "STANDARD"},
		{Name: "warehouseLocation", Type: TInt, Required: true, Positive: true, Doc: "id of the warehouse the goods ship from", Example: "3"},
	}
	salesOrdersB = []Field{
		{Name: "orderNumber", Required: true, MaxLen: 17, Doc: "unique order number", Example: "SO-2026-10001"},
		{Name: "externalOrderNumber", Doc: "the customer's own order number", Example: "WEB-558812"},
		{Name: "deliveryMode", Doc: "used in carrier selection", Example: ""},
		{Name: "warehouseLocation", Type: TInt, Positive: true, Doc: "id of the origin warehouse (or warehouseCode)", Example: "3"},
		{Name: "warehouseCode", Doc: "code of the origin warehouse (or warehouseLocation)", Example: "WH-LYON"},
		{Name: "shipToCode", Doc: "consignee connection code: alone, an existing connection; with shipTo.* columns, the code of the embedded consignee", Example: ""},
		{Name: "billingToCode", Doc: "code of the billing connection", Example: ""},
		{Name: "carrierCode", Doc: "carrier code (empty: automatic selection)", Example: "DHL"},
		{Name: "carrierServiceCode", Doc: "carrier service code (empty: automatic selection)", Example: ""},
		{Name: "plannedDeliveryDate", Type: TDate, Doc: "wished delivery date", Example: "2026-12-03"},
		{Name: "deliveryTimeSlotBefore", Type: TTime, Doc: "latest wished delivery time", Example: "17:00"},
	}
	// shipToA and shipToB are the columns of an embedded consignee.
	shipToA = []Field{
		{Name: "shipTo.name", Doc: "receiver name (or lastName)", Example: "Jeanne Martin"},
		{Name: "shipTo.title", Doc: "title", Example: "Mme"},
		{Name: "shipTo.firstName", Doc: "first name", Example: "Jeanne"},
		{Name: "shipTo.lastName", Doc: "last name", Example: "Martin"},
		{Name: "shipTo.streetAddress", Doc: "street, required", Example: "12 rue des Lilas"},
		{Name: "shipTo.streetAddress2", Doc: "address line 2", Example: ""},
		{Name: "shipTo.city", Doc: "city, required", Example: "Lyon"},
		{Name: "shipTo.countryCode", Type: TCountry, MaxLen: 2, Doc: "ISO 3166 alpha-2, required", Example: "FR"},
		{Name: "shipTo.zipcode", Doc: "postal code, required", Example: "69003"},
		{Name: "shipTo.email", Type: TEmail, Doc: "e-mail", Example: "jeanne.martin@example.org"},
		{Name: "shipTo.phone", Doc: "phone", Example: "+33 6 12 34 56 78"},
		{Name: "shipTo.languageCode", Doc: "language", Example: "fr"},
		{Name: "shipTo.attributes.accessCode", Doc: "door code", Example: "4521"},
		{Name: "shipTo.attributes.company", Doc: "company", Example: ""},
		{Name: "shipTo.attributes.floor", Doc: "floor", Example: "3"},
		{Name: "shipTo.attributes.building", Doc: "building", Example: "B"},
	}
	shipToB = []Field{
		{Name: "shipTo.relationship", Enum: RelationshipsCreate, Doc: "Customer (B2B) or Marketplace (B2C, default)", Example: "Marketplace"},
		{Name: "shipTo.name", MaxLen: 30, Doc: "consignee name, required", Example: "Jeanne Martin"},
		{Name: "shipTo.contactName", Doc: "contact person", Example: ""},
		{Name: "shipTo.streetAddress", Doc: "street, required", Example: "12 rue des Lilas"},
		{Name: "shipTo.streetAddress2", Doc: "address line 2", Example: ""},
		{Name: "shipTo.streetAddress3", Doc: "address line 3", Example: ""},
		{Name: "shipTo.city", Doc: "city, required", Example: "Lyon"},
		{Name: "shipTo.state", Doc: "state or province", Example: ""},
		{Name: "shipTo.zipcode", Doc: "postal code, required", Example: "69003"},
		{Name: "shipTo.countryCode", Type: TCountry, MaxLen: 2, Doc: "ISO 3166 alpha-2, required", Example: "FR"},
		{Name: "shipTo.email", Type: TEmail, Doc: "e-mail", Example: "jeanne.martin@example.org"},
		{Name: "shipTo.phone", Doc: "phone", Example: "+33 6 12 34 56 78"},
	}
	// outboundLines are the line columns of orders and sales orders.
	outboundLines = []Field{
		{Name: "position", Level: LevelLine, Type: TInt, Positive: true, Doc: "line number, unique in the order (default 1..n)", Example: "1"},
		{Name: "sku", Level: LevelLine, Doc: "SKU code of the line (empty on a service line)", Example: "CHAIR-OAK-01"},
		{Name: "quantity", Level: LevelLine, Type: TInt, Required: true, Positive: true, Doc: "ordered quantity", Example: "2"},
	}
	outboundLinesA = []Field{
		{Name: "serviceType", Level: LevelService, Doc: "service line type (row without sku), e.g. take-back", Example: ""},
		{Name: "purchaseOrderLineItem.orderNumber", Level: LevelLine, MaxLen: 13, Doc: "reception the line's goods come from", Example: ""},
		{Name: "purchaseOrderLineItem.position", Level: LevelLine, Type: TInt, Positive: true, Doc: "position of that reception line", Example: ""},
	}
	outboundLinesB = []Field{
		{Name: "lotNumber", Level: LevelLine, Doc: "requested lot", Example: ""},
		{Name: "expiryDate", Level: LevelLine, Type: TDateTime, Doc: "requested expiry date", Example: ""},
		{Name: "ownerCode", Level: LevelLine, Doc: "requested stock owner", Example: ""},
	}
)

// specs are the field tables by edition and kind.
var specs = map[Edition]map[Kind]Spec{
	EditionA: {
		KindPartner:  {Key: "code", Fields: suppliersA},
		KindItem:     {Key: "sku", Fields: itemsA},
		KindInbound:  {Key: "orderNumber", Fields: slices.Concat(receptionsA, inboundLines, itemOnLine(itemsA))},
		KindOutbound: {Key: "orderNumber", Fields: slices.Concat(ordersA, shipToA, outboundLines, outboundLinesA)},
	},
	EditionB: {
		KindPartner:   {Key: "code", Fields: connectionsB},
		KindItem:      {Key: "sku", Fields: variantsB},
		KindPackaging: {Key: "code", Fields: packagingsB},
		KindInbound:   {Key: "orderNumber", Fields: slices.Concat(purchaseOrdersB, inboundLines, inboundLinesB, itemOnLine(variantsB))},
		KindOutbound:  {Key: "orderNumber", Fields: slices.Concat(salesOrdersB, shipToB, outboundLines, outboundLinesB)},
	},
}

// SpecFor returns the field table of a kind in an edition, and false when the
// edition has no such kind (packagings in Edition A). The table is a copy.
func SpecFor(e Edition, k Kind) (Spec, bool) {
	s, ok := specs[e][k]
	if !ok {
		return Spec{}, false
	}
	s.Edition, s.Kind, s.Fields = e, k, slices.Clone(s.Fields)
	return s, true
}

// itemOnLine are the optional SKU master columns of an inbound line: when a
// row carries them, the SKU is created before the inbound document if it does
// not exist yet (the documents' nested-SKU rule).
func itemOnLine(item []Field) []Field {
	var out []Field
	for _, fl := range item {
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
