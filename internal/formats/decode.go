package formats

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"filebridge/internal/model"
)

// decoder holds the state of one Decode call.
type decoder struct {
	ctx  context.Context
	file string
	opts Options
	src  rowSource
	lay  *layout
	p    parser
	kind model.Kind
	fn   func(Doc) error
	sum  Summary

	setters []setter
	keyFi   int  // index of the key field
	skuFi   int  // packaging: the variant's sku
	relFi   int  // partner: relationship
	isXLSX  bool // rows come from a workbook
	boxA    boxPair
	// hdrSetters are, per field, the setter of a header-level field that
	// the file (or a default) can fill, nil for other fields. lineSet are
	// the fields of the line and service levels with a setter that the file
	// (or a default) can fill, in field order.
	hdrSetters []setter
	lineSet    []boundField
	required   []int // the required fields
	boxItem    boxPair
	// fast is, per field, how doRow may convert a common cell without the
	// general parser (see fastKind).
	fast []fastKind

	// The current row.
	row     int
	cells   []string
	vals    []value
	set     []bool // non-empty (valid or not)
	bad     []bool // not valid
	fromDef []bool // value is the route's default
	issues  []Issue

	keys *keySet
	// Master data waiting for their key check: filling takes the rows,
	// waiting is the batch before (see pendingBatch).
	filling, waiting docBatch
	groups           *grouper
	t                target // the documents of the current row (kept here: no allocation per row)
	// The chunks that master-data documents are carved from (see newDoc).
	partners docChunk[model.Partner]
	items    docChunk[model.Item]
	packs    docChunk[model.Packaging]
}

// fastKind says which cells of a field doRow converts itself: the common,
// valid ones; the others go through parser.parseInto.
type fastKind uint8

const (
	fastNone    fastKind = iota
	fastText             // free text: within the length limit
	fastDecimal          // a canonical decimal (see canonicalDecimal)
	fastEAN              // a valid EAN (see validEAN)
)

// fastKindOf returns the fast conversion of a field.
func fastKindOf(f *model.Field) fastKind {
	switch {
	case f.Type == model.TString && len(f.Enum) == 0:
		return fastText
	case f.Type == model.TDecimal:
		return fastDecimal
	case f.Type == model.TEAN:
		return fastEAN
	}
	return fastNone
}

