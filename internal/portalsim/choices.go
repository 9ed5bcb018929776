package portalsim

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Choices say how the simulator reads each point the API documents leave
// open (or contradict themselves on). Every field takes either side, so a
// client can be run against each reading; Profile groups them.
type Choices struct {
	// OrderFilter is the name of the fulfillment-status filter the order
	// (sales order) list honours: "status.code" (the parameter table),
	// "fulfillmentStatus.code" (Edition A's flow text) or "both". The other
	// name is ignored, as API Platform ignores unknown filters.
	OrderFilter string
	// ItemReads is the answer to GET <list>/{id}, which the documents never
	// list: "served", "404" or "403".
	ItemReads string
	// CreateIDs puts id and @id in the answer of a create whose field table
	// lists no id (receptions/purchase orders, orders/sales orders).
	CreateIDs bool
	// VariantUpdatedAfter honours updatedAt[after] on variants and variant
	// packagings (used by the flow text, absent from their parameter table).
	VariantUpdatedAfter bool
	// StandardOrderType accepts orderType STANDARD on receptions: the
	// samples use it, Edition A's enum excludes it.
	StandardOrderType bool
	// HydraNext puts hydra:first/last/previous/next in the view of every
	// list; false: on the shipping-unit list only, as the documents show.
	HydraNext bool
	// Timestamps gives createdAt/updatedAt on documents whose field tables
	// list none (connections, variants, purchase and sales orders, stock
	// movements).
	Timestamps bool
	// ListOrder is the default order of a list: "id", or "updatedAt" (by
	// the timestamp a date filter of the request bounds, else updatedAt).
	ListOrder string
	// MovingPages makes documents change while a list is paged: after each
	// page that has a next one, the first document served on it is updated
	// (so under ListOrder "updatedAt" it moves to the end and the next
	// page's first row slides onto the page just read).
	MovingPages bool
	// ExtraFilters honours query filters the documents do not list (ids,
	// order[...], other date bounds); false ignores them.
	ExtraFilters bool
	// ConsigneeCode is what an embedded sales-order consignee whose code
	// already exists does: "reuse" the connection or "refuse" (the code is
	// unique).
	ConsigneeCode string
	// ShipToAddress requires a consignee's name, streetAddress, zipcode,
	// city and countryCode (as a carrier needs them); the documents show
	// none of the ShipTo fields as required.
	ShipToAddress bool
	// NullNumbers renders an Edition B variant's unknown dimensions as null;
	// false renders 0 (the documents type them number, not nullable).
	NullNumbers bool
	// ViolationStatus is the status of a validation error: 422 or 400 (the
	// documents show no error status).
	ViolationStatus int
	// CreateStatus is the status of a successful create: 0 as the
	// documents show (200, 201 for variant packagings) or 201 for all.
	CreateStatus int
	// WarehouseLocation is what an Edition B order's warehouseLocation
	// is: "warehouse" (the id of the warehouse a warehouse client names)
	// or "warehouse-client" (the id of the warehouse client itself); the
	// documents do not show how they relate.
	WarehouseLocation string
	// ItemsPerPage is "honoured" or "ignored" by Edition B lists (pages of
	// 30): Edition B gives the bounds 0 to 10000 only "where bounds are
	// listed", and lists none. Edition A's lists always honour it.
	ItemsPerPage string
	// StrictInput refuses what the documents forbid: an IRI or numeric
	// string where an integer is documented, a date-time without the
	// +00:00 offset, a string where a number is documented. false accepts
	// them (the simulator's old leniency).
	StrictInput bool
}

// choice describes one switch: its name on the command line, what the
// documents say, and how to read and set it.
type choice struct {
	name   string
	says   string
	values []string // values[0] is the documented profile's side unless noted
	get    func(*Choices) string
	set    func(*Choices, string)
}

func boolChoice(name, says string, p func(*Choices) *bool) choice {
	return choice{name: name, says: says, values: []string{"on", "off"},
		get: func(c *Choices) string {
			if *p(c) {
				return "on"
			}
			return "off"
		},
		set: func(c *Choices, v string) { *p(c) = v == "on" }}
}

func textChoice(name, says string, p func(*Choices) *string, values ...string) choice {
	return choice{name: name, says: says, values: values,
		get: func(c *Choices) string { return *p(c) },
		set: func(c *Choices, v string) { *p(c) = v }}
}

