package formats

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"filebridge/internal/model"
)

// decoder holds the state of one Decode call.
type decoder struct {
	ctx  context.Context
	file string
	opts Options
	src  rowSource
	xs   *xlsxSource // src when it is a workbook
	lay  *layout
	p    parser
	kind model.Kind
	fn   func(Doc) error
	sum  Summary
	// warned holds the undocumented values already warned about (field
	// index and value): a file says it once, on the first row.
	warned map[warnedValue]bool

	setters []setter
	keyFi   int // index of the key field
	skuFi   int // packaging: the variant's sku
	relFi   int // partner: relationship
	// hdrSetters are, per field, the setter of a header-level field that
	// the file (or a default) can fill, nil for other fields. lineSet are
	// the fields of the line and service levels with a setter that the file
	// (or a default) can fill, in field order.
	hdrSetters []setter
	lineSet    []boundField
	required   []int   // the required fields
	itemBox    boxPair // item: quantity per box and carton EAN
	lineBox    boxPair // order line: the same of the SKU master data it carries

	// The current row.
	row     int
	cells   []string
	vals    []value
	set     []bool // non-empty (valid or not)
	bad     []bool // not valid
	fromDef []bool // value is the route's default
	broken  bool   // the row is a CSV record that could not be parsed
	// reported are the cells whose value the row's own problem names.
	reported []int
	issues   []Issue

	// seen holds the key of every master-data document read so far (SKU NUL
	// code for packagings) with the row it first appeared on.
	seen   keySet
	groups *grouper
	t      target // the documents of the current row (kept here: no allocation per row)
}

// firstRow is a row read before the row loop starts (the first data row of
// a file without header).
type firstRow struct {
	row   int
	cells []string
	err   error
}

