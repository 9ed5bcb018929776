package portal

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"filebridge/internal/model"
)

// RefKind names what a code refers to in the resolution cache.
type RefKind string

const (
	RefPartner        RefKind = "partner"         // supplier (A) / connection (B) code
	RefSKU            RefKind = "sku"             // SKU / variant code
	RefWarehouse      RefKind = "warehouse"       // B: warehouse code
	RefCarrier        RefKind = "carrier"         // B: carrier code
	RefCarrierService RefKind = "carrier_service" // B: carrier service code
)

// WarehouseClient is a warehouse available under the caller's contract
// (Edition B).
type WarehouseClient struct {
	ID            int64  `wire:"#"`
	ClientCode    string `wire:"clientCode"`
	WarehouseID   int64  `wire:"#warehouse"`
	WarehouseCode string `wire:"warehouse.code"`
	WarehouseName string `wire:"warehouse.name"`
}

// Carrier is an Edition B carrier.
type Carrier struct {
	ID                 int64  `wire:"#"`
	Code               string `wire:"code"`
	Name               string `wire:"name"`
	TransportationType string `wire:"mainTransportationType.code"` // when given
}

// CarrierService is an Edition B carrier service.
type CarrierService struct {
	ID          int64  `wire:"#"`
	Code        string `wire:"code"`
	Name        string `wire:"name"`
	CarrierID   int64  `wire:"#carrier"`
	CarrierCode string `wire:"carrier.code"`
}

// skuChunk is how many codes one code[] lookup carries.
const skuChunk = 100

// missTTL is how long a code found missing is believed missing.
const missTTL = 30 * time.Second

type refKey struct {
	kind RefKind
	code string
}

type refID struct {
	kind RefKind
	id   int64
}

// refCache maps codes to portal ids. Found ids are kept for the client's
// life; misses for missTTL. Whole lists (see load) are read once, and
// again only when a code or id misses after missTTL.
type refCache struct {
	mu     sync.RWMutex
	ids    map[refKey]int64
	misses map[refKey]time.Time // until
	codes  map[refID]string     // the ids' codes

	loading map[RefKind]*sync.Mutex // held while the kind's whole list is read

	listMu   sync.Mutex
	loaded   map[RefKind]time.Time // when the kind's whole list was last read
	services []CarrierService
	clients  []WarehouseClient    // the account's warehouse clients, for warehouseIDs
	known    map[RefKind][]string // codes of the reference lists, for messages
	now      func() time.Time
}

func newRefCache(now func() time.Time) *refCache {
	r := &refCache{ids: map[refKey]int64{}, misses: map[refKey]time.Time{}, codes: map[refID]string{},
		loading: map[RefKind]*sync.Mutex{}, loaded: map[RefKind]time.Time{}, known: map[RefKind][]string{}, now: now}
	for _, k := range []RefKind{RefPartner, RefSKU, RefWarehouse, RefCarrier, RefCarrierService} {
		r.loading[k] = new(sync.Mutex)
	}
	return r
}

func (r *refCache) get(k RefKind, code string) (id int64, missing bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if id, ok := r.ids[refKey{k, code}]; ok {
		return id, false
	}
	until, ok := r.misses[refKey{k, code}]
	return 0, ok && r.now().Before(until)
}

func (r *refCache) put(k RefKind, code string, id int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ids[refKey{k, code}] = id
	delete(r.misses, refKey{k, code})
	r.codes[refID{k, id}] = code
}

func (r *refCache) code(k RefKind, id int64) (string, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	s, ok := r.codes[refID{k, id}]
	return s, ok
}

func (r *refCache) miss(k RefKind, code string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.misses[refKey{k, code}] = r.now().Add(missTTL)
}

// Remember records the id of a document the caller just created (or knows
// otherwise), so that later references to its code resolve without a call.
func (c *Client) Remember(kind RefKind, code string, id int64) {
	if code != "" && id > 0 {
		c.refs.put(kind, code, id)
	}
}

// unresolved is the Invalid error of a reference that is not on the
// portal, on its column.
func (c *Client) unresolved(r Ref) *Error {
	msg := r.String() + " is not on the portal"
	switch {
	case r.Kind == RefPartner:
		what := c.wire.partners.what
		msg = fmt.Sprintf("%s %q is not on the portal: create the %s first or add it to a %s file", what, r.Code, what, what)
	case r.Kind == RefSKU:
		msg += ": create the SKU first or add it to a SKU file"
	case r.Scope == "":
		c.refs.listMu.Lock()
		known := slices.Clone(c.refs.known[r.Kind])
		c.refs.listMu.Unlock()
		if len(known) > 0 {
			slices.Sort(known)
			msg += ": use one of " + strings.Join(slices.Compact(known), ", ")
		} else {
			msg += fmt.Sprintf(": the portal lists no %s for this account", strings.ReplaceAll(string(r.Kind), "_", " "))
		}
	}
	return &Error{Class: Invalid, Violations: []Violation{{Field: r.Field, Message: msg}}}
}

