package portal

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"filebridge/internal/model"
)

// "Equal" compares the fields a file sets with what the portal returns: a
// field the file leaves empty, or the response does not carry, is not
// compared. Each difference is a Violation on the file's column.

type differ struct{ vs []Violation }

func (d *differ) add(field, want, got string) {
	d.vs = append(d.vs, Violation{Field: field, Message: fmt.Sprintf("file has %q, portal has %q", want, got)})
}

func (d *differ) str(field, want, got string) {
	want, got = strings.TrimSpace(want), strings.TrimSpace(got)
	if want != "" && got != "" && want != got {
		d.add(field, want, got)
	}
}

// fold compares case-insensitively (country codes, e-mails).
func (d *differ) fold(field, want, got string) {
	want, got = strings.TrimSpace(want), strings.TrimSpace(got)
	if want != "" && got != "" && !strings.EqualFold(want, got) {
		d.add(field, want, got)
	}
}

func (d *differ) dec(field string, want, got model.Decimal) {
	if want.IsZero() || got.IsZero() {
		return
	}
	w, err1 := model.ParseDecimal(string(want))
	g, err2 := model.ParseDecimal(string(got))
	if err1 != nil || err2 != nil || w != g {
		d.add(field, string(want), string(got))
	}
}

func (d *differ) int(field string, want, got int64) {
	if want != 0 && got != 0 && want != got {
		d.add(field, strconv.FormatInt(want, 10), strconv.FormatInt(got, 10))
	}
}

func (d *differ) time(field string, want, got time.Time) {
	if !want.IsZero() && !got.IsZero() && !want.Truncate(time.Second).Equal(got.Truncate(time.Second)) {
		d.add(field, want.UTC().Format(wireTimeLayout), got.UTC().Format(wireTimeLayout))
	}
}

func (d *differ) date(field string, want, got time.Time) {
	if !want.IsZero() && !got.IsZero() && want.Format(wireDateLayout) != got.UTC().Format(wireDateLayout) {
		d.add(field, want.Format(wireDateLayout), got.UTC().Format(wireDateLayout))
	}
}

// ref compares a reference by id when both sides have one, else by code.
func (d *differ) ref(field string, wantID, gotID int64, wantCode, gotCode string) {
	if wantID != 0 && gotID != 0 {
		d.int(field, wantID, gotID)
		return
	}
	d.str(field, wantCode, gotCode)
}

func diffPartner(want, got model.Partner) []Violation {
	var d differ
	d.str("name", want.Name, got.Name)
	d.str("relationship", want.Relationship, got.Relationship)
	d.fold("countryCode", want.CountryCode, got.CountryCode)
	d.str("state", want.State, got.State)
	d.str("city", want.City, got.City)
	d.str("zipcode", want.Zipcode, got.Zipcode)
	d.str("streetAddress", want.StreetAddress, got.StreetAddress)
	d.str("streetAddress2", want.StreetAddress2, got.StreetAddress2)
	d.str("streetAddress3", want.StreetAddress3, got.StreetAddress3)
	d.fold("email", want.Email, got.Email)
	d.str("contactName", want.ContactName, got.ContactName)
	d.str("phone", want.Phone, got.Phone)
	return d.vs
}

func diffItem(want, got model.Item) []Violation {
	var d differ
	d.str("name", want.Name, got.Name)
	d.str("description1", want.Description1, got.Description1)
	d.str("ean", want.EAN, got.EAN)
	d.str("eanBox", want.EANBox, got.EANBox)
	d.dec("quantityPerBox", want.QuantityPerBox, got.QuantityPerBox)
	d.dec("length", want.Length, got.Length)
	d.dec("width", want.Width, got.Width)
	d.dec("height", want.Height, got.Height)
	d.dec("grossWeight", want.GrossWeight, got.GrossWeight)
	d.dec("grossWeightBox", want.GrossWeightBox, got.GrossWeightBox)
	d.dec("buyPrice", want.BuyPrice, got.BuyPrice)
	d.ref("supplierCode", want.SupplierID, got.SupplierID, want.SupplierCode, got.SupplierCode)
	return d.vs
}

func diffPackaging(want, got model.Packaging) []Violation {
	var d differ
	d.str("ean", want.EAN, got.EAN)
	d.int("quantity", want.Quantity, got.Quantity)
	d.dec("length", want.Length, got.Length)
	d.dec("width", want.Width, got.Width)
	d.dec("height", want.Height, got.Height)
	d.dec("grossWeight", want.GrossWeight, got.GrossWeight)
	d.dec("netWeight", want.NetWeight, got.NetWeight)
	d.str("level", want.Level, got.Level)
	d.str("type", want.Type, got.Type)
	d.str("supplierCode", want.SupplierCode, got.SupplierCode)
	return d.vs
}

