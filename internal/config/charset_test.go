package config

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// charsetSpelling finds the charset names the documentation shows: in
// `charset = "..."`, in backquotes or between '|' on a line about
// charsets.
var charsetSpelling = regexp.MustCompile(`(?i)\b(utf-?8|windows-?125\d|cp125\d|iso[-_]?8859-\d+|latin-?1)\b`)

// TestDocumentedCharsets: every charset spelling in README.md and
// config.toml.example is accepted on a route (iso-8859-1 was refused with
// a message recommending "iso-8859-1": the registry names Latin-1
// "ISO_8859-1:1987"), and so are the usual aliases.
func TestDocumentedCharsets(t *testing.T) {
	seen := map[string]bool{}
	for _, doc := range []string{"README.md", "config.toml.example"} {
		data, err := os.ReadFile(filepath.Join("..", "..", doc))
		if err != nil {
			t.Fatal(err)
		}
		for l := range strings.SplitSeq(string(data), "\n") {
			if strings.Contains(strings.ToLower(l), "charset") {
				for _, m := range charsetSpelling.FindAllString(l, -1) {
					seen[m] = true
				}
			}
		}
	}
	for _, want := range []string{"utf-8", "windows-1252", "iso-8859-1"} {
		if !seen[want] {
			t.Errorf("the documentation no longer shows %q: the test reads spellings from it", want)
		}
	}
	for _, alias := range []string{"UTF8", "cp1252", "latin1", "Latin-1", "ISO_8859-1", "ISO-8859-1", "iso8859-1", "l1", "csISOLatin1", "windows-1252", "Windows-1252"} {
		seen[alias] = true
	}
	want := map[string]string{"utf": CharsetUTF8, "win": CharsetWindows1252, "cp1": CharsetWindows1252, "iso": CharsetLatin1, "lat": CharsetLatin1, "l1": CharsetLatin1, "csi": CharsetLatin1}
	for s := range seen {
		t.Run(s, func(t *testing.T) {
			got, err := NormCharset(s)
			prefix := strings.ToLower(s)[:min(3, len(s))]
			if err != nil || got != want[prefix] {
				t.Errorf("NormCharset(%q) = %q, %v; want %q", s, got, err, want[prefix])
			}
			cfg := charsetConfig + "[[inboxes.routes]]\nmatch = \"*.csv\"\ncharset = \"" + s + "\"\n"
			c, err := Decode([]byte(cfg), t.TempDir())
			if err != nil {
				t.Fatalf("a route with charset %q: %v", s, err)
			}
			if got := c.Inboxes[0].Routes[0].Charset; got != want[prefix] {
				t.Errorf("route charset %q, want %q", got, want[prefix])
			}
		})
	}
	if _, err := NormCharset("utf-16"); err == nil || !strings.Contains(err.Error(), `use "utf-8", "windows-1252" or "iso-8859-1"`) {
		t.Errorf("utf-16: %v", err)
	}
}

// charsetConfig is a config with one inbox; a route is appended.
const charsetConfig = `
[portals.main]
edition = "A"
base_url = "http://127.0.0.1:8089/api/"
company = 7
token_file = "token"
[[inboxes]]
name = "drop"
portal = "main"
url = "drop"
`
