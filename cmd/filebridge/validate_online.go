package main

import (
	"context"
	"fmt"
	"sort"

	"filebridge/internal/app"
	"filebridge/internal/config"
	"filebridge/internal/formats"
	"filebridge/internal/portal"
)

// codeRef is one code of a file that must exist on the portal: a SKU, a
// supplier, a warehouse, a carrier, a carrier service or a connection.
type codeRef struct {
	what   string // "SKU", "supplier"...
	column string
	code   string
	row    int
}

// onlineCheck collects the codes of a file's documents while it is
// decoded, then resolves them against the portal, read-only.
type onlineCheck struct {
	client *portal.Client
	portal string
	refs   []codeRef
}

// newOnlineCheck opens a portal client for the inbox's portal (the token
// is read now: --online needs it).
func newOnlineCheck(cfgFile, inboxName string) (*onlineCheck, error) {
	cfg, err := config.Load(cfgFile)
	if err != nil {
		return nil, err
	}
	in := cfg.Inbox(inboxName)
	if in == nil {
		return nil, fmt.Errorf("--inbox %q is not in %s", inboxName, cfgFile)
	}
	noRetry := 1
	c, err := app.NewPortal(cfg.Portal(in.Portal), app.PortalOptions{MaxRetries: &noRetry})
	if err != nil {
		return nil, err
	}
	return &onlineCheck{client: c, portal: in.Portal}, nil
}

func (o *onlineCheck) Close() { o.client.Close() }

// collect notes the codes of one decoded document (valid or not: a code
// the portal lacks is worth knowing either way).
func (o *onlineCheck) collect(d formats.Doc) {
	row := 0
	if len(d.Rows) > 0 {
		row = d.Rows[0]
	}
	add := func(what, column, code string) {
		if code != "" {
			o.refs = append(o.refs, codeRef{what: what, column: column, code: code, row: row})
		}
	}
	switch {
	case d.Item != nil:
		add("supplier", "supplierCode", d.Item.SupplierCode)
	case d.Packaging != nil:
		add("SKU", "sku", d.Packaging.SKU)
	case d.Inbound != nil:
		add("supplier", "supplierCode", d.Inbound.SupplierCode)
		add("warehouse", "warehouseCode", d.Inbound.WarehouseCode)
		for _, l := range d.Inbound.Lines {
			if l.Item == nil { // a line with item.* columns creates its SKU
				add("SKU", "sku", l.SKU)
			}
		}
	case d.Outbound != nil:
		add("warehouse", "warehouseCode", d.Outbound.WarehouseCode)
		add("connection", "shipToCode", d.Outbound.ShipToCode)
		add("connection", "billingToCode", d.Outbound.BillingToCode)
		add("carrier", "carrierCode", d.Outbound.CarrierCode)
		add("carrier service", "carrierServiceCode", d.Outbound.CarrierServiceCode)
		for _, l := range d.Outbound.Lines {
			add("SKU", "sku", l.SKU)
		}
	}
}

// resolve asks the portal for every code collected (GET requests only) and
// returns an issue for each one it does not know, at the first row naming
// it. An unreachable portal or a refused token is an error.
func (o *onlineCheck) resolve(ctx context.Context) ([]formats.Issue, error) {
	defer func() { o.refs = nil }()
	var skus []string
	first := map[[2]string]codeRef{}
	for _, r := range o.refs {
		k := [2]string{r.what, r.code}
		if _, seen := first[k]; seen {
			continue
		}
		first[k] = r
		if r.what == "SKU" {
			skus = append(skus, r.code)
		}
	}
	missing := map[[2]string]bool{}
	if len(skus) > 0 {
		found, err := o.client.ResolveSKUs(ctx, skus)
		if err != nil && !portal.IsInvalid(err) {
			return nil, fmt.Errorf("resolving SKUs on portal %s: %w", o.portal, err)
		}
		for _, s := range skus {
			if found[s] == 0 {
				missing[[2]string{"SKU", s}] = true
			}
		}
	}
	resolvers := map[string]func(context.Context, string) (int64, error){
		"supplier": o.client.ResolvePartner, "connection": o.client.ResolvePartner, "warehouse": o.client.ResolveWarehouse,
		"carrier": o.client.ResolveCarrier, "carrier service": o.client.ResolveCarrierService,
	}
	for k, r := range first {
		resolve, ok := resolvers[r.what]
		if !ok {
			continue // SKUs, resolved together above
		}
		_, err := resolve(ctx, r.code)
		switch {
		case portal.IsInvalid(err):
			missing[k] = true
		case err != nil:
			return nil, fmt.Errorf("resolving %s %q on portal %s: %w", r.what, r.code, o.portal, err)
		}
	}
	var out []formats.Issue
	for k := range missing {
		r := first[k]
		out = append(out, formats.Issue{Row: r.row, Column: r.column, Value: r.code,
			Message: fmt.Sprintf("%s %q is not on portal %s: create it there first (or submit its master-data file first), then drop this file", r.what, r.code, o.portal)})
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].Row != out[b].Row {
			return out[a].Row < out[b].Row
		}
		return out[a].Value < out[b].Value
	})
	return out, nil
}
