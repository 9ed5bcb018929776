package export

import (
	"cmp"
	"strconv"
	"time"

	"filebridge/internal/model"
)

// ReceiptRow is one line of a received reception (Edition A) or purchase
// order (Edition B): the receiving confirmation.
type ReceiptRow struct {
	OrderNumber      string    `csv:"orderNumber" doc:"Reception (A) or purchase order (B) number."`
	ReferenceNumber  string    `csv:"referenceNumber" doc:"Purchase order number on the bill of lading (A) or additional reference (B)."`
	StatusCode       int       `csv:"statusCode,omitempty" model:"Status.Code" doc:"Status code: 80 received, 75 partially received (B)."`
	StatusName       string    `csv:"statusName" model:"Status.Name" doc:"Status name returned by the API (B), else the operator's name for the code."`
	ReceivedAt       time.Time `csv:"receivedAt" doc:"Time of receiving."`
	Warehouse        string    `csv:"warehouse" model:"WarehouseCode" doc:"Warehouse code (B) or warehouse id (A)."`
	SupplierCode     string    `csv:"supplierCode" doc:"Code of the supplier (connection)."`
	Position         int       `csv:"position" doc:"Line position."`
	SKU              string    `csv:"sku" doc:"SKU (variant) code."`
	QuantityOrdered  int64     `csv:"quantityOrdered" model:"Quantity" doc:"Quantity announced on the line."`
	QuantityReceived int64     `csv:"quantityReceived" doc:"Quantity received."`
	Difference       int64     `csv:"difference" doc:"quantityReceived minus quantityOrdered: negative when goods are missing."`
	LotNumber        string    `csv:"lotNumber" doc:"Lot number (B)."`
	ExpiryDate       time.Time `csv:"expiryDate,date" doc:"Expiry date (B)."`
	OwnerCode        string    `csv:"ownerCode" doc:"Stock owner code (B)."`
	UpdatedAt        time.Time `csv:"updatedAt" doc:"Last update of the reception in the portal."`
}

// ShipmentRow is one shipped or unfulfillable line: the shipment
// confirmation.
type ShipmentRow struct {
	OrderNumber           string    `csv:"orderNumber" doc:"Order (A) or sales order (B) number."`
	ExternalOrderNumber   string    `csv:"externalOrderNumber" doc:"The customer's own order number."`
	FulfillmentNumber     string    `csv:"fulfillmentNumber" doc:"Fulfillment (partial shipment) number (B)."`
	ShippedAt             time.Time `csv:"shippedAt" doc:"Time of shipping (A) or of fulfillment (B)."`
	TrackingNumber        string    `csv:"trackingNumber" doc:"Carrier tracking number (B; A: the marketplace tracking number when given)."`
	CarrierCode           string    `csv:"carrierCode" doc:"Carrier code (B)."`
	CarrierName           string    `csv:"carrierName" doc:"Carrier name (B)."`
	Position              int       `csv:"position,omitempty" doc:"Position of the order line."`
	SKU                   string    `csv:"sku" doc:"SKU (variant) code."`
	QuantityOrdered       int64     `csv:"quantityOrdered,omitempty" doc:"Quantity ordered on the line, when known."`
	QuantityShipped       int64     `csv:"quantityShipped" doc:"Quantity shipped."`
	QuantityUnfulfillable int64     `csv:"quantityUnfulfillable" doc:"Quantity that cannot be shipped (B)."`
	ReasonCode            string    `csv:"reasonCode" doc:"Why the quantity cannot be shipped (B)."`
	ReasonComment         string    `csv:"reasonComment" doc:"Comment on the reason (B)."`
	LotNumber             string    `csv:"lotNumber" doc:"Lot number shipped (B)."`
	ExpiryDate            time.Time `csv:"expiryDate,date" doc:"Expiry date shipped (B)."`
	OwnerCode             string    `csv:"ownerCode" doc:"Stock owner code (B)."`
}

// StockRow is the stock of one SKU (full snapshot).
type StockRow struct {
	SKU       string    `csv:"sku" doc:"SKU (variant) code."`
	Name      string    `csv:"name" doc:"SKU name."`
	EAN       string    `csv:"ean" doc:"EAN of the selling unit, as text (leading zeros kept)."`
	Available int64     `csv:"available" doc:"Quantity available for picking."`
	Incoming  int64     `csv:"incoming" doc:"Quantity on receptions not yet received."`
	Allocated int64     `csv:"allocated" doc:"Quantity assigned to orders not yet shipped."`
	Locked    int64     `csv:"locked" doc:"Quantity blocked in the warehouse, not sellable."`
	UpdatedAt time.Time `csv:"updatedAt" doc:"Last change of this stock record."`
}

