package templates

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"filebridge/internal/model"
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
	if *updateDocs {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v (run go test ./internal/templates -update-docs)", path, err)
	}
	if string(got) != want {
		t.Errorf("%s is out of date: run go test ./internal/templates -update-docs", path)
	}
}
