// Package redact takes secrets out of what filebridge shows: logs, error
// messages, `check`. It is the one place that knows where a URL carries
// a password.
package redact

import (
	"net/url"
	"regexp"
	"strings"
)

// conninfoPassword is a password setting of a libpq keyword/value
// connection string: "password = value", the value bare (up to a space)
// or single-quoted with backslash escapes, as libpq reads it; in any case,
// since a misspelt keyword may still carry the secret.
var conninfoPassword = regexp.MustCompile(`(?i)(^|\s)password\s*=\s*('(?:[^'\\]|\\.)*'?|\S*)\s*`)

// URL is raw without its password: the one of the user info and a
// password query parameter (libpq's form). The user name stays, to say
// who logs in. A URL that does not parse is shown as "(unparsable URL)":
// it may hold a password where the parser could not find it. A libpq
// keyword/value string ("host=db user=fb password=...") is shown without
// its password setting.
func URL(raw string) string {
	if !strings.Contains(raw, "://") && strings.Contains(raw, "=") {
		return strings.TrimSpace(conninfoPassword.ReplaceAllString(raw, "$1"))
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	if q := u.Query(); q.Has("password") {
		q.Del("password")
		u.RawQuery = q.Encode()
	}
	return u.String()
}
