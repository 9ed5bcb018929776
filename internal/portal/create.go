package portal

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Outcome is the result of a create.
type Outcome struct {
	ID int64 // the document's portal id
	// Existed: the document was already on the portal (a resend after a
	// lost answer, or a file submitted again) with the file's values.
	Existed bool
}

// createOp is one create: where it goes, its body, and how to look the
// document up by its unique key when the outcome is unknown or the key is
// refused as already used.
type createOp struct {
	docKind
	key  string // the unique key's value; "" when the portal numbers it
	body any
	// find looks the document up by key: its id and how it differs from
	// the file's document.
	find func(ctx context.Context) (id int64, diffs []Violation, found bool, err error)
}

// create posts op.body. A lost answer (no response after sending, 5xx) is
// never blindly resent: the document is first looked up by its key. A key
// refused as existing is looked up too: equal means already done,
// different is a Conflict.
func (c *Client) create(ctx context.Context, op createOp) (Outcome, error) {
	if op.key == "" || op.find == nil {
		return c.post(ctx, op)
	}
	// Two files carrying the same document (released from a hold
	// together, say) create it once: the second waits for the first and
	// then finds it instead of posting it again.
	return c.created.once([]string{string(op.res) + " " + op.key},
		func() (Outcome, bool, error) { return c.settle(ctx, op, nil) },
		func() (Outcome, error) { return c.post(ctx, op) })
}

// post sends op's create; see create.
func (c *Client) post(ctx context.Context, op createOp) (Outcome, error) {
	buf, err := encodeBody(op.body)
	if err != nil {
		return Outcome{}, err
	}
	defer releaseBody(buf)
	var (
		cr      docID
		settled *Outcome // found by key after an unknown outcome
	)
	err = c.send(ctx, request{method: http.MethodPost, path: c.paths[op.res], body: buf.Bytes(), out: &cr,
		doing: func() string { return fmt.Sprintf("creating %s %q", op.what, op.key) },
		unknown: func(ctx context.Context, e *Error) (bool, error) {
			if op.key == "" || op.find == nil {
				e.Message = fmt.Sprintf("no answer after sending %s without a key: it may have been created; check the portal before sending it again (%s)", op.what, e.Message)
				return true, e
			}
			out, found, serr := c.settle(ctx, op, nil)
			if serr != nil || found {
				settled = &out
				return true, serr
			}
			c.log.Info("portal create unanswered and not found: sending again", "what", op.what, "key", op.key)
			return false, nil
		}})
	switch e, isErr := asError(err); {
	case settled != nil:
		return *settled, err
	case err == nil:
		if id := cr.id(); id != 0 || op.find == nil || op.key == "" {
			return Outcome{ID: id}, nil
		}
		return c.createdID(ctx, op)
	case isErr && c.duplicate(e, op):
		out, found, serr := c.settle(ctx, op, e)
		if serr != nil || found {
			return out, serr
		}
	}
	return Outcome{}, err
}

// createdID finds the id of a document this call created when the answer
// carries none (the documents list no id in the answers of some creates):
// it is looked up by its key, and counted as created, whatever the look-up
// says of its values, since the portal just accepted them. A list that
// shows no id either leaves the outcome's ID 0: created, id unknown.
func (c *Client) createdID(ctx context.Context, op createOp) (Outcome, error) {
	id, _, found, err := op.find(ctx)
	switch {
	case err != nil:
		return Outcome{}, fmt.Errorf("%s %q was created but the answer carried no id, and looking it up by its key failed: %w", op.what, op.key, err)
	case !found:
		return Outcome{}, &Error{Class: Transient, Method: http.MethodPost, Path: c.paths[op.res],
			Message: fmt.Sprintf("%s %q was created but the answer carried no id, and the list does not show it yet: it is looked up again before anything is resent", op.what, op.key)}
	}
	return Outcome{ID: id}, nil
}

// settle looks a document up by its key: found and equal is Existed,
// found and different a Conflict listing the differing fields.
func (c *Client) settle(ctx context.Context, op createOp, refused *Error) (Outcome, bool, error) {
	id, diffs, found, err := op.find(ctx)
	if err != nil {
		return Outcome{}, false, fmt.Errorf("checking whether %s %q is on the portal: %w", op.what, op.key, err)
	}
	if !found {
		return Outcome{}, false, nil
	}
	if len(diffs) == 0 {
		return Outcome{ID: id, Existed: true}, true, nil
	}
	e := &Error{Class: Conflict, Method: http.MethodPost, Path: c.paths[op.res], Violations: diffs,
		Message: fmt.Sprintf("%s %q already exists on the portal with different values", op.what, op.key)}
	if refused != nil {
		e.Status = refused.Status
	}
	return Outcome{ID: id}, true, e
}

// duplicate reports whether a refusal says the document's key is taken:
// 409, or a violation on the key property saying it is already used.
func (c *Client) duplicate(e *Error, op createOp) bool {
	if op.find == nil || op.key == "" {
		return false
	}
	if e.Status == http.StatusConflict {
		return true
	}
	if e.Class != Invalid {
		return false
	}
	for _, v := range e.Violations {
		field := v.Field
		if i := strings.LastIndexByte(field, '.'); i >= 0 {
			field = field[i+1:]
		}
		if slices.Contains(op.keys, field) && saysTaken(v.Message) {
			return true
		}
	}
	return len(e.Violations) == 0 && saysTaken(e.Message)
}

// saysTaken recognises the uniqueness messages of API Platform and friends.
func saysTaken(msg string) bool {
	m := strings.ToLower(msg)
	return slices.ContainsFunc([]string{"already used", "already exists", "already taken", "already in use", "duplicate", "unique"},
		func(s string) bool { return strings.Contains(m, s) })
}

// createOf is the create of m as the edition's table describes its kind;
// key is the value of its unique key, find looks the document up by it.
func createOf[M any](c *Client, d docWire[M], key string, m M, find func(ctx context.Context) (int64, []Violation, bool, error)) createOp {
	return createOp{docKind: d.docKind, key: key, body: d.body(c.cfg.Company, m), find: find}
}

// createAndRemember creates op and, once the document is on the portal,
// remembers its id as the reference of that kind with op's key.
func (c *Client) createAndRemember(ctx context.Context, op createOp, kind RefKind) (Outcome, error) {
	out, err := c.create(ctx, op)
	if err == nil {
		c.Remember(kind, op.key, out.ID)
	}
	return out, err
}

// refErrors gathers the violations of references that do not resolve, so
// that one error names them all.
type refErrors struct{ vs []Violation }

// add keeps an Invalid error's violations and returns any other error.
func (r *refErrors) add(err error) error {
	if err == nil {
		return nil
	}
	if e, ok := asError(err); ok && e.Class == Invalid && len(e.Violations) > 0 {
		r.vs = append(r.vs, e.Violations...)
		return nil
	}
	return err
}

// err is the Invalid error of every reference gathered, or nil.
func (r *refErrors) err() error {
	if len(r.vs) == 0 {
		return nil
	}
	return &Error{Class: Invalid, Violations: r.vs}
}
