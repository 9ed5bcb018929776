// Package redact takes secrets out of what filebridge shows: logs, error
// messages, `check`. It is the one place that knows where a URL carries
// a password.
package redact

import "net/url"

// URL is raw without its password: the one of the user info and a
// password query parameter (libpq's form). The user name stays, to say
// who logs in. A URL that does not parse is shown as "(unparsable URL)":
// it may hold a password where the parser could not find it.
func URL(raw string) string {
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
