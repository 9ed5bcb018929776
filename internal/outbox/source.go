package outbox

import (
	"context"
	"fmt"
	"iter"
	"strconv"
	"strings"
	"time"

	"filebridge/internal/formats/export"
	"filebridge/internal/model"
)

// Source lists what the exports read from a portal. The edition decides
// what each list means (see PortalSource); the runner only relies on the
// lists being complete for "at or after" the instant given (inclusive) and
// on each document carrying the timestamp its export follows.
type Source interface {
	// Receipts lists received receptions (A: status 80) or purchase orders
	// (B: status 80 and 75) updated at or after the instant.
	Receipts(ctx context.Context, updatedAfter time.Time) iter.Seq2[model.Inbound, error]
	// Shipments lists shipped orders (A: fulfillment status 80, by
	// updatedAt) or fulfillments (B: by createdAt).
	Shipments(ctx context.Context, after time.Time) iter.Seq2[model.Shipment, error]
	// Stock lists the stock of every SKU.
	Stock(ctx context.Context) iter.Seq2[model.Stock, error]
	// Movements lists stock movements created at or after the instant.
	Movements(ctx context.Context, createdAfter time.Time) iter.Seq2[model.Movement, error]
	// Tracking lists the shipping unit events of the shipping units updated
	// at or after the instant (B).
	Tracking(ctx context.Context, updatedAfter time.Time) iter.Seq2[model.TrackingEvent, error]
	// Items lists the variants updated at or after the instant (B).
	Items(ctx context.Context, updatedAfter time.Time) iter.Seq2[model.Item, error]
}

// doc is one listed document turned into export rows, with the key and
// timestamp the cursor follows.
type doc struct {
	key  string
	ts   time.Time
	rows []any
}

// cursored reports whether an export follows a cursor; stock is a full
// snapshot every time.
func cursored(t model.ExportType) bool { return t != model.ExportStock }

// docs lists the documents of an export type from after on, as rows, each
// with its cursor key (receipts: orderNumber; shipments: orderNumber (A) or
// fulfillmentNumber (B); movements: id, else a composite of its fields;
// tracking: event id; items: sku) and timestamp (updatedAt; createdAt for
// fulfillments and movements).
func docs(ctx context.Context, src Source, e model.Edition, t model.ExportType, after time.Time) (iter.Seq2[doc, error], error) {
	switch t {
	case model.ExportReceipts:
		return convert(src.Receipts(ctx, after), func(in model.Inbound) doc {
			return doc{key: in.OrderNumber, ts: in.UpdatedAt, rows: boxed(export.ReceiptRows(in))}
		}), nil
	case model.ExportShipments:
		return convert(src.Shipments(ctx, after), func(s model.Shipment) doc {
			if e == model.EditionA {
				// Orders whose fulfillment status is 80, following updatedAt.
				return doc{key: s.OrderNumber, ts: s.UpdatedAt, rows: boxed(export.ShipmentRows(s))}
			}
			// Fulfillments, following createdAt.
			key := s.FulfillmentNumber
			if key == "" {
				key = "#" + strconv.FormatInt(s.ID, 10)
			}
			return doc{key: key, ts: s.CreatedAt, rows: boxed(export.ShipmentRows(s))}
		}), nil
	case model.ExportStock:
		return convert(src.Stock(ctx), func(s model.Stock) doc {
			return doc{key: s.SKU, ts: s.UpdatedAt, rows: []any{export.StockRowOf(s)}}
		}), nil
	case model.ExportMovements:
		return convert(src.Movements(ctx, after), func(m model.Movement) doc {
			return doc{key: movementKey(m), ts: orTime(m.CreatedAt, m.MovedAt), rows: []any{export.MovementRowOf(m)}}
		}), nil
	case model.ExportTracking:
		return convert(src.Tracking(ctx, after), func(e model.TrackingEvent) doc {
			key := strconv.FormatInt(e.ID, 10)
			if e.ID == 0 {
				key = strings.Join([]string{e.ShippingUnitNumber, e.OccurredAt.UTC().Format(time.RFC3339Nano),
					strconv.Itoa(e.Status.Code), e.Message}, "|")
			}
			return doc{key: key, ts: orTime(e.UpdatedAt, e.OccurredAt), rows: []any{export.TrackingRowOf(e)}}
		}), nil
	case model.ExportItems:
		return convert(src.Items(ctx, after), func(it model.Item) doc {
			return doc{key: it.SKU, ts: it.UpdatedAt, rows: []any{export.ItemRowOf(it)}}
		}), nil
	}
	return nil, fmt.Errorf("export type %q is not known", t)
}

// orTime is t, or orElse when t is zero.
func orTime(t, orElse time.Time) time.Time {
	if t.IsZero() {
		return orElse
	}
	return t
}

// movementKey is the movement's id, or when the API gives none a composite
// of everything that tells two movements apart.
func movementKey(m model.Movement) string {
	if m.ID != 0 {
		return strconv.FormatInt(m.ID, 10)
	}
	day := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format(time.RFC3339Nano)
	}
	return strings.Join([]string{m.SKU, day(m.MovedAt), m.FromPosition, m.ToPosition,
		strconv.FormatInt(m.Quantity, 10), m.FromOwnerCode, m.FromLotNumber, m.ToOwnerCode, m.ToLotNumber,
		m.Comment}, "|")
}

func convert[T any](seq iter.Seq2[T, error], fn func(T) doc) iter.Seq2[doc, error] {
	return filterMap(seq, func(v T) (doc, bool, error) { return fn(v), true, nil })
}

// filterMap passes on what fn makes of the elements of seq it keeps (ok),
// and stops at the first error, of seq or of fn.
func filterMap[T, U any](seq iter.Seq2[T, error], fn func(T) (u U, ok bool, err error)) iter.Seq2[U, error] {
	return func(yield func(U, error) bool) {
		for v, err := range seq {
			var u U
			ok := false
			if err == nil {
				u, ok, err = fn(v)
			}
			if err != nil {
				yield(u, err)
				return
			}
			if ok && !yield(u, nil) {
				return
			}
		}
	}
}

func boxed[R any](rows []R) []any {
	out := make([]any, len(rows))
	for i, r := range rows {
		out[i] = r
	}
	return out
}