// resolve returns the id of what r refers to.
func (c *Client) resolve(ctx context.Context, r Ref) (int64, error) {
	switch r.Kind {
	case RefPartner:
		return c.resolvePartner(ctx, r.Code, r.Field)
	case RefSKU:
		return c.resolveSKU(ctx, r.Code)
	case RefWarehouse, RefCarrier:
		return c.resolveRef(ctx, r.Kind, r.Field, r.Code)
	case RefCarrierService:
		return c.resolveService(ctx, r.Code, r.Scope)
	}
	return 0, fmt.Errorf("resolving %s %q: unknown kind %q", r.Field, r.Code, r.Kind)
}

// resolveAll resolves the references of hs that have a code and no id yet
// into their ids; a code not on the portal is gathered in refs.
func (c *Client) resolveAll(ctx context.Context, refs *refErrors, hs []headerRef) error {
	for _, h := range hs {
		if *h.id != 0 || h.Code == "" {
			continue
		}
		id, err := c.resolve(ctx, h.Ref)
		if err := refs.add(err); err != nil {
			return err
		}
		*h.id = id
	}
	return nil
}

// resolveRefs is resolveAll with an error naming every code not on the
// portal.
func (c *Client) resolveRefs(ctx context.Context, hs []headerRef) error {
	var refs refErrors
	if err := c.resolveAll(ctx, &refs, hs); err != nil {
		return err
	}
	return refs.err()
}

// ResolvePartner returns the id of the supplier (A) or connection (B)
// with this code.
func (c *Client) ResolvePartner(ctx context.Context, code string) (int64, error) {
	return c.resolvePartner(ctx, code, "supplierCode")
}

func (c *Client) resolvePartner(ctx context.Context, code, field string) (int64, error) {
	if id, missing := c.refs.get(RefPartner, code); id != 0 || missing {
		if missing {
			return 0, c.unresolved(Ref{Kind: RefPartner, Code: code, Field: field})
		}
		return id, nil
	}
	p, found, err := c.findPartner(ctx, code)
	if err != nil {
		return 0, fmt.Errorf("resolving %s %q: %w", field, code, err)
	}
	if !found {
		c.refs.miss(RefPartner, code)
		return 0, c.unresolved(Ref{Kind: RefPartner, Code: code, Field: field})
	}
	c.refs.put(RefPartner, code, p.ID)
	return p.ID, nil
}

