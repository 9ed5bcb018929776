package export

import (
	"flag"
	"path/filepath"
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
