package portal

import (
	"context"
	"errors"
	"fmt"
)

// ErrNoKey says a document has no key the portal can be searched by: a
// create of it whose outcome is unknown cannot be settled by a look-up.
var ErrNoKey = errors.New("the document has no key the portal can be searched by")

// Prepared is a document whose references are resolved (PrepareInbound
// and friends): Create posts it, Settle looks it up by its key and posts
// nothing.
type Prepared struct {
	c      *Client
	create func(ctx context.Context) (Outcome, error)
	// lookup is the create whose document Settle searches; false when
	// the document cannot be on the portal (a SKU its lines would create
	// first is not there).
	lookup func(ctx context.Context) (createOp, bool, error)
}

// prepared is a document with nothing to create before it: op, posted
// by create.
func (c *Client) prepared(op createOp, create func(ctx context.Context) (Outcome, error)) Prepared {
	return Prepared{c: c, create: create, lookup: func(context.Context) (createOp, bool, error) { return op, true, nil }}
}

// Create posts the document (creating first the SKUs its lines carry and
// the portal lacks). A lost answer is never blindly resent: the document
// is looked up by its key first.
func (p Prepared) Create(ctx context.Context) (Outcome, error) { return p.create(ctx) }

// Settle looks the document up by its key without creating anything (nor
// the SKUs its lines would create). It serves documents whose earlier
// create may have reached the portal (a crash while it was in flight).
//
// found and no error: the document is on the portal with the file's
// values (out.Existed). found and a Conflict error: it is there with
// other values. Not found and no error: it was never created, send it.
// ErrNoKey: it cannot be looked up. Any other error: the look-up itself
// failed.
func (p Prepared) Settle(ctx context.Context) (out Outcome, found bool, err error) {
	op, ok, err := p.lookup(ctx)
	if err != nil || !ok {
		return Outcome{}, false, err
	}
	if op.key == "" || op.find == nil {
		return Outcome{}, false, fmt.Errorf("looking %s up: %w", op.what, ErrNoKey)
	}
	out, found, err = p.c.settle(ctx, op, nil)
	switch {
	case err == nil:
		return out, found, nil
	case IsConflict(err) && out.ID != 0:
		return out, true, err
	}
	return Outcome{}, false, err
}
