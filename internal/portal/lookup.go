package portal

import (
	"context"
	"errors"
	"fmt"
)

// ErrNoKey says a document has no key the portal can be searched by: a
// create of it whose outcome is unknown cannot be settled by a lookup.
var ErrNoKey = errors.New("the document has no key the portal can be searched by")

// errNotFound ends a create run in look-up mode when the document is not
// on the portal.
var errNotFound = errors.New("not on the portal")

// lookupOnly marks a context whose creates only look their document up.
type lookupOnly struct{}

// Lookup looks a document up by its key without creating anything: create
// is the document's create call (CreateOutbound and friends), run in a
// look-up mode where references are resolved as usual (a SKU that is
// missing means the document cannot exist), but where the document, and
// any SKU a line would create, is searched by its key instead of being
// posted. It serves documents whose earlier create may have reached the
// portal (a crash while it was in flight).
//
// found and no error: the document is on the portal with the file's
// values (out.Existed). found and a Conflict error: it is there with
// other values. Not found and no error: it was never created, send it.
// ErrNoKey: it cannot be looked up. Any other error: the look-up itself
// failed (or a reference does not resolve, as Invalid).
func (c *Client) Lookup(ctx context.Context, create func(context.Context) (Outcome, error)) (out Outcome, found bool, err error) {
	out, err = create(context.WithValue(ctx, lookupOnly{}, true))
	switch {
	case errors.Is(err, errNotFound):
		return Outcome{}, false, nil
	case err == nil:
		return out, true, nil
	case IsConflict(err) && out.ID != 0:
		return out, true, err
	}
	return Outcome{}, false, err
}

// lookingUp reports whether ctx is a Lookup's.
func lookingUp(ctx context.Context) bool {
	v, _ := ctx.Value(lookupOnly{}).(bool)
	return v
}

// lookup is create in look-up mode: the document is searched by its key,
// never posted.
func (c *Client) lookup(ctx context.Context, op createOp) (Outcome, error) {
	if op.key == "" || op.find == nil {
		return Outcome{}, fmt.Errorf("looking %s up: %w", op.what, ErrNoKey)
	}
	out, found, err := c.settle(ctx, op, nil)
	if err != nil {
		return out, err
	}
	if !found {
		return Outcome{}, fmt.Errorf("looking %s %q up: %w", op.what, op.key, errNotFound)
	}
	return out, nil
}
