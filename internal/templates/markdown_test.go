package templates

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
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

// Markdown is the column reference of every inbound document type of an
// edition, as docs/columns.md shows it: the same facts as the "columns" sheet
// of the XLSX templates.
func Markdown(e model.Edition) (string, error) {
	var b strings.Builder
	for _, dt := range model.DocTypes(e) {
		spec, err := Spec(e, dt)
		if err != nil {
			return "", err
		}
		name := "`" + dt.Name + "`"
		if len(dt.Aliases) > 0 {
			name += " (alias `" + strings.Join(dt.Aliases, "`, `") + "`)"
		}
		fmt.Fprintf(&b, "### %s, Edition %s\n\n", name, e)
		if dt.Grouped {
			b.WriteString("One row per line; the header fields are repeated on every row of an order and grouped by `orderNumber`.\n\n")
		}
		b.WriteString("| column | required | type | limit | example | description |\n|---|---|---|---|---|---|\n")
		for _, c := range Columns(spec) {
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", c.Name, cell(c.Required), cell(c.Type),
				cell(c.Limit), cell(c.Example), cell(c.Description))
		}
		b.WriteString("\n")
	}
	return b.String(), nil
}

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
