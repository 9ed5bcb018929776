package main

import (
	"fmt"
	"strings"

	"filebridge/internal/model"
	"filebridge/internal/samples"
)

// demoConfig is the config.toml the demo writes: a real configuration of
// `filebridge run`, relative paths read from the demo folder.
func demoConfig(e model.Edition, baseURL, listen string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `# Written by "filebridge demo" (edition %s). It is a real configuration:
#     filebridge sim --edition %s --listen %s &
#     filebridge run --config config.toml
# Drop CSV or XLSX files into inbox/; exports appear in outbox/.

[journal]
path = "var/filebridge.db"

[server]
listen = %q

[log]
level = "info"
format = "text"

[portals.demo]
edition = %q
base_url = %q
company = 42
token_file = "token"
concurrency = 8
max_retries = 3
retry_max_wait = "5s"

[[inboxes]]
name = "demo"
portal = "demo"
url = "inbox"
poll = "2s"
settle = "500ms"
retry_backoff = "5s"
retry_backoff_max = "1m"
%s
[[outboxes]]
name = "demo-out"
portal = "demo"
url = "outbox"
`, e, e, strings.TrimPrefix(strings.TrimSuffix(baseURL, "/api"), "http://"), listen, e, baseURL, samples.Routes(e))
	for _, t := range model.ExportTypes(e) {
		schedule := "*/5 * * * *"
		if t == model.ExportStock {
			schedule = "0 2 * * *"
		}
		fmt.Fprintf(&b, `
  [[outboxes.exports]]
  type = %q
  schedule = %q
`, t, schedule)
	}
	return b.String()
}
