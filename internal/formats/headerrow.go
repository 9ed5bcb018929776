package formats

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"filebridge/internal/model"
)

// titleRowsLooked is how many rows below the first one titleRows looks
// at for the header.
const titleRowsLooked = 10

// readHeaderRow reads the header row: the first non-empty row at or
// after the route's HeaderRow. The rows above it (a title, a date) are
// skipped, whatever they hold.
func readHeaderRow(src rowSource, opts Options) (int, []string, error) {
	for {
		row, cells, err := readRow(src)
		var re *rowError
		if row > 0 && row < opts.HeaderRow && (err == nil || errors.As(err, &re)) {
			continue
		}
		return row, cells, err
	}
}

// titleRows explains a header row that is not one (it names no key
// column) while a row below it does: a title above the header, which
// header_row skips. It returns "" otherwise, and when the route sets
// header_row (its choice stands). It reads the first rows again, which
// happens on such a file only.
func titleRows(ctx context.Context, r io.ReaderAt, size int64, name string, opts Options, header []string, src rowSource) string {
	if opts.NoHeader || opts.HeaderRow > 0 || looksLikeHeader(opts, header) {
		return ""
	}
	errStop := errors.New("found")
	found, n := 0, 0
	_, err := Rows(ctx, r, size, name, opts, func(row int, cells []string, _ string) error {
		if n++; n > titleRowsLooked {
			return errStop
		}
		if looksLikeHeader(opts, cloneCells(cells, true)) {
			found = row
			return errStop
		}
		return nil
	})
	if found == 0 || err != nil && !errors.Is(err, errStop) {
		return ""
	}
	what := "line"
	if _, ok := src.(*xlsxSource); ok {
		what = "row"
	}
	return fmt.Sprintf("the first %s is not the header row (it names none of the columns), %s %d looks like it: set header_row = %d on the route to skip the rows above it, or delete them",
		what, what, found, found)
}

// looksLikeHeader reports whether a row names the key column of the
// route's document type, or of any type of the edition (after the
// route's column renames).
func looksLikeHeader(opts Options, cells []string) bool {
	names := OurNames(cells, opts.Columns)
	if opts.Type == "" {
		_, err := detectType(opts.Edition, names)
		return err == nil
	}
	dt, err := model.LookupDocType(opts.Edition, opts.Type)
	if err != nil {
		return true // said elsewhere
	}
	spec, _ := model.SpecFor(opts.Edition, dt.Kind)
	key := model.NormalizeHeader(spec.Key)
	return slices.ContainsFunc(names, func(n string) bool { return model.NormalizeHeader(n) == key })
}
