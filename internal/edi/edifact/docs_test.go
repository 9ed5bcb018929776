package edifact

import (
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"filebridge/internal/templates/gentest"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/edi-edifact.md")

// TestDocsUpToDate checks that docs/edi-edifact.md is generated from the
// mapping tables, so the document a partner's EDI analyst reads never
// drifts from what filebridge does.
func TestDocsUpToDate(t *testing.T) {
	var b strings.Builder
	b.WriteString("# EDIFACT mappings\n\n" +
		"Generated from the mapping tables of `internal/edi/edifact` (`go test ./internal/edi/edifact -update-docs`).\n" +
		"The tables read EANCOM D.96A and D.01B alike (the segments and elements mapped here are the same in both). " +
		"Each inbound message becomes rows of the route's document type: one row per LIN, " +
		"the header values repeated, then read like a CSV file with these columns (see columns.md). " +
		"A column the portal's edition lacks is left out. A value met twice for one column keeps the first. " +
		"Element NAD08 is the 8th data element after the tag; NAD05-2 its 2nd component.\n\n")
	for _, tab := range Tables {
		b.WriteString(tab.Markdown())
		b.WriteString("\n")
	}
	b.WriteString("## Written\n\n" +
		"The exports written as EDIFACT (`format = \"edifact\"`): receipts as RECADV (one message per reception), " +
		"shipments as DESADV (one per fulfillment, or per order in Edition A), stock and movements as one INVRPT. " +
		"Each table says where a column of the export (see exports.md) lands; dates and times are UTC, " +
		"format 203 (CCYYMMDDHHMM) or 102 (CCYYMMDD).\n\n")
	for _, tab := range OutTables {
		b.WriteString(tab.Markdown())
		b.WriteString("\n")
	}
	gentest.UpToDate(t, filepath.Join("..", "..", "..", "docs", "edi-edifact.md"), b.String(), *updateDocs, "go test ./internal/edi/edifact -update-docs")
}
