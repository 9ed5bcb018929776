package portalsim

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// fkind is the strategy of a collection filter, as in API Platform.
type fkind int

const (
	fExact   fkind = iota // name=v, name[]=v1&name[]=v2
	fPartial              // case-insensitive substring
	fDate                 // name[before|strictly_before|after|strictly_after]
	fOrder                // order[name]=asc|desc
)

// filterDef is one filter of a collection.
type filterDef struct {
	name string
	kind fkind
	iri  bool // exact: values may be IRIs, compared by their last segment
	str  func(doc) string
	tm   func(doc) time.Time
	cmp  func(a, b doc) int // order
}

// paramRef says which filter a query variable feeds, and how.
type paramRef struct {
	f  int
	op string
}

// resource describes one collection of the edition.
type resource struct {
	name         Resource
	path, typ    string
	filters      []filterDef
	params       map[string]paramRef
	template     string
	mapping      []obj
	render       func(doc) obj
	create       func(body map[string]any) (doc, vset) // nil: read-only; runs under the write lock
	createStatus int
}

var dateOps = []string{"before", "strictly_before", "after", "strictly_after"}

// index builds the query variable table and the hydra:search description.
func (r *resource) index() {
	r.params = map[string]paramRef{}
	var vars []string
	add := func(v, prop string, ref paramRef) {
		r.params[v] = ref
		vars = append(vars, v)
		r.mapping = append(r.mapping, obj{{"@type", "IriTemplateMapping"}, {"variable", v}, {"property", prop}, {"required", false}})
	}
	for i, f := range r.filters {
		switch f.kind {
		case fExact, fPartial:
			add(f.name, f.name, paramRef{f: i})
			add(f.name+"[]", f.name, paramRef{f: i})
		case fDate:
			for _, op := range dateOps {
				add(f.name+"["+op+"]", f.name, paramRef{f: i, op: op})
			}
		case fOrder:
			add("order["+f.name+"]", f.name, paramRef{f: i, op: "order"})
		}
	}
	r.template = r.path + "{?" + strings.Join(vars, ",") + "}"
}

// query is a parsed collection request.
type query struct {
	page, perPage int
	pairs         [][2]string // every variable but page, in request order
	values        map[int][]string
	bounds        []bound
	orders        []order
}

type bound struct {
	f  int
	op string
	t  time.Time
}

type order struct {
	f    int
	desc bool
}

// parseQuery reads pagination and filters; unknown variables are ignored as
// API Platform does. The error is the message of a 400.
func (r *resource) parseQuery(raw string) (*query, error) {
	q := &query{page: 1, perPage: 30, values: map[int][]string{}}
	for _, part := range strings.Split(raw, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		k, err1 := url.QueryUnescape(k)
		v, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("malformed query string %q", part)
		}
		switch k {
		case "page":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("page must be an integer of at least 1, got %q", v)
			}
			q.page = n
			continue
		case "itemsPerPage":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > maxItemsPerPage {
				return nil, fmt.Errorf("itemsPerPage must be an integer from 0 to %d, got %q", maxItemsPerPage, v)
			}
			q.perPage = n
		}
		q.pairs = append(q.pairs, [2]string{k, v})
		ref, ok := r.params[k]
		if !ok {
			continue
		}
		f := r.filters[ref.f]
		switch f.kind {
		case fExact:
			if f.iri {
				v = lastSegment(v)
			}
			q.values[ref.f] = append(q.values[ref.f], v)
		case fPartial:
			q.values[ref.f] = append(q.values[ref.f], strings.ToLower(v))
		case fDate:
			t, err := parseWhen(v)
			if err != nil {
				return nil, fmt.Errorf("%s: %q is not a date-time (use RFC 3339, e.g. 2026-01-02T15:04:05+00:00)", k, v)
			}
			q.bounds = append(q.bounds, bound{f: ref.f, op: ref.op, t: t})
		case fOrder:
			switch strings.ToLower(v) {
			case "asc":
				q.orders = append(q.orders, order{f: ref.f})
			case "desc":
				q.orders = append(q.orders, order{f: ref.f, desc: true})
			}
		}
	}
	return q, nil
}

func lastSegment(v string) string {
	if i := strings.LastIndexByte(v, '/'); i >= 0 {
		return v[i+1:]
	}
	return v
}

// match reports whether d passes every filter of q.
func (r *resource) match(q *query, d doc) bool {
	for i, vals := range q.values {
		f := r.filters[i]
		got := f.str(d)
		ok := false
		if f.kind == fPartial {
			got = strings.ToLower(got)
			for _, v := range vals {
				ok = ok || strings.Contains(got, v)
			}
		} else {
			ok = slices.Contains(vals, got)
		}
		if !ok {
			return false
		}
	}
	for _, b := range q.bounds {
		t := r.filters[b.f].tm(d)
		if t.IsZero() {
			return false // null values are excluded from date bounds
		}
		var ok bool
		switch b.op {
		case "before":
			ok = !t.After(b.t)
		case "strictly_before":
			ok = t.Before(b.t)
		case "after":
			ok = !t.Before(b.t)
		case "strictly_after":
			ok = t.After(b.t)
		}
		if !ok {
			return false
		}
	}
	return true
}

