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
// "member", a bare array as a page without totals) with encoding/json,
// each member into a W converted with conv. A page that is not valid JSON
// is an error as a whole; a member that does not fit W ends Members with
// Err.
func decodePage[W, M any](b []byte, conv func(*W) M) (page[M], error) {
	if p, ok := decodeTyped(b, conv); ok {
		return p, nil
	}
	// A member that does not fit W (or a page that is not JSON): read
	// member by member, so that the members before it are kept.
	raw, err := decodePageRaw(b)
	if err != nil {
		return page[M]{}, err
	}
	p := page[M]{TotalItems: raw.TotalItems, Next: raw.Next, HasView: raw.HasView, Members: make([]M, 0, len(raw.Members))}
	for _, m := range raw.Members {
		v, err := decodeAs(m, conv)
		if err != nil {
			p.Err = err
			break
		}
		p.Members = append(p.Members, v)
	}
	return p, nil
}

// typedPage is a collection page in either envelope with its members
// decoded as W in the same pass.
type typedPage[W any] struct {
	HydraMember []W       `json:"hydra:member"`
	Member      []W       `json:"member"`
	HydraTotal  *wInt     `json:"hydra:totalItems"`
	Total       *wInt     `json:"totalItems"`
	HydraView   *pageView `json:"hydra:view"`
	View        *pageView `json:"view"`
}

// decodeTyped reads a page in one pass; ok is false on any error, and
// decodePage then reads it member by member.
func decodeTyped[W, M any](b []byte, conv func(*W) M) (page[M], bool) {
	b = bytes.TrimSpace(b)
	var ws []W
	p := page[M]{TotalItems: -1}
	if len(b) > 0 && b[0] == '[' {
		if json.Unmarshal(b, &ws) != nil {
			return p, false
		}
	} else {
		var tp typedPage[W]
		if json.Unmarshal(b, &tp) != nil {
			return p, false
		}
		ws = tp.HydraMember
		if ws == nil {
			ws = tp.Member
		}
		env := envelope{HydraTotal: tp.HydraTotal, Total: tp.Total, HydraView: tp.HydraView, View: tp.View}
		p.TotalItems, p.Next, p.HasView = env.paging()
	}
	p.Members = make([]M, len(ws))
	for i := range ws {
		p.Members[i] = conv(&ws[i])
	}
	return p, true
}

// decodeAs reads one document into a fresh W and converts it.
func decodeAs[W, M any](raw []byte, conv func(*W) M) (M, error) {
	var w W
	if err := json.Unmarshal(raw, &w); err != nil {
		var zero M
		return zero, fmt.Errorf("reading %s: %w", clip(string(bytes.TrimSpace(raw)), 80), err)
	}
	return conv(&w), nil
}

// PageResult is one page of a collection, its members undecoded.
type PageResult struct {
	Members    []json.RawMessage
	TotalItems int64  // -1 when the page does not say
	Next       string // the view's next page, "" when none
	HasView    bool   // the page carries a view (so a missing Next means last page)
}

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

// paging returns the total (-1 when the page does not say) and the next
// page of the view, the "hydra:" names first.
func (e *envelope) paging() (total int64, next string, hasView bool) {
	total = -1
	switch {
	case e.HydraTotal != nil:
		total = int64(*e.HydraTotal)
	case e.Total != nil:
		total = int64(*e.Total)
	}
	v := e.HydraView
	if v == nil {
		v = e.View
	}
	if v != nil {
		hasView, next = true, v.HydraNext
		if next == "" {
			next = v.Next
		}
	}
	return total, next, hasView
}

// pageView is the "hydra:view" (or "view") of a page.
type pageView struct {
	HydraNext string `json:"hydra:next"`
	Next      string `json:"next"`
}

// decodePageRaw reads a collection page with encoding/json, its members
// kept raw; a bare JSON array is accepted as a page without totals.
func decodePageRaw(b []byte) (PageResult, error) {
	b = bytes.TrimSpace(b)
	var p PageResult
	p.TotalItems = -1
	if len(b) > 0 && b[0] == '[' {
		if err := json.Unmarshal(b, &p.Members); err != nil {
			return p, fmt.Errorf("reading collection: %w", err)
		}
		return p, nil
	}
	var env envelope
	if err := json.Unmarshal(b, &env); err != nil {
		return p, fmt.Errorf("reading collection: %w", err)
	}
	p.Members = env.HydraMember
	if p.Members == nil {
		p.Members = env.Member
	}
	p.TotalItems, p.Next, p.HasView = env.paging()
	return p, nil
}