func intChoice(name, says string, p func(*Choices) *int, values ...string) choice {
	return choice{name: name, says: says, values: values,
		get: func(c *Choices) string {
			if *p(c) == 0 {
				return "documented"
			}
			return itoa(int64(*p(c)))
		},
		set: func(c *Choices, v string) {
			n := 0
			fmt.Sscan(v, &n)
			*p(c) = n
		}}
}

// choices lists every switch in the order of the help and the README.
var choices = []choice{
	textChoice("order-filter", "Edition A names the order status filter fulfillmentStatus.code (flow) and status.code (parameter table); which is honoured is not shown",
		func(c *Choices) *string { return &c.OrderFilter }, "status.code", "fulfillmentStatus.code", "both"),
	textChoice("item-reads", "no GET of a single document is listed",
		func(c *Choices) *string { return &c.ItemReads }, "404", "403", "served"),
	boolChoice("create-ids", "the reception/order (purchase/sales order) tables list no id in the create answer",
		func(c *Choices) *bool { return &c.CreateIDs }),
	boolChoice("variant-updated-after", "the flow text filters variants and packagings with updatedAt[after]; their parameter tables omit it",
		func(c *Choices) *bool { return &c.VariantUpdatedAfter }),
	boolChoice("standard-order-type", "Edition A's orderType enum excludes STANDARD; the samples use it",
		func(c *Choices) *bool { return &c.StandardOrderType }),
	boolChoice("hydra-next", "only the shipping-unit list shows hydra:first/last/previous/next",
		func(c *Choices) *bool { return &c.HydraNext }),
	boolChoice("timestamps", "connections, variants, purchase/sales orders and stock movements list no createdAt/updatedAt",
		func(c *Choices) *bool { return &c.Timestamps }),
	textChoice("list-order", "the default order of a list is not shown",
		func(c *Choices) *string { return &c.ListOrder }, "id", "updatedAt"),
	boolChoice("moving-pages", "whether documents change while a list is paged is not shown",
		func(c *Choices) *bool { return &c.MovingPages }),
	boolChoice("extra-filters", "only the filters of the parameter tables are listed",
		func(c *Choices) *bool { return &c.ExtraFilters }),
	textChoice("consignee-code", "a connection code is unique; embedding an existing consignee in a sales order is not shown",
		func(c *Choices) *string { return &c.ConsigneeCode }, "refuse", "reuse"),
	boolChoice("ship-to-address", "which ShipTo fields are required is not shown",
		func(c *Choices) *bool { return &c.ShipToAddress }),
	boolChoice("null-numbers", "Edition B types variant dimensions number, not nullable",
		func(c *Choices) *bool { return &c.NullNumbers }),
	intChoice("violation-status", "error status codes and bodies are not shown",
		func(c *Choices) *int { return &c.ViolationStatus }, "422", "400"),
	intChoice("create-status", "creates show 200 (variant packagings 201)",
		func(c *Choices) *int { return &c.CreateStatus }, "documented", "201"),
	textChoice("warehouse-location", "Edition B: how warehouseLocation relates to the warehouse id is not shown",
		func(c *Choices) *string { return &c.WarehouseLocation }, "warehouse", "warehouse-client"),
	textChoice("items-per-page", "Edition B gives itemsPerPage's bounds only where they are listed, and lists none",
		func(c *Choices) *string { return &c.ItemsPerPage }, "honoured", "ignored"),
	boolChoice("strict-input", "integers, +00:00 date-times and numbers are explicit in the field tables",
		func(c *Choices) *bool { return &c.StrictInput }),
}

// profiles are the named sets of choices.
var profiles = map[string]Choices{
	// documented: strict where the documents are explicit; the open points
	// read as DESIGN.md section 2 assumes.
	"documented": {OrderFilter: "status.code", ItemReads: "404", CreateIDs: true, VariantUpdatedAfter: true,
		StandardOrderType: true, HydraNext: false, Timestamps: true, ListOrder: "id", MovingPages: false,
		ExtraFilters: false, ConsigneeCode: "refuse", ShipToAddress: false, NullNumbers: false, ViolationStatus: 422, StrictInput: true,
		WarehouseLocation: "warehouse", ItemsPerPage: "honoured"},
	// other-side: every open point read the other way.
	"other-side": {OrderFilter: "fulfillmentStatus.code", ItemReads: "403", CreateIDs: false, VariantUpdatedAfter: false,
		StandardOrderType: false, HydraNext: true, Timestamps: false, ListOrder: "updatedAt", MovingPages: true,
		ExtraFilters: true, ConsigneeCode: "reuse", ShipToAddress: true, NullNumbers: true, ViolationStatus: 400, CreateStatus: 201, StrictInput: true,
		WarehouseLocation: "warehouse-client", ItemsPerPage: "ignored"},
	// literal: only what the documents state, the open points as the
	// documented profile reads them (the old --literal).
	"literal": {OrderFilter: "status.code", ItemReads: "404", CreateIDs: true, VariantUpdatedAfter: true,
		StandardOrderType: true, HydraNext: false, Timestamps: false, ListOrder: "id", MovingPages: false,
		ExtraFilters: false, ConsigneeCode: "refuse", NullNumbers: false, ViolationStatus: 422, StrictInput: true,
		WarehouseLocation: "warehouse", ItemsPerPage: "honoured"},
	// lenient: the simulator before it was an oracle; it serves and
	// accepts everything a client might guess.
	"lenient": {OrderFilter: "both", ItemReads: "served", CreateIDs: true, VariantUpdatedAfter: true,
		StandardOrderType: true, HydraNext: true, Timestamps: true, ListOrder: "id", MovingPages: false,
		ExtraFilters: true, ConsigneeCode: "reuse", ShipToAddress: true, NullNumbers: true, ViolationStatus: 422, StrictInput: false,
		WarehouseLocation: "warehouse", ItemsPerPage: "honoured"},
}

