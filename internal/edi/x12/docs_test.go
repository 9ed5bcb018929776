package x12

import (
	"flag"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"filebridge/internal/templates/gentest"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/edi-x12.md")

// TestDocsUpToDate checks that docs/edi-x12.md is generated from the
// mapping tables, so the document a partner's EDI analyst reads never
// drifts from what filebridge does.
func TestDocsUpToDate(t *testing.T) {
	var b strings.Builder
	b.WriteString("# X12 mappings\n\n" +
		"Generated from the mapping tables of `internal/edi/x12` (`go test ./internal/edi/x12 -update-docs`).\n" +
		"Each inbound transaction set becomes rows of the route's document type: one row per line item, " +
		"the header values repeated, then read like a CSV file with these columns (see columns.md). " +
		"A column the portal's edition lacks is left out. A value met twice for one column keeps the first.\n\n")
	var ids []string
	for id := range Tables {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		b.WriteString(Tables[id].Markdown())
		b.WriteString("\n")
	}
	gentest.UpToDate(t, filepath.Join("..", "..", "..", "docs", "edi-x12.md"), b.String(), *updateDocs, "go test ./internal/edi/x12 -update-docs")
}
