package portal

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"golang.org/x/net/html"

	"filebridge/internal/model"
)

// Class says what a caller should do about a failed call.
type Class int

const (
	// Invalid: the portal refused the document (or a reference in it does
	// not resolve). Report it on the document's rows; never retry.
	Invalid Class = iota + 1
	// Auth: the token was refused (401/403). Pause the whole portal.
	Auth
	// Transient: network trouble, 5xx or 429 that outlived the retry
	// budget, or an outcome that could not be checked. Try again later.
	Transient
	// Conflict: a document with the same key exists with different values.
	Conflict
	// NotFound: the path does not exist (404).
	NotFound
)

func (c Class) String() string {
	if k, ok := classes[c]; ok {
		return k.name
	}
	return fmt.Sprintf("class(%d)", int(c))
}

// Violation is one field the portal (or the client, for a reference that
// does not resolve, or a conflicting value) objects to. Field is an API
// field name or a file column such as "sku" or "supplierCode".
type Violation struct {
	Field   string
	Message string
}

// Error is a failed portal call. It never carries the token.
type Error struct {
	Class      Class
	Status     int // HTTP status; 0 when no response was read
	Violations []Violation
	Message    string
	Method     string
	Path       string // relative to the base URL, without the query
	// Err is the underlying cause (network error, context error), if any.
	Err error
	// proxy marks a message read from a non-JSON (HTML) body.
	proxy bool
}

// Sentinels matched by errors.Is against an *Error's class.
var (
	ErrInvalid   = errors.New("portal: invalid document")
	ErrAuth      = errors.New("portal: token refused")
	ErrTransient = errors.New("portal: temporary failure")
	ErrConflict  = errors.New("portal: conflicting document")
	ErrNotFound  = errors.New("portal: not found")
)

// classes are the names String gives the classes and their sentinels.
var classes = map[Class]struct {
	name     string
	sentinel error
}{
	Invalid: {"invalid", ErrInvalid}, Auth: {"auth", ErrAuth}, Transient: {"transient", ErrTransient},
	Conflict: {"conflict", ErrConflict}, NotFound: {"not found", ErrNotFound},
}

// Is reports whether target is the sentinel of the error's class.
func (e *Error) Is(target error) bool { return target != nil && classes[e.Class].sentinel == target }

func (e *Error) Unwrap() error { return e.Err }

// Error reads "METHOD /path: 422 Unprocessable Entity: field: message; ...":
// what the portal answered, no advice (Hint gives it).
func (e *Error) Error() string {
	var b strings.Builder
	if e.Method != "" || e.Path != "" {
		b.WriteString(strings.TrimSpace(e.Method + " " + e.Path))
		b.WriteString(": ")
	}
	if e.Status > 0 {
		fmt.Fprintf(&b, "%d %s", e.Status, http.StatusText(e.Status))
	}
	sep := func() {
		if b.Len() > 0 && e.Status > 0 {
			b.WriteString(": ")
		}
	}
	switch {
	case len(e.Violations) > 0:
		sep()
		if e.Class == Conflict && e.Message != "" {
			b.WriteString(e.Message + ": ")
		}
		for i, v := range e.Violations {
			if i > 0 {
				b.WriteString("; ")
			}
			if v.Field != "" {
				b.WriteString(v.Field + ": ")
			}
			b.WriteString(v.Message)
		}
	case e.Message != "":
		if e.proxy {
			b.WriteString(" from proxy: ")
		} else {
			sep()
		}
		b.WriteString(e.Message)
	case e.Err != nil:
		sep()
		b.WriteString(e.Err.Error())
	case e.Status > 0:
		b.WriteString(" (empty response body)")
	}
	return b.String()
}

// IsInvalid reports whether err is a document the portal refused.
func IsInvalid(err error) bool { return errors.Is(err, ErrInvalid) }

// IsAuth reports whether the portal refused the token: pause the portal.
func IsAuth(err error) bool { return errors.Is(err, ErrAuth) }

// IsTransient reports whether err may go away by itself: retry later.
func IsTransient(err error) bool { return errors.Is(err, ErrTransient) }

// IsConflict reports whether a document with the same key but different
// values exists on the portal.
func IsConflict(err error) bool { return errors.Is(err, ErrConflict) }

// IsNotFound reports whether the portal answered 404.
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

// violations are those of an Invalid refusal, nil for any other error.
func violations(err error) []Violation {
	if e, ok := asError(err); ok && e.Class == Invalid {
		return e.Violations
	}
	return nil
}