// DefaultProfile is the profile of a simulator whose Options name none.
const DefaultProfile = "documented"

// ProfileNames lists the profiles, the default first.
func ProfileNames() []string {
	names := make([]string, 0, len(profiles))
	for n := range profiles {
		if n != DefaultProfile {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return append([]string{DefaultProfile}, names...)
}

// Profile returns the choices of a named profile.
func Profile(name string) (Choices, error) {
	c, ok := profiles[name]
	if !ok {
		return Choices{}, fmt.Errorf("simulator profile %q: use one of %s", name, strings.Join(ProfileNames(), ", "))
	}
	return c, nil
}

// Set flips one switch by its command-line name ("item-reads", "403").
func (c *Choices) Set(name, value string) error {
	for _, ch := range choices {
		if ch.name != name {
			continue
		}
		v := value
		switch {
		case slices.Contains(ch.values, "on") && (v == "true" || v == "false"):
			v = map[string]string{"true": "on", "false": "off"}[v]
		}
		if !slices.Contains(ch.values, v) {
			return fmt.Errorf("simulator choice %s=%q: use one of %s", name, value, strings.Join(ch.values, ", "))
		}
		ch.set(c, v)
		return nil
	}
	return fmt.Errorf("simulator choice %q is unknown: use one of %s", name, strings.Join(ChoiceNames(), ", "))
}

// SetAll applies "name=value" flips in order.
func (c *Choices) SetAll(flips []string) error {
	for _, f := range flips {
		name, value, ok := strings.Cut(f, "=")
		if !ok {
			return fmt.Errorf("simulator choice %q: write name=value, e.g. item-reads=403", f)
		}
		if err := c.Set(strings.TrimSpace(name), strings.TrimSpace(value)); err != nil {
			return err
		}
	}
	return nil
}

// Get returns the value of a switch by its command-line name.
func (c *Choices) Get(name string) (string, bool) {
	for _, ch := range choices {
		if ch.name == name {
			return ch.get(c), true
		}
	}
	return "", false
}

// ChoiceNames lists the switches in order.
func ChoiceNames() []string {
	out := make([]string, len(choices))
	for i, ch := range choices {
		out[i] = ch.name
	}
	return out
}

// ChoicesHelp describes every switch and profile for `filebridge sim --help`.
func ChoicesHelp() string {
	var b strings.Builder
	b.WriteString("Profiles (--profile): ")
	b.WriteString(strings.Join(ProfileNames(), ", "))
	b.WriteString("\n\nSwitches (--choice name=value), with each profile's value in [")
	b.WriteString(strings.Join(ProfileNames(), " / "))
	b.WriteString("]:\n")
	for _, ch := range choices {
		vals := make([]string, 0, len(profiles))
		for _, p := range ProfileNames() {
			c := profiles[p]
			vals = append(vals, ch.get(&c))
		}
		fmt.Fprintf(&b, "  %-22s %s [%s]\n      %s\n", ch.name, strings.Join(ch.values, " | "), strings.Join(vals, " / "), ch.says)
	}
	return b.String()
}

// check reports a choice outside its values.
func (c Choices) check() error {
	for _, ch := range choices {
		if v := ch.get(&c); !slices.Contains(ch.values, v) {
			return fmt.Errorf("simulator choice %s=%q: use one of %s", ch.name, v, strings.Join(ch.values, ", "))
		}
	}
	return nil
}