// ResolveSKUs returns the ids of SKU codes, looked up in batches with
// code[] (exact matches checked here; a deployment that ignores code[] is
// asked code by code with sku=). Codes not on the portal make an Invalid
// error naming each; the map then holds the codes that resolved.
func (c *Client) ResolveSKUs(ctx context.Context, codes []string) (map[string]int64, error) {
	out := make(map[string]int64, len(codes))
	var ask, missing []string
	seen := map[string]bool{}
	for _, code := range codes {
		if code == "" || seen[code] {
			continue
		}
		seen[code] = true
		id, miss := c.refs.get(RefSKU, code)
		switch {
		case id != 0:
			out[code] = id
		case miss:
			missing = append(missing, code)
		default:
			ask = append(ask, code)
		}
	}
	for chunk := range slices.Chunk(ask, skuChunk) {
		if err := c.lookupSKUs(ctx, chunk, out); err != nil {
			return out, fmt.Errorf("resolving SKUs: %w", err)
		}
		for _, code := range chunk {
			if _, ok := out[code]; !ok {
				c.refs.miss(RefSKU, code)
				missing = append(missing, code)
			}
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	e := &Error{Class: Invalid}
	for _, code := range missing {
		e.Violations = append(e.Violations, c.unresolved(Ref{Kind: RefSKU, Code: code, Field: "sku"}).Violations...)
	}
	return out, e
}

// lookupSKUs finds the chunk's codes on the portal and records them.
func (c *Client) lookupSKUs(ctx context.Context, chunk []string, out map[string]int64) error {
	want := make(map[string]bool, len(chunk))
	for _, code := range chunk {
		want[code] = true
	}
	if !c.ignored.Load() {
		q := encodeQuery(ItemFilter{Codes: chunk})
		ignored := false
		for it, err := range listAll(c, ctx, c.wire.items, q, listOpts{perPage: len(chunk)}) {
			if err != nil {
				return err
			}
			if !want[it.SKU] {
				// Not asked for: the deployment ignores code[].
				ignored = true
				break
			}
			out[it.SKU] = it.ID
			c.refs.put(RefSKU, it.SKU, it.ID)
		}
		if !ignored {
			return nil
		}
		c.ignored.Store(true)
		c.log.Warn("portal ignores the code[] filter of variants: looking SKUs up one by one", "path", c.paths[Variants])
	}
	for _, code := range chunk {
		if _, ok := out[code]; ok {
			continue
		}
		it, found, err := c.findItem(ctx, code)
		if err != nil {
			return err
		}
		if found {
			out[code] = it.ID
			c.refs.put(RefSKU, code, it.ID)
		}
	}
	return nil
}

// resolveSKU is ResolveSKUs of one code.
func (c *Client) resolveSKU(ctx context.Context, code string) (int64, error) {
	m, err := c.ResolveSKUs(ctx, []string{code})
	if err != nil {
		return 0, err
	}
	return m[code], nil
}

// ResolveWarehouse returns the id of a warehouse (Edition B) by its code,
// from the warehouse clients of the account.
func (c *Client) ResolveWarehouse(ctx context.Context, code string) (int64, error) {
	return c.resolveRef(ctx, RefWarehouse, "warehouseCode", code)
}

// ResolveCarrier returns the id of a carrier (Edition B) by its code.
func (c *Client) ResolveCarrier(ctx context.Context, code string) (int64, error) {
	return c.resolveRef(ctx, RefCarrier, "carrierCode", code)
}

// ResolveCarrierService returns the id of a carrier service (Edition B) by
// its code. A code several carriers use is an Invalid error: give the
// carrier code too (CreateOutbound does).
func (c *Client) ResolveCarrierService(ctx context.Context, code string) (int64, error) {
	return c.resolveService(ctx, code, "")
}

func (c *Client) resolveService(ctx context.Context, code, carrierCode string) (int64, error) {
	if err := c.serves(CarrierServices, "carrier services"); err != nil {
		return 0, err
	}
	cached, _ := c.refs.get(RefCarrierService, code)
	if cached != 0 && carrierCode == "" {
		return cached, nil
	}
	if _, err := c.resolveRef(ctx, RefCarrierService, "carrierServiceCode", code); err != nil && !IsInvalid(err) {
		return 0, err
	}
	c.refs.listMu.Lock()
	var match []CarrierService
	for _, s := range c.refs.services {
		if s.Code == code && (carrierCode == "" || s.CarrierCode == carrierCode) {
			match = append(match, s)
		}
	}
	c.refs.listMu.Unlock()
	switch {
	case len(match) == 1:
		return match[0].ID, nil
	case len(match) == 0 && cached != 0:
		return cached, nil
	case len(match) == 0:
		return 0, c.unresolved(Ref{Kind: RefCarrierService, Code: code, Scope: carrierCode, Field: "carrierServiceCode"})
	}
	var carriers []string
	for _, s := range match {
		carriers = append(carriers, s.CarrierCode)
	}
	return 0, &Error{Class: Invalid, Violations: []Violation{{Field: "carrierServiceCode",
		Message: fmt.Sprintf("carrier service %q exists for several carriers (%s): give carrierCode too", code, strings.Join(carriers, ", "))}}}
}

// resolveRef resolves a code of a reference list, loading the list when it
// was never loaded, or when the code misses and the list is older than
// missTTL.
func (c *Client) resolveRef(ctx context.Context, kind RefKind, field, code string) (int64, error) {
	if err := c.serves(WarehouseClients, "warehouse codes, carriers and carrier services"); err != nil {
		return 0, err
	}
	if id, _ := c.refs.get(kind, code); id != 0 {
		return id, nil
	}
	if err := c.load(ctx, kind, missTTL); err != nil {
		return 0, fmt.Errorf("resolving %s %q: %w", field, code, err)
	}
	if id, _ := c.refs.get(kind, code); id != 0 {
		return id, nil
	}
	return 0, c.unresolved(Ref{Kind: kind, Code: code, Field: field})
}

// anyAge is the maxAge of a list read once for the client's life.
const anyAge = time.Duration(math.MaxInt64)

// load reads the whole list of kind into the cache, unless it was read
// within maxAge (by another caller too, while this one waited for it).
func (c *Client) load(ctx context.Context, kind RefKind, maxAge time.Duration) error {
	mu := c.refs.loading[kind]
	mu.Lock()
	defer mu.Unlock()
	c.refs.listMu.Lock()
	at, ok := c.refs.loaded[kind]
	c.refs.listMu.Unlock()
	if ok && c.refs.now().Sub(at) < maxAge {
		return nil
	}
	var (
		known    []string // the codes of a reference list, for messages
		clients  []WarehouseClient
		services []CarrierService
		err      error
	)
	switch kind {
	case RefSKU:
		_, err = loadCodes(c, ctx, c.wire.items, RefSKU, model.MaxItemsPerPage, func(it model.Item) (string, int64) { return it.SKU, it.ID })
	case RefPartner:
		_, err = loadCodes(c, ctx, c.wire.partners, RefPartner, model.MaxItemsPerPage, func(p model.Partner) (string, int64) { return p.Code, p.ID })
	case RefWarehouse:
		known, err = loadCodes(c, ctx, warehouseClientsB, kind, 0, func(w WarehouseClient) (string, int64) {
			clients = append(clients, w)
			return w.WarehouseCode, w.WarehouseID
		})
	case RefCarrier:
		known, err = loadCodes(c, ctx, carriersB, kind, 0, func(cr Carrier) (string, int64) { return cr.Code, cr.ID })
	case RefCarrierService:
		count := map[string]int{}
		for s, lerr := range listAll(c, ctx, carrierServicesB, nil, all(0)) {
			if lerr != nil {
				return lerr
			}
			if s.Code != "" && s.ID != 0 {
				services = append(services, s)
				count[s.Code]++
				known = append(known, s.Code)
			}
		}
		for _, s := range services {
			if count[s.Code] == 1 {
				c.refs.put(RefCarrierService, s.Code, s.ID)
			}
		}
	}
	if err != nil {
		return err
	}
	c.refs.listMu.Lock()
	defer c.refs.listMu.Unlock()
	switch kind {
	case RefWarehouse:
		c.refs.clients = clients
	case RefCarrierService:
		c.refs.services = services
	}
	c.refs.known[kind] = known
	c.refs.loaded[kind] = c.refs.now()
	return nil
}

// loadCodes lists a reference list into the cache under kind, in pages of
// perPage (0: the configured size), each document by the code and id key
// returns; it returns the codes.
func loadCodes[M any](c *Client, ctx context.Context, d docWire[M], kind RefKind, perPage int, key func(M) (string, int64)) ([]string, error) {
	var known []string
	for m, err := range stableList(c, ctx, d, nil, all(perPage), func(m M) string { code, _ := key(m); return code }) {
		if err != nil {
			return nil, err
		}
		if code, id := key(m); code != "" && id != 0 {
			c.refs.put(kind, code, id)
			known = append(known, code)
		}
	}
	return known, nil
}

// SKUOf returns the SKU of a variant id (see codeOf). Lists whose lines
// carry the variant as a bare id (Edition A receptions and orders, Edition
// B sales orders) are completed with it.
func (c *Client) SKUOf(ctx context.Context, variantID int64) (string, error) {
	return c.codeOf(ctx, RefSKU, variantID)
}

// Partner returns the supplier (A) / connection (B) with this id, its ID
// and Code set (see codeOf).
func (c *Client) Partner(ctx context.Context, id int64) (model.Partner, error) {
	code, err := c.codeOf(ctx, RefPartner, id)
	if err != nil {
		return model.Partner{}, err
	}
	return model.Partner{ID: id, Code: code}, nil
}

// codeOf returns the code of a variant (RefSKU) or connection (RefPartner)
// id: from the cache, else from the variant or connection list, read whole
// into the cache (see load). The documents list no item read (GET
// <variants>/<id>), so none is made: the list, in pages of the API's
// largest size, costs one request per 10,000 documents and answers every
// other id of the run as well. An id the portal does not list is an error
// IsNotFound reports.
func (c *Client) codeOf(ctx context.Context, k RefKind, id int64) (string, error) {
	r, noun, reading := Variants, "variant", fmt.Sprintf("reading the SKU of variant %d", id)
	if k == RefPartner {
		r, noun, reading = Connections, "connection", fmt.Sprintf("reading connection %d", id)
	}
	if s, ok := c.refs.code(k, id); ok {
		return s, nil
	}
	if id <= 0 {
		return "", &Error{Class: Invalid, Message: fmt.Sprintf("%s id %d is not a portal id: ids are positive", noun, id)}
	}
	if err := c.load(ctx, k, missTTL); err != nil {
		return "", fmt.Errorf("%s: %w", reading, err)
	}
	if s, ok := c.refs.code(k, id); ok {
		return s, nil
	}
	return "", &Error{Class: NotFound, Path: c.paths[r], Message: fmt.Sprintf("%s: the %s list does not hold it", reading, noun)}
}

// ForgetMisses drops the codes the client believes missing from the
// portal (kept for missTTL after a lookup found nothing) and when the
// whole lists were read, so that the next resolution asks the portal
// again. A replay calls it: an operator replays a file because a clerk has
// just created the missing SKU or supplier.
func (c *Client) ForgetMisses() {
	r := c.refs
	r.mu.Lock()
	clear(r.misses)
	r.mu.Unlock()
	r.listMu.Lock()
	clear(r.loaded)
	r.listMu.Unlock()
}