// list serves GET /api/<res>.
func (s *Sim) list(w http.ResponseWriter, r *http.Request, res *resource) {
	q, err := res.parseQuery(r.URL.RawQuery)
	if err != nil {
		s.writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if s.isB() && s.ch.ItemsPerPage == "ignored" {
		q.perPage = 30
	}
	writeBody(w, http.StatusOK, s.page(res, q))
}

// page renders the page q asks for.
func (s *Sim) page(res *resource, q *query) []byte {
	if s.ch.MovingPages {
		s.mu.Lock() // the page read updates a document
		defer s.mu.Unlock()
	} else {
		s.mu.RLock()
		defer s.mu.RUnlock()
	}
	all := s.tables[res.name].items
	sel := all
	if len(q.values) > 0 || len(q.bounds) > 0 {
		sel = make([]doc, 0, min(len(all), 1024))
		for _, d := range all {
			if res.match(q, d) {
				sel = append(sel, d)
			}
		}
	}
	if orders := s.orderOf(res, q); len(orders) > 0 {
		sel = slices.Clone(sel)
		slices.SortStableFunc(sel, func(a, b doc) int {
			for _, o := range orders {
				c := res.filters[o.f].cmp(a, b)
				if o.desc {
					c = -c
				}
				if c != 0 {
					return c
				}
			}
			return cmp.Compare(a.meta().ID, b.meta().ID)
		})
	}
	total := len(sel)
	var page []doc
	from := (q.page - 1) * q.perPage
	if q.perPage > 0 && from < total {
		page = sel[from:min(from+q.perPage, total)]
	}
	members := make([]obj, len(page))
	for i, d := range page {
		members[i] = res.render(d)
	}
	body := appendJSON(make([]byte, 0, 512+len(page)*400), s.envelope(res, q, members, total))
	if s.ch.MovingPages && len(page) > 0 && from+len(page) < total {
		// The warehouse updates a document of the page just served.
		s.clock.touch(page[0].meta())
	}
	return body
}

// orderOf is the order of a list: the request's order[...] variables, else
// Choices.ListOrder: by id (none needed: tables hold documents by id), or
// by the timestamp the request bounds (updatedAt when it bounds none).
func (s *Sim) orderOf(res *resource, q *query) []order {
	if len(q.orders) > 0 || s.ch.ListOrder != "updatedAt" {
		return q.orders
	}
	name := "updatedAt"
	if len(q.bounds) > 0 {
		name = res.filters[q.bounds[0].f].name
	}
	for i, f := range res.filters {
		if f.kind == fOrder && f.name == name {
			return []order{{f: i}}
		}
	}
	for i, f := range res.filters {
		if f.kind == fOrder && f.name == "updatedAt" {
			return []order{{f: i}}
		}
	}
	return nil
}

// envelope wraps a page in the hydra (or prefix-less) collection envelope.
func (s *Sim) envelope(res *resource, q *query, members []obj, total int) obj {
	p := "hydra:"
	if s.plain {
		p = ""
	}
	view := obj{{"@id", pageIRI(res.path, q, q.page)}, {"@type", p + "PartialCollectionView"}}
	if q.perPage > 0 && (s.ch.HydraNext || res.name == ShippingUnits) {
		last := max(1, (total+q.perPage-1)/q.perPage)
		view = append(view, kv{p + "first", pageIRI(res.path, q, 1)}, kv{p + "last", pageIRI(res.path, q, last)})
		if q.page > 1 {
			view = append(view, kv{p + "previous", pageIRI(res.path, q, min(q.page-1, last))})
		}
		if q.page < last {
			view = append(view, kv{p + "next", pageIRI(res.path, q, q.page+1)})
		}
	}
	search := obj{{"@type", p + "IriTemplate"}, {p + "template", res.template}, {p + "variableRepresentation", "BasicRepresentation"}, {p + "mapping", res.mapping}}
	return obj{
		{"@context", "/api/contexts/" + res.typ},
		{"@id", res.path},
		{"@type", p + "Collection"},
		{p + "member", members},
		{p + "totalItems", total},
		{p + "view", view},
		{p + "search", search},
	}
}

// pageIRI is the IRI of a page: the request's variables with page replaced.
func pageIRI(path string, q *query, page int) string {
	var b strings.Builder
	b.WriteString(path)
	b.WriteByte('?')
	for _, kv := range q.pairs {
		b.WriteString(url.QueryEscape(kv[0]))
		b.WriteByte('=')
		b.WriteString(url.QueryEscape(kv[1]))
		b.WriteByte('&')
	}
	b.WriteString("page=")
	b.WriteString(strconv.Itoa(page))
	return b.String()
}

var longOffset = regexp.MustCompile(`([+-]\d\d:\d\d):\d\d$`)

// parseWhen reads a date-time as clients send it: RFC 3339, the
// "+00:00:00" variant, a '+' turned into a space by an unescaped query
// string, a naive time (UTC) or a date.
func parseWhen(v string) (time.Time, error) {
	v = strings.TrimSpace(v)
	if i := strings.IndexByte(v, 'T'); i > 0 {
		if j := strings.LastIndexByte(v, ' '); j > i {
			v = v[:j] + "+" + v[j+1:]
		}
	}
	v = longOffset.ReplaceAllString(v, "$1")
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02", "2006-01-02T15:04:05-0700", "2006-01-02T15:04:05-07"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date-time", v)
}
