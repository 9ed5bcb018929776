// Package model holds filebridge's edition-neutral documents and, for each
// edition of the portal API and document type, the one declaration of its
// columns, limits, enums, required fields and create request (decl.go).
// Everything that validates, binds, sends or compares a document reads the
// tables derived from the declarations (SpecFor, Body).
package model

import (
	"fmt"
	"slices"
	"strings"
)

// Edition is an edition of the customer-portal API.
type Edition string

const (
	EditionA Edition = "A" // v1.2.0: suppliers, SKUs, receptions, orders
	EditionB Edition = "B" // v1.1.0: connections, variants, packagings, purchase and sales orders
)

// Editions lists the supported editions.
var Editions = []Edition{EditionA, EditionB}

// ParseEdition accepts "A" or "B" (any case).
func ParseEdition(s string) (Edition, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "A":
		return EditionA, nil
	case "B":
		return EditionB, nil
	}
	return "", fmt.Errorf("unknown API edition %q: use \"A\" (v1.2.0) or \"B\" (v1.1.0)", s)
}

// APIVersion is the version label the edition's documentation carries.
func (e Edition) APIVersion() string {
	if e == EditionB {
		return "1.1.0"
	}
	return "1.2.0"
}

// Kind is the edition-neutral kind of an inbound document.
type Kind int

const (
	KindPartner   Kind = iota + 1 // supplier (A) / connection (B)
	KindItem                      // SKU (A) / variant (B)
	KindPackaging                 // variant packaging (B only)
	KindInbound                   // reception (A) / purchase order (B)
	KindOutbound                  // order (A) / sales order (B)
)

// Order is the dependency order of kinds within a processing round:
// partners before items before packagings before inbound before outbound.
func (k Kind) Order() int { return int(k) }

var kindNames = [...]string{KindPartner: "partner", KindItem: "item", KindPackaging: "packaging", KindInbound: "inbound", KindOutbound: "outbound"}

func (k Kind) String() string {
	if k < KindPartner || int(k) >= len(kindNames) {
		return fmt.Sprintf("kind(%d)", int(k))
	}
	return kindNames[k]
}

// DocType is an inbound document type as named in files and config.
type DocType struct {
	Name    string   // canonical name for the edition, e.g. "purchase_orders"
	Aliases []string // other accepted names, e.g. "receptions"
	Kind    Kind
	Grouped bool // one row per line, rows grouped by orderNumber
}

var docTypes = map[Edition][]DocType{
	EditionA: {
		{Name: "suppliers", Kind: KindPartner},
		{Name: "skus", Kind: KindItem},
		{Name: "receptions", Kind: KindInbound, Grouped: true},
		{Name: "orders", Kind: KindOutbound, Grouped: true},
	},
	EditionB: {
		{Name: "connections", Aliases: []string{"suppliers"}, Kind: KindPartner},
		{Name: "variants", Aliases: []string{"skus"}, Kind: KindItem},
		{Name: "packagings", Aliases: []string{"variant_packagings"}, Kind: KindPackaging},
		{Name: "purchase_orders", Aliases: []string{"receptions"}, Kind: KindInbound, Grouped: true},
		{Name: "sales_orders", Aliases: []string{"orders"}, Kind: KindOutbound, Grouped: true},
	},
}

// DocTypes lists the inbound document types of an edition in dependency order.
func DocTypes(e Edition) []DocType { return docTypes[e] }

// LookupDocType finds a document type of the edition by name or alias
// (case-insensitive).
func LookupDocType(e Edition, name string) (DocType, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	for _, dt := range docTypes[e] {
		if dt.Name == n || slices.Contains(dt.Aliases, n) {
			return dt, nil
		}
	}
	return DocType{}, fmt.Errorf("unknown document type %q for edition %s: use one of %s", name, e, DocTypeNames(e))
}

// DocTypeNames lists the names of the document types of an edition, for
// a message: "suppliers, skus, ...".
func DocTypeNames(e Edition) string {
	names := make([]string, len(docTypes[e]))
	for i, dt := range docTypes[e] {
		names[i] = dt.Name
	}
	return strings.Join(names, ", ")
}

// ExportType is a scheduled outbound export.
type ExportType string

const (
	ExportReceipts  ExportType = "receipts"
	ExportShipments ExportType = "shipments"
	ExportStock     ExportType = "stock"
	ExportMovements ExportType = "movements"
	ExportTracking  ExportType = "tracking"
	ExportItems     ExportType = "items"
)

var exportTypes = map[Edition][]ExportType{
	EditionA: {ExportReceipts, ExportShipments, ExportStock, ExportMovements},
	EditionB: {ExportReceipts, ExportShipments, ExportStock, ExportMovements, ExportTracking, ExportItems},
}

// ExportTypes lists the exports an edition offers.
func ExportTypes(e Edition) []ExportType { return exportTypes[e] }

// ParseExportType checks that name is an export the edition offers.
func ParseExportType(e Edition, name string) (ExportType, error) {
	n := ExportType(strings.ToLower(strings.TrimSpace(name)))
	if slices.Contains(exportTypes[e], n) {
		return n, nil
	}
	all := make([]string, 0, 6)
	for _, t := range exportTypes[e] {
		all = append(all, string(t))
	}
	return "", fmt.Errorf("export type %q is not available in edition %s: use one of %s", name, e, strings.Join(all, ", "))
}