// decode implements Decode.
func decode(ctx context.Context, r io.ReaderAt, size int64, name string, opts Options, fn func(Doc) error) (Summary, error) {
	var sum Summary
	dt, err := checkOptions(opts)
	if err != nil {
		return sum, err
	}
	src, err := openSource(ctx, r, size, name, opts)
	if err != nil {
		return fileProblemSummary(sum, name, err)
	}
	defer src.close()
	if c, ok := src.(*csvSource); ok {
		sum.Delimiter = c.delim
	}

	var header []string
	first := true
	var row0 int
	var cells0 []string
	var err0 error
	if !opts.NoHeader {
		row, cells, err := readRow(src)
		if err != nil {
			if errors.Is(err, io.EOF) {
				sum.FileIssues = append(sum.FileIssues, Issue{File: name, Message: "the file is empty: it needs a header row and at least one data row"})
				return sum, nil
			}
			var re *rowError
			if !errors.As(err, &re) {
				return fileProblemSummary(sum, name, err)
			}
			sum.FileIssues = append(sum.FileIssues, Issue{File: name, Row: row, Message: "header row: " + re.msg})
		}
		header = trimmedCopy(cells)
		sum.Header = header
	} else {
		sum.Header = slices.Clone(opts.Positions)
		row0, cells0, err0 = readRow(src)
		first = false
		if errors.Is(err0, io.EOF) {
			sum.FileIssues = append(sum.FileIssues, Issue{File: name, Message: "the file is empty"})
			return sum, nil
		}
	}
	if opts.Type == "" {
		names := opts.Positions
		if !opts.NoHeader {
			names = OurNames(header, opts.Columns)
		}
		dt, err = detectType(opts.Edition, names)
		if err != nil {
			sum.FileIssues = append(sum.FileIssues, Issue{File: name, Row: 1, Message: err.Error()})
			return sum, nil
		}
	}
	sum.Type = dt
	lay := newLayout(dt, opts.Edition, header, opts, name)
	sum.FileIssues = append(sum.FileIssues, lay.issues...)
	_, isXLSX := src.(*xlsxSource)
	d := &decoder{
		ctx: ctx, file: name, opts: opts, src: src, lay: lay, kind: dt.Kind, fn: fn, sum: sum,
		p: parser{
			edition: opts.Edition, decimalComma: opts.DecimalComma, xlsx: isXLSX,
			loc: opts.location(), layout: opts.DateLayout,
		},
		setters:    make([]setter, len(lay.fields)),
		hdrSetters: make([]setter, len(lay.fields)),
		keyFi:      lay.fieldIndex(lay.spec.Key),
		skuFi:      lay.fieldIndex("sku"),
		relFi:      lay.fieldIndex("relationship"),
		isXLSX:     isXLSX,
		vals:       make([]value, len(lay.fields)),
		set:        make([]bool, len(lay.fields)),
		bad:        make([]bool, len(lay.fields)),
		fromDef:    make([]bool, len(lay.fields)),
		fast:       make([]fastKind, len(lay.fields)),
	}
	if x, ok := src.(*xlsxSource); ok {
		d.p.date1904 = x.date1904
	}
	for fi := range lay.fields {
		f := &lay.fields[fi]
		if f.Required {
			d.required = append(d.required, fi)
		}
		d.fast[fi] = fastKindOf(f)
		if d.setters[fi] = bind(dt.Kind, f.Name); d.setters[fi] != nil && lay.has(fi) {
			if f.Level == model.LevelHeader {
				d.hdrSetters[fi] = d.setters[fi]
			} else {
				d.lineSet = append(d.lineSet, boundField{fi, d.setters[fi]})
			}
		}
	}
	d.boxA, d.boxItem = d.boxPair(""), d.boxPair("item.")
	if dt.Grouped {
		d.groups = newGrouper(d)
	} else {
		d.keys = newKeySet(size / max(int64(len(strings.Join(header, ","))), 32))
		defer d.keys.free()
		d.filling, d.waiting = newDocBatch(), newDocBatch()
	}

	for n := 0; ; n++ {
		if n&1023 == 0 {
			if err := ctx.Err(); err != nil {
				if ferr := d.flushPending(); ferr != nil {
					return d.sum, ferr
				}
				return d.sum, err
			}
		}
		var row int
		var cells []string
		var err error
		if !first {
			row, cells, err = row0, cells0, err0
			first = true
		} else {
			row, cells, err = readRow(src)
		}
		var re *rowError
		if err != nil {
			re = asRowError(err)
		}
		switch {
		case err == nil:
		case errors.Is(err, io.EOF):
			return d.finish()
		case re != nil:
		default:
			var fp *fileProblem
			if errors.As(err, &fp) {
				// The documents of the rows before go first, as if handed on row by row.
				if ferr := d.flushPending(); ferr != nil {
					return d.sum, ferr
				}
				d.sum.FileIssues = append(d.sum.FileIssues, Issue{File: name, Row: fp.row, Sheet: src.sheet(), Message: fp.msg})
				if _, ferr := d.finish(); ferr != nil {
					return d.sum, ferr
				}
				return d.sum, nil
			}
			if ferr := d.flushPending(); ferr != nil {
				return d.sum, ferr
			}
			return d.sum, fmt.Errorf("reading %s: %w", name, err)
		}
		if err := d.doRow(row, cells, re); err != nil {
			return d.sum, err
		}
	}
}

// asRowError returns the *rowError in err's chain, or nil. It is kept apart
// from the row loop so that the loop's variables stay off the heap.
//
//go:noinline
func asRowError(err error) *rowError {
	var re *rowError
	if errors.As(err, &re) {
		return re
	}
	return nil
}

// checkOptions validates the route's options and returns the configured
// document type (zero when it is to be detected).
func checkOptions(opts Options) (model.DocType, error) {
	if _, err := model.ParseEdition(string(opts.Edition)); err != nil {
		return model.DocType{}, err
	}
	if opts.NoHeader && len(opts.Positions) == 0 {
		return model.DocType{}, errors.New("a file without header row needs the column positions of the route")
	}
	if _, err := normCharset(opts.Charset); err != nil {
		return model.DocType{}, err
	}
	if opts.Type == "" {
		return model.DocType{}, nil
	}
	return model.LookupDocType(opts.Edition, opts.Type)
}

