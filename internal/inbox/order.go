package inbox

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"filebridge/internal/folder"
	"filebridge/internal/formats"
	"filebridge/internal/model"
)

// Order keeps the dependency order of the files of one portal across all
// its inboxes: a file is not started while a file of a kind it depends on
// (a lower model.Kind order: partners, items, packagings, inbound,
// outbound) is settling or waiting in an inbox of the portal, or claimed
// in its processing/ and not finished. One Order is shared by the inboxes
// of a portal; it is safe for concurrent use.
//
// Until every inbox registered with it has looked at its folder once, the
// Order blocks every file: a file dropped in a second inbox before the
// start must count. An inbox whose folder cannot be listed counts as
// looked at (it cannot tell, and must not stop the others for ever).
type Order struct {
	mu      sync.Mutex
	inboxes map[string]*pending
	// waiting are the wake-ups of the inboxes that wait for files of the
	// portal to finish (see wait): a finished file wakes those, not
	// every inbox of the portal.
	waiting map[*wakeup]struct{}
	// unlooked counts the inboxes not looked at yet, and kinds the files
	// of each kind order (> 0) in the inboxes' roots and claimed: blocker
	// answers from them without going through a thousand inboxes when
	// nothing blocks.
	unlooked int
	kinds    map[int]int
}

// pending is what one inbox has not finished, by kind order: files in the
// inbox root (settling, waiting for a marker, settled) and files claimed.
type pending struct {
	looked bool
	root   map[string]int // name -> kind order (0: type unknown)
	jobs   map[int64]jobKind
}

type jobKind struct {
	name  string
	order int
}

// NewOrder returns an Order with no inbox.
func NewOrder() *Order {
	return &Order{inboxes: map[string]*pending{}, kinds: map[int]int{}, waiting: map[*wakeup]struct{}{}}
}

// wakeup is how an inbox registered with an Order is woken: c is
// signalled when a file of the portal finished while the inbox waited.
type wakeup struct{ c chan struct{} }

// count adds delta to the files of kind order k (o.mu held).
func (o *Order) count(k, delta int) {
	if k > 0 {
		o.kinds[k] += delta
	}
}

// register adds an inbox and returns its wake-up, signalled while it
// waits (see wait) when a file of the portal finished (or stopped
// blocking), so that a deferred file is looked at again at once.
func (o *Order) register(inbox string) *wakeup {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.get(inbox)
	return &wakeup{c: make(chan struct{}, 1)}
}

// wait says whether the inbox of w waits for files of the portal to
// finish: it has deferred or held files, or a round under way that may
// defer some. Only waiting inboxes are woken, so a file finishing costs
// one wake-up per waiting inbox, not one per inbox of the portal.
func (o *Order) wait(w *wakeup, on bool) {
	o.mu.Lock()
	if on {
		o.waiting[w] = struct{}{}
	} else {
		delete(o.waiting, w)
	}
	o.mu.Unlock()
}

// setRoot replaces what the inbox root holds (after a listing). A file
// of a known kind gone without a claim (removed by hand) wakes the
// inboxes, as if it had finished.
func (o *Order) setRoot(inbox string, root map[string]int) {
	o.mu.Lock()
	p := o.get(inbox)
	gone := false
	for name, k := range p.root {
		if _, ok := root[name]; !ok && k > 0 {
			gone = true
		}
		o.count(k, -1)
	}
	for _, k := range root {
		o.count(k, 1)
	}
	o.look(p)
	p.root = root
	o.mu.Unlock()
	if gone {
		o.notify()
	}
}

// looked marks the inbox as looked at without changing its files (its
// folder could not be listed).
func (o *Order) looked(inbox string) {
	o.mu.Lock()
	o.look(o.get(inbox))
	o.mu.Unlock()
}

// claimed moves a name from the root to the claimed files.
func (o *Order) claimed(inbox, name string, id int64, order int) {
	o.mu.Lock()
	p := o.get(inbox)
	if k, ok := p.root[name]; ok {
		o.count(k, -1)
		delete(p.root, name)
	}
	if j, ok := p.jobs[id]; ok {
		o.count(j.order, -1)
	}
	p.jobs[id] = jobKind{name: name, order: order}
	o.count(order, 1)
	o.mu.Unlock()
}

// finished drops a claimed file (done, failed, or held for master data)
// and, when it ended (wake: not held), wakes the inboxes of the portal. A
// held file wakes nobody: two inboxes holding files would otherwise wake
// each other for ever.
func (o *Order) finished(inbox string, id int64, wake bool) {
	o.mu.Lock()
	p := o.get(inbox)
	if j, ok := p.jobs[id]; ok {
		o.count(j.order, -1)
		delete(p.jobs, id)
	}
	o.mu.Unlock()
	if wake {
		o.notify()
	}
}

