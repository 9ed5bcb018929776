package model

import (
	"bytes"
	"encoding/json"
	"reflect"
	"time"
)

// The types of the declarations' request fields that encoding/json does
// not write as the API documents want.

// TimestampLayout is how an instant is sent: UTC with an explicit offset.
const TimestampLayout = "2006-01-02T15:04:05+00:00"

// Timestamp is an instant, sent in UTC with a "+00:00" offset.
type Timestamp time.Time

// IsZero reports an instant not given (omitted with omitzero).
func (t Timestamp) IsZero() bool { return time.Time(t).IsZero() }

// MarshalJSON writes "2006-01-02T15:04:05+00:00", null when zero.
func (t Timestamp) MarshalJSON() ([]byte, error) {
	return quotedTime(time.Time(t).UTC(), TimestampLayout), nil
}

// Date is a calendar date, sent "2006-01-02".
type Date time.Time

// IsZero reports a date not given (omitted with omitzero).
func (d Date) IsZero() bool { return time.Time(d).IsZero() }

// MarshalJSON writes "2006-01-02", null when zero.
func (d Date) MarshalJSON() ([]byte, error) {
	return quotedTime(time.Time(d), time.DateOnly), nil
}

// quotedTime is t in layout as a JSON string, null when t is zero.
func quotedTime(t time.Time, layout string) []byte {
	if t.IsZero() {
		return []byte("null")
	}
	return []byte(`"` + t.Format(layout) + `"`)
}

// Ref is a reference sent either as the id of an existing document or as
// a new document embedded in the request (New). Its columns are T's.
type Ref[T any] struct {
	ID  int64
	New *T
}

// IsZero reports a reference not given (omitted with omitzero).
func (r Ref[T]) IsZero() bool { return r.ID == 0 && r.New == nil }

// MarshalJSON writes the embedded document, else the id.
func (r Ref[T]) MarshalJSON() ([]byte, error) {
	if r.New == nil {
		return json.Marshal(r.ID)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // as the request around it
	if err := enc.Encode(r.New); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func (Ref[T]) embedded() reflect.Type { return reflect.TypeFor[T]() }

// embedder is a Ref of any T.
type embedder interface{ embedded() reflect.Type }
