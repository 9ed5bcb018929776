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

var fieldTypeNames = [...]string{TString: "text", TInt: "integer", TDecimal: "number", TDate: "date", TDateTime: "date-time",
	TTime: "time", TEAN: "EAN/GTIN", TCountry: "country code", TEmail: "e-mail"}

func (t FieldType) String() string {
	if t < 0 || int(t) >= len(fieldTypeNames) {
		return "text"
	}
	return fieldTypeNames[t]
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
	// Path are the Go names of the declaration's fields leading to this
	// one (the same names as the document's, documents.go).
	Path []string
	// How the field is compared with the portal's copy of a document:
	// NoDiff fields are not; a code is compared by the ids of RefID (the
	// document's field next to it) when both sides have one; Unless names
	// a field next to it that, when the file sets it, stops the comparison.
	NoDiff bool
	RefID  string
	Unless string
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

var statusNames = map[int]string{StatusCreated: "Created", StatusInWMS: "In WMS", StatusOnDocks: "On docks",
	StatusPartial: "Partially received", StatusReceived: "Received", StatusCanceling: "Cancelling", StatusCanceled: "Cancelled"}

// StatusName names the inbound lifecycle codes (operator documentation).
func StatusName(code int) string { return statusNames[code] }

// MaxItemsPerPage is the largest page size the API accepts.
const MaxItemsPerPage = 10000

// AddressRequired are the shipping address fields filebridge requires on an
// embedded consignee although the documents do not say: what a carrier needs.
// "name" is satisfied by name or lastName.
var AddressRequired = []string{"name", "streetAddress", "zipcode", "city", "countryCode"}

// specs are the field tables by edition and kind, derived from the
// declarations (decl.go).
var specs = func() map[Edition]map[Kind]Spec {
	m := map[Edition]map[Kind]Spec{}
	for e, kinds := range declarations {
		m[e] = map[Kind]Spec{}
		for k, decl := range kinds {
			m[e][k] = specOf(decl)
		}
	}
	return m
}()

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