// fileProblemSummary turns a file problem into a file issue, and returns
// other errors.
func fileProblemSummary(sum Summary, name string, err error) (Summary, error) {
	var fp *fileProblem
	if errors.As(err, &fp) {
		sum.FileIssues = append(sum.FileIssues, Issue{File: name, Row: fp.row, Message: fp.msg})
		return sum, nil
	}
	return sum, err
}

// trimmedCopy returns the trimmed cells, copied: cells may share the
// memory of many lines (see csvSource.fillBlock), which the header, kept
// for the whole file and in the Summary, must not keep alive.
func trimmedCopy(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = strings.Clone(strings.TrimSpace(c))
	}
	return out
}

// copiedCells returns a copy of cells and of their text (see trimmedCopy).
func copiedCells(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = strings.Clone(c)
	}
	return out
}

// doRow converts and checks one data row and hands it to the kind's builder.
func (d *decoder) doRow(row int, cells []string, re *rowError) error {
	d.sum.Rows++
	d.row, d.cells = row, cells
	d.issues = d.issues[:0]
	if re != nil {
		d.rowIssue(re.msg)
	}
	if w := d.lay.width; w > 0 {
		if !d.isXLSX && re == nil && (len(cells) < w || len(cells) > w && !isEmptyRow(cells[w:])) {
			what := "header"
			if d.opts.NoHeader {
				what = "route's positions"
			}
			d.rowIssue(fmt.Sprintf("row has %d cells, the %s has %d: check the delimiters and quotes on this line", len(cells), what, w))
		}
	}
	// A master-data row writes each valid value into its document at once.
	var doc Doc
	var t *target
	if d.groups == nil {
		doc, t = d.newDoc(), &d.t
	}
	// Slices of one length: the loop runs without bounds checks.
	fields := d.lay.fields
	n := len(fields)
	cellOf, defs := d.lay.cellOf[:n], d.lay.defs[:n]
	set, bad, fromDef, vals := d.set[:n], d.bad[:n], d.fromDef[:n], d.vals[:n]
	setters, fast := d.hdrSetters[:n], d.fast[:n]
	for fi := range fields {
		s := ""
		if ci := cellOf[fi]; ci >= 0 && ci < len(cells) {
			s = cells[ci]
			// Trimmed unless it starts and ends with a visible ASCII character.
			if s != "" && (s[0]-'!' >= utf8.RuneSelf-'!' || s[len(s)-1]-'!' >= utf8.RuneSelf-'!') {
				s = strings.TrimSpace(s)
			}
		}
		def := false
		if s == "" && defs[fi] != "" {
			s, def = defs[fi], true
		}
		fromDef[fi] = def
		set[fi] = s != ""
		bad[fi] = false
		v := &vals[fi]
		if s == "" {
			if v.s != "" {
				*v = value{}
			}
			continue
		}
		if d.convertFast(v, &fields[fi], fast[fi], s) {
			if t != nil && setters[fi] != nil {
				setters[fi](t, v)
			}
		} else if msg := d.p.parseInto(v, &fields[fi], s); msg != "" {
			bad[fi] = true
			d.fieldIssue(fi, s, msg)
		} else if t != nil && setters[fi] != nil {
			setters[fi](t, v)
		}
	}
	if d.groups != nil {
		return d.groups.add()
	}
	return d.master(doc)
}

// convertFast converts s (trimmed, non-empty) into v, as parseInto would,
// when it is a common valid cell of its kind, and reports whether it did.
// Other cells, valid or not, are left to parseInto.
func (d *decoder) convertFast(v *value, f *model.Field, k fastKind, s string) bool {
	switch k {
	case fastText:
		// A text of at most MaxLen bytes has at most MaxLen characters.
		if f.MaxLen > 0 && len(s) > f.MaxLen {
			return false
		}
	case fastDecimal:
		x, ok := canonicalDecimal(s)
		// decimalComma first: pointAllowed is a call.
		if !ok || d.p.decimalComma && !d.p.pointAllowed(s) || d.p.xlsx && len(s) > 16 || f.Positive && x.Sign() <= 0 {
			return false
		}
		v.d = x
	case fastEAN:
		if !validEAN(s) {
			return false
		}
	default:
		return false
	}
	// What parseInto resets: a field's type does not change, so only the
	// parts of a value written by mistake are ever set.
	v.s, v.i = s, 0
	if v.d != "" && k != fastDecimal {
		v.d = ""
	}
	if !v.t.IsZero() {
		v.t = time.Time{}
	}
	return true
}

