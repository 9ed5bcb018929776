package portal

import (
	"strconv"

	"filebridge/internal/model"
)

// The rest of Edition B's wire types (see wire_b.go): what the warehouse
// reports back, fulfillments, shipping units and their events, and stock
// movements.

// Fulfillment.

type fulfillmentB struct {
	docID
	FulfillmentNumber wText           `json:"fulfillmentNumber"`
	FulfilledAt       wTime           `json:"fulfilledAt"`
	Warehouse         ref[warehouseB] `json:"warehouse"`
	Status            wStatus         `json:"status"`
	TrackingNumber    wText           `json:"trackingNumber"`
	Carrier           ref[carrierB]   `json:"carrier"`
	SalesOrder        ref[soHeadB]    `json:"salesOrder"`
	Lines             []struct {
		Variant            ref[variantB] `json:"variant"`
		SalesOrderLineItem ref[soLineB]  `json:"salesOrderLineItem"`
		QuantityFulfilled  wInt          `json:"quantityFulfilled"`
		OwnerCode          wText         `json:"ownerCode"`
		LotNumber          wText         `json:"lotNumber"`
		ExpiryDate         wTime         `json:"expiryDate"`
	} `json:"fulfillmentLineItems"`
	Unfulfillable []struct {
		Variant               ref[variantB] `json:"variant"`
		SalesOrderLineItem    ref[soLineB]  `json:"salesOrderLineItem"`
		QuantityUnfulfillable wInt          `json:"quantityUnfulfillable"`
		ReasonCode            ref[refCodeB] `json:"reasonCode"`
		ReasonComment         wText         `json:"reasonComment"`
	} `json:"unfulfillableLineItems"`
	CreatedAt wTime `json:"createdAt"`
	UpdatedAt wTime `json:"updatedAt"`
}

func (f *fulfillmentB) model() model.Shipment {
	so, carrier := f.SalesOrder.get(), f.Carrier.get()
	s := model.Shipment{
		ID: f.id(), FulfillmentNumber: str(f.FulfillmentNumber), OrderNumber: str(so.OrderNumber),
		ExternalOrderNumber: str(so.ExternalOrderNumber),
		Status:              f.Status.model(),
		ShippedAt:           f.FulfilledAt.Time, TrackingNumber: str(f.TrackingNumber),
		CarrierCode: str(carrier.Code), CarrierName: str(carrier.Name), WarehouseCode: str(f.Warehouse.get().Code),
		CreatedAt: f.CreatedAt.Time, UpdatedAt: f.UpdatedAt.Time,
	}
	for _, l := range f.Lines {
		sol := l.SalesOrderLineItem.get()
		s.Lines = append(s.Lines, model.ShipmentLine{
			Position: int(sol.Position), SKU: lineSKU(l.Variant, sol), QuantityOrdered: int64(sol.Quantity),
			QuantityShipped: int64(l.QuantityFulfilled), LotNumber: str(l.LotNumber), OwnerCode: str(l.OwnerCode),
			ExpiryDate: l.ExpiryDate.Time,
		})
	}
	for _, l := range f.Unfulfillable {
		sol := l.SalesOrderLineItem.get()
		reason := str(l.ReasonCode.get().Code)
		if reason == "" && l.ReasonCode.ID != 0 {
			reason = strconv.FormatInt(l.ReasonCode.ID, 10)
		}
		s.Lines = append(s.Lines, model.ShipmentLine{
			Position: int(sol.Position), SKU: lineSKU(l.Variant, sol), QuantityOrdered: int64(sol.Quantity),
			QuantityUnfulfillable: int64(l.QuantityUnfulfillable), ReasonCode: reason, ReasonComment: str(l.ReasonComment),
		})
	}
	return s
}

// lineSKU is the SKU of a fulfillment line: its variant's, else its sales
// order line's.
func lineSKU(v ref[variantB], sol soLineB) string {
	if s := str(v.get().SKU); s != "" {
		return s
	}
	return str(sol.Variant.get().SKU)
}

// Shipping unit and shipping unit event.

