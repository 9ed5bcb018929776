package templates

import (
	"flag"
	"path/filepath"
	"testing"

	"filebridge/internal/model"
	"filebridge/internal/templates/gentest"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/columns.md")

func TestColumnsDocUpToDate(t *testing.T) {
	want := "# Inbound file columns\n\n" +
		"Generated from the edition tables of `internal/model` (`go test ./internal/templates -update-docs`).\n" +
		"Headers match case-insensitively, ignoring spaces, `_`, `-` and `.`.\n\n"
	for _, e := range model.Editions {
		md, err := Markdown(e)
		if err != nil {
			t.Fatal(err)
		}
		want += "## Edition " + string(e) + "\n\n" + md
	}
	path := filepath.Join("..", "..", "docs", "columns.md")
	gentest.UpToDate(t, path, want, *updateDocs, "go test ./internal/templates -update-docs")
}
