package inbox

import (
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"filebridge/internal/config"
	"filebridge/internal/fixedwidth"
	"filebridge/internal/formats"
	"filebridge/internal/model"
)

// FormatOptions is the one mapping from an inbox route to the decoder's
// options; `validate` uses it too. A nil route means the defaults: header
// row, type detected from it, delimiter detected, UTF-8, decimal point,
// UTC. maxSize is the inbox's max_file_size (0: the decoder's default).
func FormatOptions(e model.Edition, r *config.Route, maxSize int64) formats.Options {
	o := formats.Options{Edition: e, MaxSize: maxSize}
	if r == nil {
		return o
	}
	o.Type = r.Type
	o.Format = r.Format
	o.Layout = fixedwidth.Layout{Fields: r.Layout, Record: r.RecordType}
	switch d := r.Delimiter; {
	case strings.EqualFold(d, "tab") || d == `\t`:
		o.Delimiter = '\t'
	case d != "":
		o.Delimiter, _ = utf8.DecodeRuneInString(d)
	}
	o.Charset = r.Charset
	o.DecimalComma = r.Decimal == ","
	o.DateLayout = r.DateLayout
	o.Location = r.Location
	o.Sheet = r.Sheet
	o.NoHeader = !r.Header
	o.HeaderRow = r.HeaderRow
	if o.NoHeader {
		o.Positions = slices.Clone(r.Positions)
	}
	o.Columns = maps.Clone(r.Columns)
	if len(r.Defaults) > 0 {
		o.Defaults = r.Constants()
	}
	o.Values = r.Values
	return o
}

// Done-marker suffixes: the writer creates NAME.done or NAME.ok once NAME
// is complete.
var markerSuffixes = []string{".done", ".ok"}

// isTemp reports whether a name is a temporary or hidden file that writers
// and editors leave while they work: *.part, *.tmp, .*, ~$* (Office lock
// files).
func isTemp(name string) bool {
	lower := strings.ToLower(name)
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "~$") ||
		strings.HasSuffix(lower, ".part") || strings.HasSuffix(lower, ".tmp")
}

// isMarker reports whether name is a done marker (NAME.done, NAME.ok).
func isMarker(name string) bool {
	lower := strings.ToLower(name)
	for _, s := range markerSuffixes {
		if strings.HasSuffix(lower, s) && len(name) > len(s) {
			return true
		}
	}
	return false
}

// markerNames are the names a done marker of name may have: NAME.done,
// NAME.DONE, NAME.ok, NAME.OK.
func markerNames(name string) []string {
	out := make([]string, 0, 2*len(markerSuffixes))
	for _, s := range markerSuffixes {
		out = append(out, name+s, name+strings.ToUpper(s))
	}
	return out
}

// markerOf returns the done marker of name present in names (name ->
// modification time), or "". A marker older than the file is left over from
// an earlier file of the same name (a crash between the claim and the
// marker's removal) and does not count.
func markerOf(name string, mtime time.Time, names map[string]time.Time) string {
	for _, cand := range markerNames(name) {
		if at, ok := names[cand]; ok && !at.Before(mtime) {
			return cand
		}
	}
	return ""
}

// splitExt splits "ORDERS.csv" into "ORDERS" and ".csv".
func splitExt(base string) (stem, ext string) {
	i := strings.LastIndexByte(base, '.')
	if i <= 0 {
		return base, ""
	}
	return base[:i], base[i:]
}

// reportNames are the report and rejected-rows names that go with a file
// named base: "ORDERS.csv" → "ORDERS.report.csv", "ORDERS.rejected.csv".
func reportNames(base string) (report, rejected string) {
	stem, _ := splitExt(base)
	return stem + ".report.csv", stem + ".rejected.csv"
}
