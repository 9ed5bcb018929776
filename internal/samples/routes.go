// Package samples holds the inbox routes of the sample files (samples/A and
// samples/B): the one text that samples/samples.toml, the configuration
// `filebridge demo` writes and the end-to-end tests' configurations share.
package samples

import (
	"fmt"
	"strings"

	"filebridge/internal/model"
)

// routes are the [[inboxes.routes]] tables of each edition, indented as in
// an [[inboxes]] table.
var routes = map[model.Edition]string{
	model.EditionA: `
  # An old ERP: Windows-1252, semicolons, decimal commas.
  [[inboxes.routes]]
  match = "SKU_LEGACY_*.csv"
  type = "skus"
  delimiter = ";"
  charset = "windows-1252"
  decimal = ","
` + byName([][2]string{
		{"SUPPLIERS_*", "suppliers"},
		{"SKU_*", "skus"},
		{"RECEPTIONS_*", "receptions"},
		{"ORDERS_*", "orders"},
	}),
	model.EditionB: byName([][2]string{
		{"CONNECTIONS_*", "connections"},
		{"VARIANTS_*", "variants"},
		{"PACKAGINGS_*", "packagings"},
		{"PURCHASE_ORDERS_*", "purchase_orders"},
		{"SALES_ORDERS_*", "sales_orders"},
	}),
}

// byName returns the routes that give a file its type by its name alone,
// each {match, type}, each table after a blank line.
func byName(matchType [][2]string) string {
	var b strings.Builder
	for _, r := range matchType {
		fmt.Fprintf(&b, "\n  [[inboxes.routes]]\n  match = %q\n  type = %q\n", r[0], r[1])
	}
	return b.String()
}

// Routes returns the TOML text of the routes that read the sample files
// of edition e, to go inside an [[inboxes]] table ("" for an unknown
// edition).
func Routes(e model.Edition) string { return routes[e] }