// blocker returns a file the portal has not finished whose kind comes
// before order (its name and inbox, for the log), or "" when none does.
func (o *Order) blocker(order int) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	type cand struct {
		order       int
		inbox, name string
	}
	blocked := o.unlooked > 0
	for k, n := range o.kinds {
		blocked = blocked || (k < order && n > 0)
	}
	if !blocked {
		return ""
	}
	var found []cand
	for name, p := range o.inboxes {
		if !p.looked {
			return fmt.Sprintf("the first look at inbox %q", name)
		}
		for n, k := range p.root {
			if k > 0 && k < order {
				found = append(found, cand{k, name, n})
			}
		}
		for _, j := range p.jobs {
			if j.order > 0 && j.order < order {
				found = append(found, cand{j.order, name, j.name})
			}
		}
	}
	if len(found) == 0 {
		return ""
	}
	c := slices.MinFunc(found, func(a, b cand) int {
		return cmp.Or(cmp.Compare(a.order, b.order), cmp.Compare(a.inbox, b.inbox), cmp.Compare(a.name, b.name))
	})
	return fmt.Sprintf("%s (%s) in inbox %q", c.name, model.Kind(c.order), c.inbox)
}

func (o *Order) get(inbox string) *pending {
	p := o.inboxes[inbox]
	if p == nil {
		p = &pending{root: map[string]int{}, jobs: map[int64]jobKind{}}
		o.inboxes[inbox] = p
		o.unlooked++
	}
	return p
}

// look marks an inbox as looked at (o.mu held).
func (o *Order) look(p *pending) {
	if !p.looked {
		p.looked = true
		o.unlooked--
	}
}

func (o *Order) notify() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for w := range o.waiting {
		poke(w.c)
	}
}

// kindOrder is the dependency order of a document type of the edition (0:
// unknown).
func kindOrder(e model.Edition, docType string) int {
	if docType == "" {
		return 0
	}
	if dt, err := model.LookupDocType(e, docType); err == nil {
		return dt.Kind.Order()
	}
	return 0
}

// rootOrder is the dependency order of a file not claimed yet: its route's
// type (0 when the route does not name one: the type is only known once
// the header is read at the claim).
func (in *Inbox) rootOrder(name string) int {
	if r := in.route(name); r != nil {
		return kindOrder(in.edition, r.Type)
	}
	return 0
}

// rootType is the dependency order read from the header row of a file in
// the inbox root whose route names no type, for its size and mtime.
type rootType struct {
	size  int64
	mtime time.Time
	order int
}

// knownRootType returns the order detected earlier for the entry, if its
// size and mtime did not change since (in.mu held).
func (in *Inbox) knownRootType(e folder.Entry) (int, bool) {
	rt, ok := in.rootTypes[e.Name]
	if !ok || rt.size != e.Size || !rt.mtime.Equal(e.ModTime) {
		return 0, false
	}
	return rt.order, true
}

// detectRootTypes reads the header rows of local files whose route names
// no type, so that they count for the dependency order while they settle.
// A header not readable yet (a file still being written) counts as
// unknown and is read again at the next listing; SFTP files are not read
// before they are claimed.
func (in *Inbox) detectRootTypes(ctx context.Context, f folder.Folder, entries []folder.Entry, root map[string]int) {
	if in.cfg.Folder.IsSFTP() || len(entries) == 0 {
		return
	}
	for _, e := range entries {
		if ctx.Err() != nil || e.Size == 0 || e.Size > int64(in.cfg.MaxFileSize) {
			continue
		}
		rc, err := f.Open(ctx, e.Name)
		if err != nil {
			continue
		}
		order := 0
		if file, ok := rc.(*os.File); ok {
			opts := FormatOptions(in.edition, in.route(e.Name), int64(in.cfg.MaxFileSize))
			// A file that stopped filebridge is not read: it is claimed
			// and goes to error/.
			if end, err := in.beginRead(e.Name, e.Size); err == nil {
				if dt, err := formats.FileType(ctx, file, e.Size, e.Name, opts); err == nil {
					order = dt.Kind.Order()
				}
				end()
			}
		}
		_ = rc.Close()
		if order == 0 {
			continue
		}
		root[e.Name] = order
		in.mu.Lock()
		if in.rootTypes == nil {
			in.rootTypes = map[string]rootType{}
		}
		in.rootTypes[e.Name] = rootType{size: e.Size, mtime: e.ModTime, order: order}
		in.mu.Unlock()
	}
}
