package export

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"filebridge/internal/model"
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
	want := exportsDoc()
	if *updateDocs {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v (run go test ./internal/formats/export -update-docs)", path, err)
	}
	if string(got) != want {
		t.Errorf("%s is out of date: run go test ./internal/formats/export -update-docs", path)
	}
}