func diffInbound(want, got model.Inbound) []Violation {
	var d differ
	d.str("referenceNumber", want.ReferenceNumber, got.ReferenceNumber)
	d.int("warehouseLocation", want.WarehouseLocation, got.WarehouseLocation)
	d.ref("supplierCode", want.SupplierID, got.SupplierID, want.SupplierCode, got.SupplierCode)
	d.str("orderType", want.OrderType, got.OrderType)
	d.time("dueAt", want.DueAt, got.DueAt)
	for k, v := range want.Attributes {
		if g, ok := got.Attributes[k]; ok {
			d.str("attributes."+k, v, g)
		}
	}
	if len(got.Lines) > 0 {
		d.lines(inboundKeys(want.Lines), inboundKeys(got.Lines))
	}
	return d.vs
}

func diffOutbound(want, got model.Outbound) []Violation {
	var d differ
	d.str("externalOrderNumber", want.ExternalOrderNumber, got.ExternalOrderNumber)
	d.str("deliveryMode", want.DeliveryMode, got.DeliveryMode)
	d.int("warehouseLocation", want.WarehouseLocation, got.WarehouseLocation)
	if want.ShipTo == nil {
		d.ref("shipToCode", want.ShipToID, got.ShipToID, want.ShipToCode, got.ShipToCode)
	} else if got.ShipTo != nil {
		w, g := want.ShipTo, got.ShipTo
		d.str("shipTo.name", w.Name, g.Name)
		d.str("shipTo.lastName", w.LastName, g.LastName)
		d.str("shipTo.streetAddress", w.StreetAddress, g.StreetAddress)
		d.str("shipTo.city", w.City, g.City)
		d.str("shipTo.zipcode", w.Zipcode, g.Zipcode)
		d.fold("shipTo.countryCode", w.CountryCode, g.CountryCode)
	}
	if want.BillingTo == nil {
		d.ref("billingToCode", want.BillingToID, got.BillingToID, want.BillingToCode, got.BillingToCode)
	}
	d.ref("carrierCode", want.CarrierID, got.CarrierID, want.CarrierCode, got.CarrierCode)
	d.ref("carrierServiceCode", want.CarrierServiceID, got.CarrierServiceID, want.CarrierServiceCode, got.CarrierServiceCode)
	d.date("plannedDeliveryDate", want.PlannedDeliveryDate, got.PlannedDeliveryDate)
	if len(got.Lines) > 0 {
		d.lines(outboundKeys(want.Lines), outboundKeys(got.Lines))
	}
	return d.vs
}

// lineKey is what is compared of a document line.
type lineKey struct {
	pos       int
	sku       string
	variant   int64
	qty       int64
	lot       string
	ownerCode string
}

func inboundKeys(ls []model.InboundLine) []lineKey {
	keys := make([]lineKey, len(ls))
	for i, l := range ls {
		keys[i] = lineKey{l.Position, l.SKU, l.VariantID, l.Quantity, l.LotNumber, l.OwnerCode}
	}
	return keys
}

func outboundKeys(ls []model.OutboundLine) []lineKey {
	keys := make([]lineKey, len(ls))
	for i, l := range ls {
		keys[i] = lineKey{l.Position, l.SKU, l.VariantID, l.Quantity, l.LotNumber, l.OwnerCode}
	}
	return keys
}

// lines compares lines by position (by order when positions are missing).
func (d *differ) lines(want, got []lineKey) {
	if len(want) != len(got) {
		d.vs = append(d.vs, Violation{Field: "lines", Message: fmt.Sprintf("file has %d lines, portal has %d", len(want), len(got))})
		return
	}
	byPos := map[int]lineKey{}
	for _, g := range got {
		byPos[g.pos] = g
	}
	for i, w := range want {
		g, ok := byPos[w.pos]
		if w.pos == 0 || !ok {
			g = got[i]
		}
		n := len(d.vs)
		d.ref("sku", w.variant, g.variant, w.sku, g.sku)
		d.int("quantity", w.qty, g.qty)
		d.str("lotNumber", w.lot, g.lot)
		d.str("ownerCode", w.ownerCode, g.ownerCode)
		pos := w.pos
		if pos == 0 {
			pos = i + 1
		}
		for j := n; j < len(d.vs); j++ {
			d.vs[j].Message = fmt.Sprintf("line %d: %s", pos, d.vs[j].Message)
		}
	}
}
