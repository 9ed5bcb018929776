package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"filebridge/internal/model"
	"filebridge/internal/samples"
)

// partialRoutes send the P_* files of the orders type with policy partial;
// the sample routes (policy reject) follow.
var partialRoutes = map[string]string{
	"A": `
  [[inboxes.routes]]
  match = "P_ORDERS_*"
  type = "orders"
  policy = "partial"
`,
	"B": `
  [[inboxes.routes]]
  match = "P_SALES_ORDERS_*"
  type = "sales_orders"
  policy = "partial"
`,
}

// routes returns the routes of an edition's test inboxes.
func routes(edition string) string {
	return partialRoutes[edition] + samples.Routes(model.Edition(edition))
}

// inboxSpec is one [[inboxes]] table of a test config.
type inboxSpec struct {
	name  string
	url   string // a local path or sftp://...
	extra string // more keys (known_hosts, password_env, settle...)
}

// runConfig writes dir/config.toml for `filebridge run` against s, with
// fast polls and a short settle, and returns its path. listen is the
// metrics address ("" off).
func runConfig(t testing.TB, dir string, s *sim, listen string, inboxes ...inboxSpec) string {
	t.Helper()
	mustWrite(t, filepath.Join(dir, "token"), s.Token+"\n")
	var b strings.Builder
	fmt.Fprintf(&b, `[journal]
path = %q

[server]
listen = %q

[log]
level = "debug"
format = "json"

[portals.main]
edition = %q
base_url = %q
company = 42
token_file = "token"
concurrency = 8
max_retries = 10
retry_max_wait = "1s"
timeout = "10s"
`, filepath.Join(dir, "var", "filebridge.db"), listen, s.Edition, s.Base)
	for _, in := range inboxes {
		fmt.Fprintf(&b, `
[[inboxes]]
name = %q
portal = "main"
url = %q
retry_backoff = "300ms"
retry_backoff_max = "2s"
%s
%s
`, in.name, in.url, withDefaults(in.extra), routes(s.Edition))
	}
	path := filepath.Join(dir, "config.toml")
	mustWrite(t, path, b.String())
	return path
}

// withDefaults adds settle and poll to extra unless it sets them.
func withDefaults(extra string) string {
	if !strings.Contains(extra, "settle") {
		extra += "\nsettle = \"300ms\""
	}
	if !strings.Contains(extra, "poll") {
		extra += "\npoll = \"200ms\""
	}
	return extra
}