// ok reports whether field fi has a valid value on the row.
func (d *decoder) ok(fi int) bool { return fi >= 0 && d.set[fi] && !d.bad[fi] }

// text returns the trimmed text of field fi on the row.
func (d *decoder) text(fi int) string {
	if fi < 0 {
		return ""
	}
	return d.vals[fi].s
}

// issueAt builds an issue on a row for field fi (-1: the whole row).
func (d *decoder) issueAt(row, fi int, val, msg string, fromDef bool) Issue {
	// The value is copied: it may share the memory of many lines (see
	// csvSource.fillBlock), which an issue kept by the caller must not keep alive.
	is := Issue{File: d.file, Row: row, Sheet: d.src.sheet(), Value: strings.Clone(val), Message: msg}
	if fi >= 0 {
		is.Column = d.lay.colName[fi]
		if ci := d.lay.cellOf[fi]; ci >= 0 && !fromDef {
			is.Cell = d.src.cell(row, ci)
		} else if fromDef {
			is.Message += " (value set by the route's defaults)"
		}
	}
	return is
}

func (d *decoder) fieldIssue(fi int, val, msg string) {
	d.issues = append(d.issues, d.issueAt(d.row, fi, val, msg, d.fromDef[fi]))
}

func (d *decoder) rowIssue(msg string) {
	d.issues = append(d.issues, d.issueAt(d.row, -1, "", msg, false))
}

// require reports field fi when it is empty on the row (unless the whole
// column is missing, which the file issues say once).
func (d *decoder) require(fi int, msg string) {
	if fi < 0 || d.set[fi] || d.lay.missing[fi] {
		return
	}
	if msg == "" {
		msg = "is empty: a value is required"
	}
	d.fieldIssue(fi, "", msg)
}

// boundField is a field that a row may fill, with its setter.
type boundField struct {
	fi  int
	set setter
}

// apply writes every valid value of the fields into t.
func (d *decoder) apply(t *target, fields []boundField) {
	for _, b := range fields {
		if d.set[b.fi] && !d.bad[b.fi] {
			b.set(t, &d.vals[b.fi])
		}
	}
}

// docChunk hands out documents of type T with their row number, carved from
// chunks of docChunkMin up to docChunkMax slots: one allocation for many
// rows. A slot is never reused, so a document handed on stays valid however
// long the caller keeps it (and keeps its chunk alive with it).
type docChunk[T any] struct {
	slots []docSlot[T] // the unused slots of the current chunk
	size  int          // the size of the current chunk
}

// docSlot is a document and its row number (Doc.Rows).
type docSlot[T any] struct {
	doc  T
	rows [1]int
}

const docChunkMin, docChunkMax = 8, 256

// take returns a new zero document and its Rows, holding row.
func (c *docChunk[T]) take(row int) (*T, []int) {
	if len(c.slots) == 0 {
		c.size = min(max(2*c.size, docChunkMin), docChunkMax)
		c.slots = make([]docSlot[T], c.size)
	}
	s := &c.slots[0]
	c.slots = c.slots[1:]
	s.rows[0] = row
	return &s.doc, s.rows[:1:1]
}

// newDoc makes the document of a master-data row, and points d.t at it.
func (d *decoder) newDoc() Doc {
	// Only the document pointer of the decoder's kind is ever set in d.t:
	// overwriting it resets the target.
	t := &d.t
	doc := Doc{Kind: d.kind}
	switch d.kind {
	case model.KindPartner:
		t.partner, doc.Rows = d.partners.take(d.row)
		doc.Partner = t.partner
	case model.KindItem:
		t.item, doc.Rows = d.items.take(d.row)
		doc.Item = t.item
	case model.KindPackaging:
		t.pack, doc.Rows = d.packs.take(d.row)
		doc.Packaging = t.pack
	default:
		doc.Rows = []int{d.row}
	}
	return doc
}

