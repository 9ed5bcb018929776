package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"slices"

	"golang.org/x/text/encoding/charmap"
)

// table is a sample file being built: a header and rows of named values.
// The header is the columns the rows name, in the order they first name
// them.
type table struct {
	header []string
	rows   [][]string
}

// add appends a row given as name/value pairs; columns not given stay
// empty.
func (t *table) add(kv ...string) {
	t.rows = append(t.rows, make([]string, len(t.header)))
	for i := 0; i+1 < len(kv); i += 2 {
		j := slices.Index(t.header, kv[i])
		if j < 0 {
			j = len(t.header)
			t.header = append(t.header, kv[i])
			for r := range t.rows {
				t.rows[r] = append(t.rows[r], "")
			}
		}
		t.rows[len(t.rows)-1][j] = kv[i+1]
	}
}

// with returns a copy of head followed by kv: the header fields repeated on
// every row of a grouped document, then the row's own.
func with(head []string, kv ...string) []string {
	out := make([]string, 0, len(head)+len(kv))
	return append(append(out, head...), kv...)
}

// csvStyle is how a legacy system writes its CSV files.
type csvStyle struct {
	comma       rune
	crlf        bool
	bom         bool
	windows1252 bool
}

// encode writes the table as CSV in the given style.
func (t *table) encode(st csvStyle) ([]byte, error) {
	var buf bytes.Buffer
	if st.bom {
		buf.WriteString("\uFEFF")
	}
	w := csv.NewWriter(&buf)
	if st.comma != 0 {
		w.Comma = st.comma
	}
	w.UseCRLF = st.crlf
	if err := w.Write(t.header); err != nil {
		return nil, err
	}
	if err := w.WriteAll(t.rows); err != nil {
		return nil, err
	}
	if !st.windows1252 {
		return buf.Bytes(), nil
	}
	out, err := charmap.Windows1252.NewEncoder().Bytes(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("encoding as Windows-1252: %w", err)
	}
	return out, nil
}
