package portal

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// page is one page of a collection read into model documents.
type page[M any] struct {
	Members []M
	// Err is the first member that could not be read: Members are those
	// before it, and the list ends with Err.
	Err        error
	TotalItems int64  // -1 when the page does not say
	Next       string // the view's next page, "" when none
	HasView    bool   // the page carries a view (so a missing Next means last page)
}

// decodePage reads a collection page in either envelope ("hydra:member" or
// "member", a bare array as a page without totals), each member with one.
// A page that is not valid JSON is an error as a whole; a member that
// cannot be read ends Members with Err.
func decodePage[M any](b []byte, one func([]byte) (M, error)) (page[M], error) {
	raw, err := decodePageRaw(b)
	if err != nil {
		return page[M]{}, err
	}
	p := page[M]{TotalItems: raw.TotalItems, Next: raw.Next, HasView: raw.HasView, Members: make([]M, 0, len(raw.Members))}
	for _, m := range raw.Members {
		v, err := one(m)
		if err != nil {
			p.Err = err
			break
		}
		p.Members = append(p.Members, v)
	}
	return p, nil
}

// PageResult is one page of a collection, its members undecoded (its Err
// stays nil: no member is read).
type PageResult = page[json.RawMessage]

// envelope is a collection page in either form: JSON-LD ("hydra:member")
// or plain ("member").
type envelope struct {
	HydraMember []json.RawMessage `json:"hydra:member"`
	Member      []json.RawMessage `json:"member"`
	HydraTotal  *wInt             `json:"hydra:totalItems"`
	Total       *wInt             `json:"totalItems"`
	HydraView   *pageView         `json:"hydra:view"`
	View        *pageView         `json:"view"`
}

// pageView is the "hydra:view" (or "view") of a page.
type pageView struct {
	HydraNext string `json:"hydra:next"`
	Next      string `json:"next"`
}

// decodePageRaw reads a collection page, its members kept raw, and its
// paging (the "hydra:" names first; a total of -1 when the page does not
// say); a bare JSON array is accepted as a page without totals.
func decodePageRaw(b []byte) (PageResult, error) {
	b = bytes.TrimSpace(b)
	p := PageResult{TotalItems: -1}
	if len(b) > 0 && b[0] == '[' {
		if err := json.Unmarshal(b, &p.Members); err != nil {
			return p, fmt.Errorf("reading collection: %w", err)
		}
		return p, nil
	}
	var e envelope
	if err := json.Unmarshal(b, &e); err != nil {
		return p, fmt.Errorf("reading collection: %w", err)
	}
	p.Members = e.HydraMember
	if p.Members == nil {
		p.Members = e.Member
	}
	switch {
	case e.HydraTotal != nil:
		p.TotalItems = int64(*e.HydraTotal)
	case e.Total != nil:
		p.TotalItems = int64(*e.Total)
	}
	v := e.HydraView
	if v == nil {
		v = e.View
	}
	if v != nil {
		p.HasView, p.Next = true, v.HydraNext
		if p.Next == "" {
			p.Next = v.Next
		}
	}
	return p, nil
}