// decode implements Decode: the header, the decoder's setup, the row loop.
func decode(ctx context.Context, r io.ReaderAt, size int64, name string, opts Options, fn func(Doc) error) (Summary, error) {
	var sum Summary
	opts = opts.withLayout()
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
	if es, ok := src.(*ediSource); ok && opts.Type == "" {
		dt, opts.Type = es.dt, es.dt.Name // the message type says it
	}
	sum.Sheet = src.sheet()
	header, first, done, err := readHeader(src, name, opts, &sum)
	if done || err != nil {
		return sum, err
	}
	if msg := titleRows(ctx, r, size, name, opts, header, src); msg != "" {
		sum.FileIssues = append(sum.FileIssues, Issue{File: name, Message: msg})
		return sum, nil
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
	d := newDecoder(ctx, src, name, opts, dt, header, sum, fn)
	if !dt.Grouped {
		fp, err := d.readRows(first)
		if err != nil {
			return d.sum, err
		}
		d.fileProblem(fp)
		return d.finish()
	}
	return d.grouped(first)
}

// grouped reads the file as orders: a pass indexing the order numbers,
// then one pass per window of orders (see grouper), each over the same
// source rewound: the file is opened and sniffed once.
func (d *decoder) grouped(first *firstRow) (Summary, error) {
	idx, err := d.indexKeys(d.src, first)
	if err != nil {
		return d.sum, err
	}
	d.groups = newGrouper(d, idx)
	for pass := 0; pass == 0 || d.groups.more(); pass++ {
		if pass > 0 {
			d.groups.nextWindow()
		}
		first, err := d.rewind()
		if err != nil {
			return d.sum, err
		}
		fp, err := d.readRows(first)
		if err != nil {
			return d.sum, err
		}
		if pass == 0 {
			d.fileProblem(fp) // every pass stops there: said once
		}
		if err := d.groups.handOn(true); err != nil {
			return d.sum, err
		}
	}
	return d.finish()
}

// rewind starts the rows of the file again for another pass, its header
// read.
func (d *decoder) rewind() (*firstRow, error) {
	if err := d.src.rewind(); err != nil {
		return nil, fmt.Errorf("reading %s again: %w", d.file, err)
	}
	var sum Summary
	_, first, done, err := readHeader(d.src, d.file, d.opts, &sum)
	if err == nil && done {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s again: %w", d.file, err)
	}
	return first, nil
}

// fileProblem records a problem that ended the rows of the file.
func (d *decoder) fileProblem(fp *fileProblem) {
	if fp != nil {
		d.sum.LikelyCharset = fp.charset
		is := Issue{File: d.file, Row: fp.row, Sheet: d.src.sheet(), Value: fp.value, Message: fp.msg}
		if fp.charset != "" && fp.col >= 0 && fp.col < len(d.sum.Header) {
			is.Column = d.sum.Header[fp.col]
		}
		d.sum.FileIssues = append(d.sum.FileIssues, is)
	}
}

// readHeader reads the header row into sum.Header, or, for a file without
// header, the first data row (first). done says the file ends there: sum
// then says why.
func readHeader(src rowSource, name string, opts Options, sum *Summary) (header []string, first *firstRow, done bool, err error) {
	if opts.NoHeader {
		sum.Header = slices.Clone(opts.Positions)
		row, cells, err := readRow(src)
		if errors.Is(err, io.EOF) {
			sum.FileIssues = append(sum.FileIssues, Issue{File: name, Message: "the file is empty"})
			return nil, nil, true, nil
		}
		return nil, &firstRow{row, cells, err}, false, nil
	}
	row, cells, err := readHeaderRow(src, opts)
	if err != nil {
		if errors.Is(err, io.EOF) {
			sum.FileIssues = append(sum.FileIssues, Issue{File: name, Message: "the file is empty: it needs a header row and at least one data row"})
			return nil, nil, true, nil
		}
		var re *rowError
		if !errors.As(err, &re) {
			s, err := fileProblemSummary(*sum, name, err)
			*sum = s
			return nil, nil, true, err
		}
		sum.FileIssues = append(sum.FileIssues, Issue{File: name, Row: row, Sheet: src.sheet(), Message: "header row: " + re.msg})
	}
	header = cloneCells(cells, true)
	sum.Header = header
	return header, nil, false, nil
}

// newDecoder binds the fields of the layout of the header to their setters.
func newDecoder(ctx context.Context, src rowSource, name string, opts Options, dt model.DocType, header []string, sum Summary, fn func(Doc) error) *decoder {
	lay := newLayout(dt, opts.Edition, header, opts, name)
	sum.FileIssues = append(sum.FileIssues, lay.issues...)
	x, _ := src.(*xlsxSource)
	n := len(lay.fields)
	d := &decoder{
		ctx: ctx, file: name, opts: opts, src: src, lay: lay, kind: dt.Kind, fn: fn, sum: sum,
		p: parser{
			edition: opts.Edition, decimalComma: opts.DecimalComma, xlsx: x != nil,
			loc: opts.location(), layout: opts.DateLayout,
		},
		setters:    make([]setter, n),
		hdrSetters: make([]setter, n),
		keyFi:      lay.fieldIndex(lay.spec.Key),
		skuFi:      lay.fieldIndex("sku"),
		relFi:      lay.fieldIndex("relationship"),
		vals:       make([]value, n),
		set:        make([]bool, n),
		bad:        make([]bool, n),
		fromDef:    make([]bool, n),
	}
	if x != nil {
		d.p.date1904, d.xs = x.date1904, x
	}
	for fi := range lay.fields {
		f := &lay.fields[fi]
		if f.Required {
			d.required = append(d.required, fi)
		}
		if d.setters[fi] = bind(dt.Kind, *f); d.setters[fi] != nil && lay.has(fi) {
			if f.Level == model.LevelHeader {
				d.hdrSetters[fi] = d.setters[fi]
			} else {
				d.lineSet = append(d.lineSet, boundField{fi, d.setters[fi]})
			}
		}
	}
	d.itemBox, d.lineBox = d.boxPair(""), d.boxPair("item.")
	return d
}

// readRows reads the data rows, starting with first when it is set, up to
// the end of the file or a problem that ends it (returned).
func (d *decoder) readRows(first *firstRow) (*fileProblem, error) {
	return eachRow(d.ctx, d.src, d.file, first, func(row int, cells []string, re *rowError) error {
		if d.groups != nil {
			d.cells = cells
			if !d.groups.take() {
				return nil
			}
		}
		return d.doRow(row, cells, re)
	})
}

// eachRow calls fn with every data row of src, starting with first when it
// is set, a row with a problem of its own with it (re), up to the end of the
// rows: io.EOF, or a problem that ends the file, which it returns.
func eachRow(ctx context.Context, src rowSource, file string, first *firstRow, fn func(row int, cells []string, re *rowError) error) (*fileProblem, error) {
	next := func() (int, []string, error) { return readRow(src) }
	if _, ok := src.(*csvSource); ok {
		if first != nil {
			// Its cells are the CSV reader's, which reading ahead reuses.
			first = &firstRow{first.row, slices.Clone(first.cells), first.err}
		}
		a := startReadAhead(src)
		defer a.close()
		next = a.next
	}
	for n := 0; ; n++ {
		if n&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		var row int
		var cells []string
		var err error
		if first != nil {
			row, cells, err = first.row, first.cells, first.err
			first = nil
		} else {
			row, cells, err = next()
		}
		var re *rowError
		var fp *fileProblem
		switch {
		case err == nil, errors.As(err, &re):
		case errors.Is(err, io.EOF):
			return nil, nil
		case errors.As(err, &fp):
			return fp, nil
		default:
			return nil, fmt.Errorf("reading %s: %w", file, err)
		}
		if err := fn(row, cells, re); err != nil {
			return nil, err
		}
	}
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

// cloneCells returns a copy of cells and of their text, trimmed with trim:
// cells share the memory of their whole row, which a header kept in the
// Summary need not keep alive.
func cloneCells(cells []string, trim bool) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		if trim {
			c = strings.TrimSpace(c)
		}
		out[i] = strings.Clone(c)
	}
	return out
}

