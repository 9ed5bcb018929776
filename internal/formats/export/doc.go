package export

import (
	"fmt"
	"strings"

	"filebridge/internal/model"
)

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
