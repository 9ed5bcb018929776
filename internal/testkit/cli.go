package testkit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"filebridge/internal/config"
)

// PortalConfig is the head of a filebridge configuration for a test: the
// [journal] at journalPath and the portal main of edition at baseURL,
// company 42, with portalKeys (its token_env or token_file, timeouts...)
// one a line. The test appends its other tables (inboxes, outboxes,
// [server], [log]).
func PortalConfig(journalPath, edition, baseURL string, portalKeys ...string) string {
	return fmt.Sprintf("[journal]\npath = %q\n[portals.main]\nedition = %q\nbase_url = %q\ncompany = 42\n%s\n",
		journalPath, edition, baseURL, strings.Join(portalKeys, "\n"))
}

// LoadConfig writes dir/token (the simulator's "demo-token") and
// dir/config.toml: the journal dir/journal.db, the Edition A portal main
// at baseURL with its token from that file and portalKeys, then body; and
// loads it.
func LoadConfig(t testing.TB, dir, baseURL string, portalKeys []string, body string) *config.Config {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte("demo-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	toml := PortalConfig(filepath.Join(dir, "journal.db"), "A", baseURL, append([]string{`token_file = "token"`}, portalKeys...)...) + body
	file := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(file, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(file)
	if err != nil {
		t.Fatalf("loading the config: %v\n%s", err, toml)
	}
	return cfg
}