// refusedOn reports whether err refuses a create with a violation on field
// (among others or not).
func refusedOn(err error, field string) bool {
	return slices.ContainsFunc(violations(err), func(v Violation) bool { return v.Field == field })
}

// refusedOnly reports whether err refuses a create for violations on field
// and on nothing else.
func refusedOnly(err error, field string) bool {
	vs := violations(err)
	return len(vs) > 0 && !slices.ContainsFunc(vs, func(v Violation) bool { return v.Field != field })
}

// maxErrorBody bounds how much of an error body is read.
const maxErrorBody = 64 << 10

// errorBody is every shape of error body the portal may send: API Platform
// 2.x (hydra:description + violations), 3.x (hydra:Error / ConstraintViolation
// with description/detail, hydra:title), RFC 7807 problem+json (title,
// detail, violations) and Symfony's plain {"message"} / {"error"}.
type errorBody struct {
	HydraDescription wText           `json:"hydra:description"`
	HydraTitle       wText           `json:"hydra:title"`
	Description      wText           `json:"description"`
	Detail           wText           `json:"detail"`
	Title            wText           `json:"title"`
	Message          wText           `json:"message"`
	Error            json.RawMessage `json:"error"`
	Violations       []struct {
		PropertyPath wText `json:"propertyPath"`
		Message      wText `json:"message"`
		Title        wText `json:"title"`
	} `json:"violations"`
}

// decodeError builds the *Error of a non-2xx response from its body, which
// may be JSON of any of the known shapes, HTML from a proxy, plain text,
// truncated or empty. It never panics.
func decodeError(status int, body []byte) *Error {
	e := &Error{Class: statusClass(status), Status: status}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return e
	}
	if trimmed[0] == '{' {
		var eb errorBody
		if err := json.Unmarshal(trimmed, &eb); err == nil {
			for _, v := range eb.Violations {
				msg := cmp.Or(str(v.Message), str(v.Title))
				e.Violations = append(e.Violations, Violation{Field: model.Clip(string(v.PropertyPath), 200), Message: model.Clip(msg, 500)})
			}
			e.Message = model.Clip(cmp.Or(str(eb.HydraDescription), str(eb.Description), str(eb.Detail), str(eb.Message),
				strings.TrimSpace(errorText(eb.Error)), str(eb.HydraTitle), str(eb.Title)), 500)
			if len(e.Violations) > 0 && e.Message != "" && coveredByViolations(e.Message, e.Violations) {
				e.Message = ""
			}
			return e
		}
	}
	e.proxy = trimmed[0] == '<'
	e.Message = model.Clip(plainText(trimmed), 200)
	return e
}

// statusClass maps a refused request's status to a class.
func statusClass(status int) Class {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return Auth
	case status == http.StatusNotFound:
		return NotFound
	case status == http.StatusConflict:
		return Conflict
	case status == http.StatusTooManyRequests || status == http.StatusRequestTimeout || status >= 500:
		return Transient
	}
	return Invalid
}

// errorText reads an "error" member that may be a string or an object
// with a message.
func errorText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s wText
	if json.Unmarshal(raw, &s) == nil {
		return string(s)
	}
	var o struct {
		Message wText `json:"message"`
	}
	if json.Unmarshal(raw, &o) == nil {
		return string(o.Message)
	}
	return ""
}

// coveredByViolations reports whether a description only repeats the
// violations ("field: message" lines), as API Platform's does.
func coveredByViolations(msg string, vs []Violation) bool {
	for _, line := range strings.Split(msg, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if !slices.ContainsFunc(vs, func(v Violation) bool { return strings.Contains(line, v.Message) }) {
			return false
		}
	}
	return true
}

// plainText is the text of an HTML or text body, without the content of
// <script> and <style>, its white space collapsed to single spaces.
func plainText(b []byte) string {
	z := html.NewTokenizer(bytes.NewReader(bytes.ToValidUTF8(b, []byte("?"))))
	var words []string
	skip := false
	for {
		switch z.Next() {
		case html.ErrorToken:
			return strings.Join(words, " ")
		case html.TextToken:
			if !skip {
				words = append(words, strings.Fields(string(z.Text()))...)
			}
		case html.StartTagToken:
			name, _ := z.TagName()
			skip = string(name) == "script" || string(name) == "style"
		case html.EndTagToken:
			skip = false
		}
	}
}