// doRow converts and checks one data row and hands it to the kind's builder.
func (d *decoder) doRow(row int, cells []string, re *rowError) error {
	d.sum.Rows++
	d.row, d.cells = row, cells
	d.issues = d.issues[:0]
	d.broken = re != nil && re.last > 0 // a broken CSV record (a workbook row's own problem has no last)
	d.reported = nil
	if re != nil {
		d.reported = re.reported
		d.issues = append(d.issues, d.issueAt(row, -1, re.value, re.msg, false))
	}
	if w := d.lay.width; w > 0 {
		if d.xs == nil && re == nil && (len(cells) < w || len(cells) > w && !isEmptyRow(cells[w:])) {
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
	if d.xs != nil && d.xs.rowHidden() {
		d.warnAt(-1, "", "this row is hidden in the workbook: it is read like the others; delete it if it is not to be sent")
	}
	for fi := range d.lay.fields {
		s, def := d.cellText(fi)
		d.fromDef[fi] = def
		d.set[fi] = s != ""
		d.bad[fi] = false
		v := &d.vals[fi]
		warn := ""
		if d.xs != nil {
			var ok bool
			if warn, ok = d.xlsxCell(fi, s); !ok {
				*v = value{}
				continue
			}
		}
		if s == "" {
			*v = value{}
			continue
		}
		if msg := d.p.parseInto(v, &d.lay.fields[fi], s); msg != "" {
			d.bad[fi] = true
			d.fieldIssue(fi, s, msg)
			continue
		}
		if warn != "" {
			d.warnAt(fi, s, warn)
		}
		if w := (warnedValue{fi, s}); len(d.lay.fields[fi].Undocumented) > 0 && !d.warned[w] {
			if msg := undocumentedMessage(&d.lay.fields[fi], s); msg != "" {
				if d.warned == nil {
					d.warned = map[warnedValue]bool{}
				}
				d.warned[w] = true
				d.warnAt(fi, s, msg)
			}
		}
		if t != nil && d.hdrSetters[fi] != nil {
			d.hdrSetters[fi](t, v)
		}
	}
	if d.groups != nil {
		return d.groups.add()
	}
	return d.master(doc)
}

// cellText returns the text of field fi on the current row (see
// cleanCell), or the route's default for it when the cell is empty (def).
func (d *decoder) cellText(fi int) (s string, def bool) {
	if ci := d.lay.cellOf[fi]; ci >= 0 && ci < len(d.cells) {
		s = cleanCell(d.cells[ci], d.xs == nil)
		if d.xs != nil && s != "" {
			s = d.xs.shownText(ci, &d.lay.fields[fi], s)
		}
	}
	if s != "" && d.lay.vals != nil {
		if to, ok := d.lay.vals[fi][s]; ok {
			return to, false // mapped by the route, even to an empty cell
		}
	}
	if s == "" && d.lay.defs[fi] != "" {
		return d.lay.defs[fi], true
	}
	return s, false
}

// cleanCell trims a cell and drops the apostrophe that neutralises a
// formula: our reports write a text cell starting with '=', '+', '-', '@',
// a tab or a carriage return with a leading "'" (export.Neutralize), so
// that a NAME.rejected.csv, corrected, can be dropped into the inbox again.
// In a CSV file (csv) an apostrophe before a digit is dropped too: it is
// Excel's text marker, which ERPs write before codes with leading zeros
// ('01000) so that Excel keeps them; the clerk sees 01000. Any other
// apostrophe ('s-Hertogenbosch) is part of the value.
func cleanCell(s string, csv bool) string {
	s = trimCell(s)
	if len(s) > 1 && s[0] == '\'' {
		switch c := s[1]; {
		case c == '=', c == '+', c == '-', c == '@', c == '\t', c == '\r':
			return trimCell(s[1:])
		case csv && c >= '0' && c <= '9':
			return s[1:]
		}
	}
	return s
}

// trimCell trims s unless it starts and ends with a visible ASCII
// character (nearly every cell: a check instead of a call).
func trimCell(s string) string {
	if s != "" && (s[0]-'!' >= utf8.RuneSelf-'!' || s[len(s)-1]-'!' >= utf8.RuneSelf-'!') {
		return strings.TrimSpace(s)
	}
	return s
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

// warnedValue is a value of a field a file was warned about.
type warnedValue struct {
	fi    int
	value string
}

// issueAt builds an issue on a row for field fi (-1: the whole row).
func (d *decoder) issueAt(row, fi int, val, msg string, fromDef bool) Issue {
	// The value is copied: it shares the memory of its whole row, which an
	// issue kept by the caller need not keep alive.
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

// xlsxCell checks what the workbook cell of field fi holds beyond its text
// s (see xlsxSource.checkCell): an error is reported and ok is false (the
// value is not to be used); a warning is returned, for a valid value.
func (d *decoder) xlsxCell(fi int, s string) (warn string, ok bool) {
	ci := d.lay.cellOf[fi]
	if ci < 0 || ci >= len(d.cells) {
		return "", true
	}
	msg, warn := d.xs.checkCell(ci, &d.lay.fields[fi])
	if msg != "" {
		d.set[fi], d.bad[fi], d.fromDef[fi] = true, true, false
		d.fieldIssue(fi, s, msg)
		return "", false
	}
	return warn, true
}

// warnAt adds a warning on the current row for field fi (-1: the row).
func (d *decoder) warnAt(fi int, val, msg string) {
	is := d.issueAt(d.row, fi, val, msg, fi >= 0 && d.fromDef[fi])
	is.Warning = true
	d.issues = append(d.issues, is)
}

func (d *decoder) fieldIssue(fi int, val, msg string) {
	if d.broken {
		return // its cells are what remains of a broken record: said once
	}
	if d.reported != nil && slices.Contains(d.reported, d.lay.cellOf[fi]) {
		return // the row's problem names this value
	}
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

// emit hands a document on and counts it.
func (d *decoder) emit(doc Doc) error {
	d.sum.Docs++
	if !doc.Valid() {
		d.sum.InvalidDocs++
	}
	return d.fn(doc)
}

// finish closes the summary.
func (d *decoder) finish() (Summary, error) {
	if d.sum.Rows == 0 && !hasError(d.sum.FileIssues) {
		d.sum.FileIssues = append(d.sum.FileIssues, Issue{File: d.file, Message: "the file has a header row but no data rows", Warning: true})
	}
	return d.sum, nil
}
