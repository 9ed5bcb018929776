package templates

import (
	"slices"
	"strconv"
	"strings"

	"filebridge/internal/model"
)

// Column describes one column of a template for the people filling it in:
// the "columns" sheet of the XLSX template holds one row per Column.
type Column struct {
	Name        string // header, as in model.SpecFor
	Required    string // "yes", "no" or "conditional: ..." with the condition
	Type        string // text, integer, number, date...
	Limit       string // max length, allowed values, > 0, formats
	Example     string
	Description string
}

// Columns describes the fields of a spec, in the spec's order.
func Columns(spec model.Spec) []Column {
	cols := make([]Column, len(spec.Fields))
	for i, fl := range spec.Fields {
		cols[i] = Column{
			Name:        fl.Name,
			Required:    required(spec, fl),
			Type:        fl.Type.String(),
			Limit:       limit(fl),
			Example:     fl.Example,
			Description: fl.Doc,
		}
	}
	return cols
}

// required says whether a field must be filled, with the condition of the
// fields whose requirement depends on other columns. The conditions restate
// rules of the API documents and of filebridge's validation; the list of
// fields itself always comes from the spec.
func required(spec model.Spec, fl model.Field) string {
	if fl.Required {
		if fl.Level == model.LevelLine && isGrouped(spec) {
			return "yes, on every line"
		}
		return "yes"
	}
	name := fl.Name
	switch {
	case name == "eanBox":
		return "conditional: when quantityPerBox is above 1"
	case strings.HasPrefix(name, "item."):
		if item, ok := model.SpecFor(spec.Edition, model.KindItem); ok {
			if f, ok := item.Field(strings.TrimPrefix(name, "item.")); ok && f.Required {
				return "conditional: when the line carries SKU master data (item.* columns)"
			}
		}
		return "no"
	case strings.HasPrefix(name, "shipTo.") && slices.Contains(model.AddressRequired, strings.TrimPrefix(name, "shipTo.")):
		what := "when the order embeds a consignee (shipTo.* columns)"
		if spec.Edition == model.EditionA {
			what = "the receiver's address"
		}
		if name == "shipTo.name" && spec.Edition == model.EditionA {
			return "conditional: shipTo.name or shipTo.lastName, " + what
		}
		if spec.Edition == model.EditionA {
			return "yes: " + what
		}
		return "conditional: " + what
	case spec.Edition == model.EditionB && (name == "warehouseLocation" || name == "warehouseCode"):
		return "conditional: warehouseLocation or warehouseCode"
	case spec.Edition == model.EditionB && spec.Kind == model.KindOutbound && name == "shipToCode":
		return "conditional: shipToCode or the shipTo.* columns"
	case spec.Kind == model.KindOutbound && name == "sku":
		if spec.Edition == model.EditionA {
			return "conditional: on goods lines; empty on a service line"
		}
		return "yes, on every line"
	case name == "serviceType":
		return "conditional: on a service line (a row without sku)"
	case name == "purchaseOrderLineItem.position":
		return "conditional: with purchaseOrderLineItem.orderNumber"
	}
	return "no"
}

func isGrouped(spec model.Spec) bool {
	return spec.Kind == model.KindInbound || spec.Kind == model.KindOutbound
}

// limit lists the constraints on a field's value.
func limit(fl model.Field) string {
	var parts []string
	if fl.MaxLen > 0 && fl.Type != model.TCountry {
		parts = append(parts, "at most "+strconv.Itoa(fl.MaxLen)+" characters")
	}
	if len(fl.Enum) > 0 {
		parts = append(parts, "one of "+strings.Join(fl.Enum, ", "))
	}
	if len(fl.Undocumented) > 0 {
		parts = append(parts, strings.Join(fl.Undocumented, ", ")+" accepted with a warning (outside the documents' list)")
	}
	if fl.Positive {
		parts = append(parts, "> 0")
	}
	if f, ok := typeFormat[fl.Type]; ok {
		parts = append(parts, f)
	}
	return strings.Join(parts, "; ")
}

// typeFormat is the format a value of each type is written in.
var typeFormat = map[model.FieldType]string{
	model.TInt:      "whole number",
	model.TDecimal:  "decimal point '.'",
	model.TEAN:      "8, 12, 13 or 14 digits with a valid check digit",
	model.TCountry:  "2 upper-case letters (ISO 3166)",
	model.TDate:     "YYYY-MM-DD",
	model.TDateTime: "YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ (UTC)",
	model.TTime:     "HH:MM",
	model.TEmail:    "name@domain.tld",
}
