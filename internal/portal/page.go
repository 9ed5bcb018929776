package portal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"filebridge/internal/model"
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
// "member", a bare array as a page without totals), each member straight
// into a W converted with conv. A page that is not valid JSON is an error
// as a whole; a member that does not fit W ends Members with Err.
func decodePage[W, M any](b []byte, conv func(*W) M) (page[M], error) {
	if p, ok := fastPage(b, conv); ok {
		return p, nil
	}
	// Something unusual in the envelope or the syntax: encoding/json
	// decides, member by member.
	raw, err := decodePageRaw(b)
	if err != nil {
		return page[M]{}, err
	}
	p := page[M]{TotalItems: raw.TotalItems, Next: raw.Next, HasView: raw.HasView}
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

// envelopeKeys and viewKeys are the names encoding/json matches in a page.
var (
	envelopeKeys = jsonKeys[envelope]()
	viewKeys     = jsonKeys[pageView]()
)

// fastPage reads a page in one pass; ok is false when anything is unusual
// (invalid JSON included), and the slow path decides.
func fastPage[W, M any](b []byte, conv func(*W) M) (p page[M], ok bool) {
	r := reader{b: b}
	p.TotalItems = -1
	if r.peek() == '[' {
		p.Members, p.Err, ok = fastMembers(&r, conv)
		return p, ok && r.end()
	}
	type list struct {
		set     bool // a non-null array
		members []M
		err     error
	}
	var hydra, plain list
	var env envelope // its totals and views
	readList := func(l *list) bool {
		if r.peek() == 'n' {
			*l = list{}
			return r.lit("null")
		}
		var ok bool
		l.members, l.err, ok = fastMembers(&r, conv)
		l.set = true
		return ok
	}
	readTotal := func(t **wInt) bool {
		if r.peek() == 'n' {
			*t = nil
			return r.lit("null")
		}
		if *t == nil {
			*t = new(wInt)
		}
		return r.wint(*t)
	}
	readView := func(v **pageView) bool {
		if r.peek() == 'n' {
			*v = nil
			return r.lit("null")
		}
		if *v == nil { // encoding/json fills the view of a repeated key again
			*v = new(pageView)
		}
		return r.object(func(k []byte) bool {
			switch string(k) {
			case "hydra:next":
				return r.atID(&(*v).HydraNext)
			case "next":
				return r.atID(&(*v).Next)
			}
			return r.other(k, viewKeys)
		})
	}
	ok = r.object(func(k []byte) bool {
		switch string(k) {
		case "hydra:member":
			return readList(&hydra)
		case "member":
			return readList(&plain)
		case "hydra:totalItems":
			return readTotal(&env.HydraTotal)
		case "totalItems":
			return readTotal(&env.Total)
		case "hydra:view":
			return readView(&env.HydraView)
		case "view":
			return readView(&env.View)
		}
		return r.other(k, envelopeKeys)
	})
	if !ok || !r.end() {
		return p, false
	}
	l := hydra
	if !l.set {
		l = plain
	}
	p.Members, p.Err = l.members, l.err
	p.TotalItems, p.Next, p.HasView = env.paging()
	return p, true
}

// fastMembers reads the members array at r. After a member that does not
// fit W the rest is only checked.
func fastMembers[W, M any](r *reader, conv func(*W) M) (out []M, merr error, ok bool) {
	var w W
	ok = r.array(func() bool {
		start := r.i
		if merr != nil {
			return r.skip()
		}
		w = *new(W)
		err, ok := decodeMember(r, &w)
		if !ok {
			return false
		}
		if err != nil {
			merr = fmt.Errorf("reading %s: %w", clip(string(r.b[start:r.i]), 80), err)
			return true
		}
		if out == nil {
			// Size the page from its first member.
			n := (len(r.b)-start)/max(r.i-start, 1) + 1
			out = make([]M, 0, min(n, model.MaxItemsPerPage))
		}
		out = append(out, conv(&w))
		return true
	})
	return out, merr, ok
}

// decodeMember reads the value at r into w, which is zero: fast when W
// reads itself, else (or when that fails) with encoding/json. ok is false
// when the value is not valid JSON.
func decodeMember[W any](r *reader, w *W) (err error, ok bool) {
	r.ws()
	start := r.i
	if f, fast := any(w).(fastDecoder); fast {
		if f.decodeFast(r) {
			return nil, true
		}
		*w = *new(W)
		r.i = start
	}
	if !r.skip() {
		return nil, false
	}
	err = json.Unmarshal(r.b[start:r.i], w)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return nil, false
	}
	return err, true
}

// decodeAs reads one document into a fresh W and converts it.
func decodeAs[W, M any](raw []byte, conv func(*W) M) (M, error) {
	var w W
	r := reader{b: raw}
	if err, ok := decodeMember(&r, &w); ok && err == nil && r.end() {
		return conv(&w), nil
	}
	w = *new(W)
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
