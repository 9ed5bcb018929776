// Package samples holds the inbox routes of the sample files (samples/A and
// samples/B): the one text that samples/samples.toml, the configuration
// `filebridge demo` writes and the end-to-end tests' configurations share.
package samples

import "filebridge/internal/model"

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

  [[inboxes.routes]]
  match = "SUPPLIERS_*"
  type = "suppliers"

  [[inboxes.routes]]
  match = "SKU_*"
  type = "skus"

  [[inboxes.routes]]
  match = "RECEPTIONS_*"
  type = "receptions"

  [[inboxes.routes]]
  match = "ORDERS_*"
  type = "orders"
`,
	model.EditionB: `
  [[inboxes.routes]]
  match = "CONNECTIONS_*"
  type = "connections"

  [[inboxes.routes]]
  match = "VARIANTS_*"
  type = "variants"

  [[inboxes.routes]]
  match = "PACKAGINGS_*"
  type = "packagings"

  [[inboxes.routes]]
  match = "PURCHASE_ORDERS_*"
  type = "purchase_orders"

  [[inboxes.routes]]
  match = "SALES_ORDERS_*"
  type = "sales_orders"
`,
}

// Routes returns the TOML text of the routes that read the sample files
// of edition e, to go inside an [[inboxes]] table ("" for an unknown
// edition).
func Routes(e model.Edition) string { return routes[e] }
