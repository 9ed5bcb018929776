package config

import (
	"fmt"
	"strings"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/ianaindex"
	"golang.org/x/text/encoding/unicode"
)

// Canonical charset names.
const (
	CharsetUTF8        = "utf-8"
	CharsetWindows1252 = "windows-1252"
	CharsetLatin1      = "iso-8859-1"
)

// charsetAliases are names the IANA registry does not know.
var charsetAliases = map[string]string{
	"utf8": CharsetUTF8, "cp1252": CharsetWindows1252, "win1252": CharsetWindows1252,
	"latin1": CharsetLatin1, "latin-1": CharsetLatin1, "l1": CharsetLatin1, "iso8859-1": CharsetLatin1,
}

// NormCharset maps a charset name or alias (IANA registry: "latin1",
// "ISO_8859-1", "cp1252"...) to one of the canonical names filebridge reads
// and writes. The encoding a name stands for decides, not the registry's
// own name for it (which for Latin-1 is "ISO_8859-1:1987").
func NormCharset(s string) (string, error) {
	n := strings.ToLower(strings.TrimSpace(s))
	if c, ok := charsetAliases[n]; ok {
		return c, nil
	}
	if enc, err := ianaindex.IANA.Encoding(n); err == nil && enc != nil {
		for _, c := range []struct {
			enc  encoding.Encoding
			name string
		}{{unicode.UTF8, CharsetUTF8}, {charmap.Windows1252, CharsetWindows1252}, {charmap.ISO8859_1, CharsetLatin1}} {
			if enc == c.enc {
				return c.name, nil
			}
		}
	}
	return "", fmt.Errorf("charset %q: use %q, %q or %q", s, CharsetUTF8, CharsetWindows1252, CharsetLatin1)
}