// MovementRow is one stock movement not caused by a reception or shipment.
type MovementRow struct {
	MovedAt        time.Time `csv:"movedAt" doc:"Time of the movement."`
	SKU            string    `csv:"sku" doc:"SKU (variant) code."`
	FromPosition   string    `csv:"fromPosition" doc:"Stock position the goods left, e.g. available."`
	ToPosition     string    `csv:"toPosition" doc:"Stock position the goods went to; empty for a loss."`
	Quantity       int64     `csv:"quantity" doc:"Quantity moved."`
	Comment        string    `csv:"comment" doc:"The warehouse's comment."`
	FromOwnerCode  string    `csv:"fromOwnerCode" edition:"B" doc:"Stock owner before the movement."`
	FromLotNumber  string    `csv:"fromLotNumber" edition:"B" doc:"Lot number before the movement."`
	FromExpiryDate time.Time `csv:"fromExpiryDate,date" edition:"B" doc:"Expiry date before the movement."`
	ToOwnerCode    string    `csv:"toOwnerCode" edition:"B" doc:"Stock owner after the movement."`
	ToLotNumber    string    `csv:"toLotNumber" edition:"B" doc:"Lot number after the movement."`
	ToExpiryDate   time.Time `csv:"toExpiryDate,date" edition:"B" doc:"Expiry date after the movement."`
	Processed      bool      `csv:"processed" doc:"Whether the portal marks the movement processed."`
}

// TrackingRow is one shipping unit event (Edition B).
type TrackingRow struct {
	OccurredAt         time.Time     `csv:"occurredAt" doc:"Time of the event at the carrier."`
	OrderNumber        string        `csv:"orderNumber" doc:"Sales order number."`
	ShippingUnitNumber string        `csv:"shippingUnitNumber" doc:"Parcel (shipping unit) number."`
	TrackingNumber     string        `csv:"trackingNumber" doc:"Carrier tracking number of the parcel."`
	StatusCode         int           `csv:"statusCode,omitempty" model:"Status.Code" doc:"Shipping unit status code set by the event."`
	StatusName         string        `csv:"statusName" model:"Status.Name" doc:"Status name, when the API gives one."`
	Location           string        `csv:"location" doc:"Where the event happened."`
	Message            string        `csv:"message" doc:"The carrier's message."`
	StatusDetail       string        `csv:"statusDetail" doc:"The carrier's status detail."`
	Severity           int           `csv:"severity" doc:"Severity of the event, as the API gives it."`
	Latitude           model.Decimal `csv:"latitude" doc:"Latitude of the event."`
	Longitude          model.Decimal `csv:"longitude" doc:"Longitude of the event."`
}

// ItemRow is a variant whose master data changed, e.g. dimensions measured
// by the warehouse (Edition B).
type ItemRow struct {
	SKU         string        `csv:"sku" doc:"Variant (SKU) code."`
	Name        string        `csv:"name" doc:"Variant name."`
	EAN         string        `csv:"ean" doc:"EAN of the selling unit, as text."`
	Length      model.Decimal `csv:"length" doc:"Length in centimetres."`
	Width       model.Decimal `csv:"width" doc:"Width in centimetres."`
	Height      model.Decimal `csv:"height" doc:"Height in centimetres."`
	GrossWeight model.Decimal `csv:"grossWeight" doc:"Gross weight of the selling unit in kilograms."`
	UpdatedAt   time.Time     `csv:"updatedAt" doc:"Last update of the variant."`
}

// The rows are filled from the documents by field name (model.Fill; a
// `model` tag names another field, dotted for a nested one); the line's
// fields over the document's.

// ReceiptRows returns one row per line of a reception or purchase order.
func ReceiptRows(in model.Inbound) []ReceiptRow {
	rows := make([]ReceiptRow, len(in.Lines))
	for i, l := range in.Lines {
		r := &rows[i]
		model.Fill(r, in)
		model.Fill(r, l)
		r.StatusName = cmp.Or(r.StatusName, model.StatusName(in.Status.Code))
		if r.Warehouse == "" && in.WarehouseLocation != 0 {
			r.Warehouse = strconv.FormatInt(in.WarehouseLocation, 10)
		}
		r.Difference = l.QuantityReceived - l.Quantity
	}
	return rows
}

// ShipmentRows returns one row per shipped or unfulfillable line.
func ShipmentRows(s model.Shipment) []ShipmentRow {
	rows := make([]ShipmentRow, len(s.Lines))
	for i, l := range s.Lines {
		model.Fill(&rows[i], s)
		model.Fill(&rows[i], l)
	}
	return rows
}

// StockRowOf returns the row of one stock record.
func StockRowOf(s model.Stock) StockRow { return rowOf[StockRow](s) }

// MovementRowOf returns the row of one stock movement.
func MovementRowOf(m model.Movement) MovementRow { return rowOf[MovementRow](m) }

// TrackingRowOf returns the row of one shipping unit event.
func TrackingRowOf(e model.TrackingEvent) TrackingRow { return rowOf[TrackingRow](e) }

// ItemRowOf returns the row of one variant.
func ItemRowOf(it model.Item) ItemRow { return rowOf[ItemRow](it) }

func rowOf[R any](doc any) R {
	var r R
	model.Fill(&r, doc)
	return r
}
