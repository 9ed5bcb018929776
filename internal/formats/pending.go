package formats

import (
	"fmt"
	"slices"

	"filebridge/internal/model"
)

// pendingBatch is how many master-data documents wait together for their
// key check before they are handed on. Two batches wait: when one is full,
// the table slots of its keys are touched (see keySet.touch) and the batch
// before is checked, so that the misses of a batch overlap, and are over
// by the time it is checked.
const pendingBatch = 32

// docBatch is a batch of pending documents and the hashes of their keys.
type docBatch struct {
	docs   []pendingDoc
	hashes []uint64
}

func newDocBatch() docBatch {
	return docBatch{docs: make([]pendingDoc, 0, pendingBatch), hashes: make([]uint64, 0, pendingBatch)}
}

// pendingDoc is a master-data document built from its row whose key is not
// yet checked against the file's other keys. Entries are overwritten by the
// next batches, not cleared: at most two batches of documents stay reachable.
type pendingDoc struct {
	doc     Doc
	key     string // packaging: the key in the key set (SKU NUL code)
	sku     string // packaging: the variant's SKU
	row     int
	fromDef bool    // the key is the route's default
	issues  []Issue // the row's issues so far (buffer reused between batches)
	rows    int     // Summary.Rows once the row was read
}

// setKey is the key of the document in the key set.
func (p *pendingDoc) setKey() string {
	if p.key != "" {
		return p.key
	}
	return p.doc.Key
}

// queue adds the document of the current row to the batch, and checks and
// hands on the batch when it is full.
func (d *decoder) queue(doc Doc, sku string) error {
	b := &d.filling
	b.docs = b.docs[:len(b.docs)+1]
	p := &b.docs[len(b.docs)-1]
	// Field by field: doc has only these set, and p.doc.Issues stays nil.
	p.doc.Kind, p.doc.Key, p.doc.Rows = doc.Kind, doc.Key, doc.Rows
	switch {
	case doc.Item != nil:
		p.doc.Item = doc.Item
	case doc.Partner != nil:
		p.doc.Partner = doc.Partner
	case doc.Packaging != nil:
		p.doc.Packaging = doc.Packaging
	}
	p.row, p.rows = d.row, d.sum.Rows
	p.key = ""
	if d.kind == model.KindPackaging && doc.Key != "" {
		p.sku, p.key = sku, sku+"\x00"+doc.Key
	}
	var h uint64
	if doc.Key != "" {
		h = d.keys.hash(p.setKey())
	}
	b.hashes = append(b.hashes, h)
	p.fromDef = d.keyFi >= 0 && d.fromDef[d.keyFi]
	p.issues = append(p.issues[:0], d.issues...)
	if len(b.docs) < pendingBatch {
		return nil
	}
	d.keys.touch(b.hashes)
	if err := d.check(&d.waiting); err != nil {
		return err
	}
	d.filling, d.waiting = d.waiting, d.filling
	return nil
}

// flushPending checks and hands on every waiting document.
func (d *decoder) flushPending() error {
	if d.keys == nil { // grouped documents: no batches
		return nil
	}
	if err := d.check(&d.waiting); err != nil {
		return err
	}
	d.keys.touch(d.filling.hashes)
	return d.check(&d.filling)
}

// check checks the keys of a batch in file order and hands its documents
// on, emptying it. When fn fails, the summary counts the rows read up to
// that document's, as if the rows had been handed on one by one.
func (d *decoder) check(b *docBatch) error {
	batch, hashes := b.docs, b.hashes
	b.docs, b.hashes = b.docs[:0], b.hashes[:0]
	rows := d.sum.Rows
	for i := range batch {
		p := &batch[i]
		if p.doc.Key != "" {
			if first, dup := d.keys.addHash(p.setKey(), hashes[i], p.row); dup {
				what := label(d.lay.spec.Key)
				if d.kind == model.KindPackaging {
					what = fmt.Sprintf("packaging code of SKU %q", p.sku)
				}
				p.issues = append(p.issues, d.issueAt(p.row, d.keyFi, p.doc.Key,
					fmt.Sprintf("%s %q already appears %s: each one may appear only once in a file", what, p.doc.Key, d.where(first)),
					p.fromDef))
			}
		}
		doc := p.doc
		if len(p.issues) > 0 {
			doc.Issues = slices.Clone(p.issues)
		}
		d.sum.Rows = p.rows
		if err := d.emit(doc); err != nil {
			return err
		}
	}
	d.sum.Rows = rows
	return nil
}
