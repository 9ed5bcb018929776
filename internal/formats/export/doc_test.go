package export

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"filebridge/internal/model"
	"filebridge/internal/templates/gentest"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/exports.md")

// exportsDoc is the column reference of every export, both editions.
func exportsDoc() string {
	return "# Export column layouts\n\n" +
		"Generated from `internal/formats/export` (`go test ./internal/formats/export -update-docs`).\n" +
		"Header names are the first row of every CSV file and of the XLSX sheet.\n\n" +
		"## Edition A\n\n" + Markdown(model.EditionA) + "\n## Edition B\n\n" + Markdown(model.EditionB)
}

func TestExportsDocUpToDate(t *testing.T) {
	path := filepath.Join("..", "..", "..", "docs", "exports.md")
	gentest.UpToDate(t, path, exportsDoc(), *updateDocs, "go test ./internal/formats/export -update-docs")
}

// Markdown documents the column layout of every export of an edition as
// Markdown tables (one per export type), for the README and `templates`.
func Markdown(e model.Edition) string {
	var b strings.Builder
	for _, t := range model.ExportTypes(e) {
		s, err := For(t, e)
		if err != nil {
			continue
		}
		fmt.Fprintf(&b, "#### `%s` (Edition %s)\n\n| column | type | content |\n|---|---|---|\n", t, e)
		for _, c := range s.Columns {
			kind := c.Kind.String()
			if c.OmitEmpty {
				kind += ", empty when 0"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", c.Name, kind, c.Doc)
		}
		b.WriteString("\n")
	}
	return b.String()
}
