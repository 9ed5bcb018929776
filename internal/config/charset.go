package config

import (
	"fmt"
	"strings"

	"golang.org/x/text/encoding/ianaindex"
)

// Canonical charset names.
const (
	CharsetUTF8        = "utf-8"
	CharsetWindows1252 = "windows-1252"
	CharsetLatin1      = "iso-8859-1"
)

// normCharset maps a charset name or alias (IANA registry: "latin1",
// "ISO_8859-1", "cp1252"...) to one of the canonical names filebridge reads
// and writes.
func normCharset(s string) (string, error) {
	n := strings.ToLower(strings.TrimSpace(s))
	switch n {
	case "utf8":
		return CharsetUTF8, nil
	case "cp1252", "win1252":
		return CharsetWindows1252, nil
	case "latin1", "latin-1", "l1", "iso8859-1":
		return CharsetLatin1, nil
	}
	if enc, err := ianaindex.IANA.Encoding(n); err == nil && enc != nil {
		if name, err := ianaindex.IANA.Name(enc); err == nil {
			switch c := strings.ToLower(name); c {
			case CharsetUTF8, CharsetWindows1252, CharsetLatin1:
				return c, nil
			}
		}
	}
	return "", fmt.Errorf("charset %q: use %q, %q or %q", s, CharsetUTF8, CharsetWindows1252, CharsetLatin1)
}