// master hands on the document of one master-data row, with the values of
// the row already written into it.
func (d *decoder) master(doc Doc) error {
	for _, fi := range d.required {
		if !d.set[fi] {
			d.require(fi, "")
		}
	}
	t := &d.t
	d.enumDefaults(t)
	if d.kind == model.KindItem {
		d.checkEANBox(d.boxA, "")
	}
	doc.Key = d.text(d.keyFi)
	sku := ""
	if d.kind == model.KindPackaging {
		sku = d.text(d.skuFi)
	}
	// The key is checked, and the document handed on, with a batch of rows.
	return d.queue(doc, sku)
}

// where names a row for a message: "on line 5" (CSV) or "on row 5" (XLSX).
func (d *decoder) where(row int) string {
	if d.src.sheet() != "" {
		return fmt.Sprintf("on row %d", row)
	}
	return fmt.Sprintf("on line %d", row)
}

// enumDefaults fills a partner's relationship when the edition allows one
// value only (suppliers of Edition A are always manufacturers).
func (d *decoder) enumDefaults(t *target) {
	if t.partner == nil || t.partner.Relationship != "" {
		return
	}
	if fi := d.relFi; fi >= 0 && !d.set[fi] {
		if e := d.lay.fields[fi].Enum; len(e) == 1 {
			t.partner.Relationship = e[0]
		}
	}
}

// boxPair are the field indexes of a quantity per box and its carton EAN.
type boxPair struct{ qty, ean int }

func (d *decoder) boxPair(prefix string) boxPair {
	return boxPair{d.lay.fieldIndex(prefix + "quantityPerBox"), d.lay.fieldIndex(prefix + "eanBox")}
}

// checkEANBox requires the master-carton EAN when a carton holds more than
// one unit (Edition A).
func (d *decoder) checkEANBox(b boxPair, context string) {
	qi, bi := b.qty, b.ean
	if qi < 0 || bi < 0 || !d.ok(qi) || d.set[bi] || !greaterThanOne(d.vals[qi].d) {
		return
	}
	d.fieldIssue(bi, "", fmt.Sprintf("%sthe EAN of the master carton is required when %s is above 1 (it is %s)", context, d.lay.fields[qi].Name, d.vals[qi].d))
}

// greaterThanOne compares a canonical decimal with 1.
func greaterThanOne(x model.Decimal) bool {
	if len(x) == 1 { // one digit: the common quantity
		return x[0] > '1'
	}
	if x.Sign() <= 0 {
		return false
	}
	ip, frac := string(x), ""
	if i := strings.IndexByte(ip, '.'); i >= 0 {
		ip, frac = ip[:i], ip[i+1:]
	}
	return ip != "0" && (ip != "1" || frac != "")
}

// emit hands a document on and counts it.
func (d *decoder) emit(doc Doc) error {
	d.sum.Docs++
	if !doc.Valid() {
		d.sum.InvalidDocs++
	}
	return d.fn(doc)
}

// finish flushes the grouped documents and closes the summary.
func (d *decoder) finish() (Summary, error) {
	if err := d.flushPending(); err != nil {
		return d.sum, err
	}
	if d.groups != nil {
		if err := d.groups.flush(); err != nil {
			return d.sum, err
		}
	}
	if d.sum.Rows == 0 && !hasError(d.sum.FileIssues) {
		d.sum.FileIssues = append(d.sum.FileIssues, Issue{File: d.file, Message: "the file has a header row but no data rows", Warning: true})
	}
	return d.sum, nil
}

// rawRows implements Rows.
func rawRows(ctx context.Context, r io.ReaderAt, size int64, name string, opts Options, fn func(row int, cells []string) error) ([]string, error) {
	if _, err := checkOptions(opts); err != nil {
		return nil, err
	}
	src, err := openSource(ctx, r, size, name, opts)
	if err != nil {
		return nil, err
	}
	defer src.close()
	var header []string
	for n, first := 0, !opts.NoHeader; ; n++ {
		if n&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return header, err
			}
		}
		row, cells, err := readRow(src)
		var re *rowError
		switch {
		case err == nil, errors.As(err, &re):
		case errors.Is(err, io.EOF):
			return header, nil
		default:
			return header, fmt.Errorf("reading %s: %w", name, err)
		}
		if first {
			header, first = copiedCells(cells), false
			continue
		}
		if err := fn(row, cells); err != nil {
			return header, err
		}
	}
}