type shippingUnitB struct {
	docID
	ShippingUnitNumber     wText         `json:"shippingUnitNumber"`
	ShippingTrackingNumber wText         `json:"shippingTrackingNumber"`
	ShippingUnitStatus     wStatus       `json:"shippingUnitStatus"`
	Events                 []eventB      `json:"shippingUnitEvents"`
	Weight                 model.Decimal `json:"weight"`
	Volume                 model.Decimal `json:"volume"`
	CompletedAt            wTime         `json:"completedAt"`
	DeliveryDateTime       wTime         `json:"deliveryDateTime"`
	SalesOrder             ref[soHeadB]  `json:"salesOrder"`
	CreatedAt              wTime         `json:"createdAt"`
	UpdatedAt              wTime         `json:"updatedAt"`
}

func (u *shippingUnitB) model() model.ShippingUnit {
	su := model.ShippingUnit{
		ID: u.id(), ShippingUnitNumber: str(u.ShippingUnitNumber), ShippingTrackingNumber: str(u.ShippingTrackingNumber),
		OrderNumber: str(u.SalesOrder.get().OrderNumber),
		Status:      u.ShippingUnitStatus.model(),
		Weight:      u.Weight, Volume: u.Volume, CompletedAt: u.CompletedAt.Time, DeliveryDateTime: u.DeliveryDateTime.Time,
		CreatedAt: u.CreatedAt.Time, UpdatedAt: u.UpdatedAt.Time,
	}
	for i := range u.Events {
		ev := u.Events[i].model()
		if ev.ShippingUnitNumber == "" {
			ev.ShippingUnitNumber, ev.TrackingNumber = su.ShippingUnitNumber, su.ShippingTrackingNumber
		}
		if ev.OrderNumber == "" {
			ev.OrderNumber = su.OrderNumber
		}
		su.Events = append(su.Events, ev)
	}
	return su
}

// suHeadB is a shipping unit embedded in an event.
type suHeadB struct {
	ShippingUnitNumber     wText        `json:"shippingUnitNumber"`
	ShippingTrackingNumber wText        `json:"shippingTrackingNumber"`
	SalesOrder             ref[soHeadB] `json:"salesOrder"`
}

type eventB struct {
	docID
	ShippingUnit       ref[suHeadB]  `json:"shippingUnit"`
	OccurredAt         wTime         `json:"occurredAt"`
	Location           wText         `json:"location"`
	Latitude           model.Decimal `json:"latitude"`
	Longitude          model.Decimal `json:"longitude"`
	Message            wText         `json:"message"`
	StatusDetail       wText         `json:"statusDetail"`
	ShippingUnitStatus wStatus       `json:"shippingUnitStatus"`
	Severity           wInt          `json:"severity"`
	UpdatedAt          wTime         `json:"updatedAt"`
}

func (e *eventB) model() model.TrackingEvent {
	su := e.ShippingUnit.get()
	return model.TrackingEvent{
		ID: e.id(), ShippingUnitNumber: str(su.ShippingUnitNumber), TrackingNumber: str(su.ShippingTrackingNumber),
		OrderNumber: str(su.SalesOrder.get().OrderNumber),
		Status:      e.ShippingUnitStatus.model(),
		OccurredAt:  e.OccurredAt.Time, Location: str(e.Location), Latitude: e.Latitude, Longitude: e.Longitude,
		Message: str(e.Message), StatusDetail: str(e.StatusDetail), Severity: int(e.Severity), UpdatedAt: e.UpdatedAt.Time,
	}
}

// Stock movement.

// movementB is a stock movement with the owner, lot and expiry date on
// both sides.
type movementB struct {
	wMovement
	FromOwnerCode  wText `json:"fromOwnerCode"`
	FromLotNumber  wText `json:"fromLotNumber"`
	FromExpiryDate wTime `json:"fromExpiryDate"`
	ToOwnerCode    wText `json:"toOwnerCode"`
	ToLotNumber    wText `json:"toLotNumber"`
	ToExpiryDate   wTime `json:"toExpiryDate"`
}

func (m *movementB) model() model.Movement {
	mv := m.wMovement.model()
	mv.FromOwnerCode, mv.FromLotNumber, mv.FromExpiryDate = str(m.FromOwnerCode), str(m.FromLotNumber), m.FromExpiryDate.Time
	mv.ToOwnerCode, mv.ToLotNumber, mv.ToExpiryDate = str(m.ToOwnerCode), str(m.ToLotNumber), m.ToExpiryDate.Time
	return mv
}
