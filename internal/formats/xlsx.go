package formats

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/xuri/excelize/v2"
)

// oleMagic starts an OLE compound file: an Excel 97-2003 workbook or an
// encrypted (password-protected) XLSX workbook.
var oleMagic = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}

// encryptionInfo is the UTF-16LE name of the stream of an encrypted OOXML
// package inside its OLE container.
var encryptionInfo = utf16le("EncryptionInfo")

func utf16le(s string) []byte {
	b := make([]byte, 0, 2*len(s))
	for i := 0; i < len(s); i++ {
		b = append(b, s[i], 0)
	}
	return b
}

// xlsxSource streams the rows of one sheet of a workbook, with what each
// cell holds (kind and style) and the merged ranges applied.
type xlsxSource struct {
	f        *excelize.File // the workbook's styles and properties
	sst      *sharedStrings
	stream   *sheetStream
	name     string
	row      int
	date1904 bool
	// header is the header row (the first non-empty row), 0 until it is
	// read, -1 for a file without header.
	header int
	cells  []string
	info   []cellInfo
	hidden bool
	fmts   map[int]numFmt
	// merges are the sheet's merged ranges by first row; active those the
	// rows have reached.
	merges    []mergeRange
	nextMerge int
	active    []activeMerge
	// The workbook's archive, the sheet's part and its marks, to read
	// the sheet again (rewind).
	zr    *zip.Reader
	part  string
	marks *sheetMarks
}

// openXLSX reads the workbook (whole, at most MaxSize bytes) and opens the
// streaming reader of its sheet (see pickSheet).
func openXLSX(r io.ReaderAt, size int64, name string, opts Options) (_ *xlsxSource, err error) {
	defer recoverWorkbook(name, &err)
	head := make([]byte, len(oleMagic))
	if n, _ := r.ReadAt(head, 0); n == len(head) && bytes.Equal(head, oleMagic) {
		data, err := io.ReadAll(io.NewSectionReader(r, 0, size))
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		if bytes.Contains(data, encryptionInfo) {
			return nil, fmt.Errorf("%s is password-protected: save it without a password (File > Info > Protect Workbook)", name)
		}
		return nil, fmt.Errorf("%s is an old Excel 97-2003 workbook (.xls) renamed .xlsx: save it as an Excel Workbook (.xlsx)", name)
	}
	limit := opts.unzipSizeLimit()
	marks, err := checkZip(r, size, name, limit)
	if err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, xlsxOpenError(name, limit, err)
	}
	f, err := openStyles(r, size, zr, marks, limit)
	if err != nil {
		if f != nil {
			_ = f.Close()
		}
		return nil, xlsxOpenError(name, limit, err)
	}
	s := &xlsxSource{f: f}
	defer func() {
		if err != nil {
			_ = s.close()
		}
	}()
	if props, err := f.GetWorkbookProps(); err == nil && props.Date1904 != nil {
		s.date1904 = *props.Date1904
	}
	parts, err := locateParts(zr)
	if err != nil {
		return nil, xlsxOpenError(name, limit, err)
	}
	if s.name, err = pickSheet(f, parts, opts.Sheet); err != nil {
		return nil, err
	}
	if opts.NoHeader {
		s.header = -1
	}
	part := parts.sheets[s.name]
	m := marks[part]
	if m == nil {
		return nil, xlsxOpenError(name, limit, fmt.Errorf("the workbook names a sheet part %s it does not hold", part))
	}
	if m.merges {
		if s.merges, err = readMerges(zr, part); err != nil {
			return nil, xlsxOpenError(name, limit, err)
		}
	}
	if s.sst, err = readSharedStrings(zr, parts.sharedStrings); err != nil {
		return nil, xlsxOpenError(name, limit, err)
	}
	if s.stream, err = openSheetStream(zr, part, m, s.sst); err != nil {
		return nil, xlsxOpenError(name, limit, err)
	}
	s.zr, s.part, s.marks = zr, part, m
	return s, nil
}

// rewind reads the sheet again from its first row; the workbook checked,
// its styles, shared strings and merged ranges read when it was opened are
// kept.
func (s *xlsxSource) rewind() (err error) {
	defer recoverWorkbook(s.name, &err)
	if err := s.stream.close(); err != nil {
		return fmt.Errorf("closing sheet %q: %w", s.name, err)
	}
	if s.stream, err = openSheetStream(s.zr, s.part, s.marks, s.sst); err != nil {
		return fmt.Errorf("reading sheet %q again: %w", s.name, err)
	}
	s.row, s.cells, s.info, s.hidden = 0, nil, nil, false
	s.nextMerge, s.active = 0, s.active[:0]
	return nil
}

// pickSheet chooses the sheet to read: the route's sheet; else the only
// visible worksheet; else the active sheet (the one the workbook opens on)
// when it is visible, else the first visible one. A hidden sheet is read
// only when the route names it.
func pickSheet(f *excelize.File, parts workbookParts, want string) (string, error) {
	all := f.GetSheetList()
	if want != "" {
		for _, sh := range all {
			if strings.EqualFold(strings.TrimSpace(sh), strings.TrimSpace(want)) {
				if _, ok := parts.sheets[sh]; !ok {
					return "", &fileProblem{msg: fmt.Sprintf("sheet %q is a chart, not a worksheet: name a sheet with rows in sheet on the route", sh)}
				}
				return sh, nil
			}
		}
		return "", &fileProblem{msg: fmt.Sprintf("the workbook has no sheet %q; its sheets are %s: rename the sheet or change sheet on the route",
			want, quoteList(all))}
	}
	var visible []string
	for _, sh := range all {
		if _, ok := parts.sheets[sh]; !ok {
			continue
		}
		if v, err := f.GetSheetVisible(sh); err == nil && v {
			visible = append(visible, sh)
		}
	}
	switch {
	case len(visible) == 0 && len(parts.sheets) == 0:
		return "", &fileProblem{msg: "the workbook has no worksheet: open it in Excel and save it again"}
	case len(visible) == 0:
		return "", &fileProblem{msg: fmt.Sprintf("every sheet of the workbook is hidden (%s): unhide the sheet to read (right-click a sheet tab > Unhide), or name it in sheet on the route", quoteList(all))}
	case len(visible) == 1:
		return visible[0], nil
	}
	if i := f.GetActiveSheetIndex(); i >= 0 && i < len(all) && slices.Contains(visible, all[i]) {
		return all[i], nil
	}
	return visible[0], nil
}

// checkZip reads every part of a workbook through archive/zip, which
// checks each part's length and CRC-32 against the zip headers, and checks
// that every worksheet ends with its closing tag. excelize reads what the
// headers declare and stops a sheet at its first XML error without saying
// so: a part longer or shorter than declared, altered, or cut would give
// fewer rows, read as valid. It returns the marks of each worksheet part
// (where its rows may be cut, whether it has merged ranges). A workbook
// declaring more than limit bytes unpacked is left to excelize, which
// refuses it.
func checkZip(r io.ReaderAt, size int64, name string, limit int64) (map[string]*sheetMarks, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("%s is not a readable XLSX workbook (the zip archive is truncated or damaged): ask for the file again, or open it in Excel and save it again as .xlsx: %w", name, err)
	}
	var total uint64
	for _, zf := range zr.File {
		total += zf.UncompressedSize64
	}
	if total > uint64(limit) {
		return nil, nil
	}
	// The parts are checked at once, one per core (a big sheet beside its
	// shared strings), and the first bad one in the archive's order named.
	marks := map[string]*sheetMarks{}
	errs := make([]error, len(zr.File))
	slots := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for i, zf := range zr.File {
		var m *sheetMarks
		if isWorksheet(zf.Name) {
			m = &sheetMarks{}
			marks[zf.Name] = m
		}
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			errs[i] = checkPart(zf, m)
		})
	}
	wg.Wait()
	for i, zf := range zr.File {
		err := errs[i]
		var be *budgetError
		if errors.As(err, &be) {
			return nil, fmt.Errorf("%s is not a normal spreadsheet: in its part %s, %v; nothing of it was read: open it in Excel, remove what is not data and save it again", name, zf.Name, be)
		}
		if err != nil {
			return nil, fmt.Errorf("%s is damaged: its part %s %v; nothing of it was read: ask for the file again (it was probably cut or altered in transfer), or open it in Excel and save it again as .xlsx", name, zf.Name, err)
		}
	}
	return marks, nil
}

// isWorksheet reports whether a part is a worksheet.
func isWorksheet(part string) bool {
	p := strings.ToLower(part)
	return strings.HasPrefix(p, "xl/worksheets/") && strings.HasSuffix(p, ".xml")
}

// openStyles opens the workbook with excelize for what is read through it
// (the sheets' names and visibility, styles, properties), without its
// worksheets, which sheetStream reads: excelize unpacks every part it is
// given, a big sheet into a temporary file. marks are checkZip's; without
// them (a workbook over the limit) excelize is given it all, and refuses it.
func openStyles(r io.ReaderAt, size int64, zr *zip.Reader, marks map[string]*sheetMarks, limit int64) (*excelize.File, error) {
	opts := excelize.Options{
		UnzipSizeLimit:    limit,
		UnzipXMLSizeLimit: min(limit, excelize.StreamChunkSize),
		RawCellValue:      true,
	}
	if marks == nil {
		return excelize.OpenReader(io.NewSectionReader(r, 0, size), opts)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, zf := range zr.File {
		if _, sheet := marks[zf.Name]; sheet {
			continue
		}
		if err := zw.Copy(zf); err != nil {
			return nil, fmt.Errorf("copying part %s: %w", zf.Name, err)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return excelize.OpenReader(&buf, opts)
}

// worksheetEnd is how a worksheet part ends (after trailing space), with or
// without a namespace prefix.
var worksheetEnd = regexp.MustCompile(`</([A-Za-z_][A-Za-z0-9_.-]*:)?worksheet>\s*$`)

// checkPart reads one part to its end, and says what is wrong with it; it
// fills in the marks of a worksheet.
func checkPart(zf *zip.File, marks *sheetMarks) error {
	rc, err := zf.Open()
	if err != nil {
		return fmt.Errorf("cannot be opened (%w)", err)
	}
	defer rc.Close()
	// The end of the part is kept, to check a worksheet's closing tag.
	tail := &tailWriter{}
	var w io.Writer = tail
	if budgeted(zf.Name) {
		w = io.MultiWriter(tail, &budgetWriter{marks: marks})
	}
	_, err = io.Copy(w, rc)
	var be *budgetError
	switch {
	case errors.As(err, &be):
		return be
	case errors.Is(err, zip.ErrChecksum):
		return errors.New("does not match its CRC-32 checksum")
	case errors.Is(err, zip.ErrFormat):
		return fmt.Errorf("holds more than the %d bytes its zip header declares", zf.UncompressedSize64)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("ends before its %d bytes (the archive is cut)", zf.UncompressedSize64)
	case errors.As(err, new(flate.CorruptInputError)):
		return fmt.Errorf("has damaged compressed data (%w)", err)
	case err != nil:
		return fmt.Errorf("cannot be read (%w)", err)
	case tail.n != zf.UncompressedSize64:
		return fmt.Errorf("holds %d bytes, its zip header declares %d", tail.n, zf.UncompressedSize64)
	}
	if isWorksheet(zf.Name) && !worksheetEnd.Match(tail.b) {
		return errors.New("ends early: the sheet is cut before its closing </worksheet> tag")
	}
	return nil
}

// tailWriter counts what is written and keeps the last bytes of it.
type tailWriter struct {
	b []byte
	n uint64
}

const tailSize = 256

func (w *tailWriter) Write(p []byte) (int, error) {
	w.n += uint64(len(p))
	if len(p) >= tailSize {
		w.b = append(w.b[:0], p[len(p)-tailSize:]...)
		return len(p), nil
	}
	w.b = append(w.b, p...)
	if len(w.b) > tailSize {
		w.b = append(w.b[:0], w.b[len(w.b)-tailSize:]...)
	}
	return len(p), nil
}

// xlsxOpenError explains why a workbook cannot be opened.
func xlsxOpenError(name string, limit int64, err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "unzip size exceeds"):
		return fmt.Errorf("%s unpacks to more than %s: it is not a normal spreadsheet (a zip bomb?); remove unused sheets or images, or raise the route's unzip size limit: %w",
			name, humanBytes(limit), err)
	case errors.Is(err, excelize.ErrWorkbookPassword), errors.Is(err, excelize.ErrWorkbookFileFormat):
		return fmt.Errorf("%s is password-protected or not an XLSX workbook: save it without a password as an Excel Workbook (.xlsx): %w", name, err)
	}
	return fmt.Errorf("%s is not a readable XLSX workbook (damaged, or not an Excel file): open it in Excel and save it again as .xlsx: %w", name, err)
}

func (s *xlsxSource) next() (_ int, _ []string, err error) {
	defer recoverWorkbook(s.name, &err)
	ok, err := s.stream.next()
	if err != nil {
		return 0, nil, fmt.Errorf("reading sheet %q after row %d: %w", s.name, s.row, err)
	}
	if !ok {
		return 0, nil, io.EOF
	}
	s.row, s.cells, s.info, s.hidden = s.stream.row, s.stream.cells, s.stream.info, s.stream.hidden
	if s.header == 0 && !isEmptyRow(s.cells) {
		s.header = s.row
	}
	if len(s.merges) > 0 {
		if msg := s.mergeRows(s.row); msg != "" {
			return s.row, s.cells, &rowError{row: s.row, cells: s.cells, msg: msg}
		}
	}
	return s.row, s.cells, nil
}

func (s *xlsxSource) cell(row, col int) string {
	c, err := excelize.CoordinatesToCellName(col+1, row)
	if err != nil {
		return ""
	}
	return c
}

func (s *xlsxSource) sheet() string { return s.name }

// rowHidden reports whether the current row is hidden.
func (s *xlsxSource) rowHidden() bool { return s.hidden }

// close releases the workbook; it may be called again.
func (s *xlsxSource) close() error {
	var err error
	if s.stream != nil {
		err = s.stream.close()
		s.stream = nil
	}
	if s.f != nil {
		if cerr := s.f.Close(); err == nil {
			err = cerr
		}
		s.f = nil
	}
	if cerr := s.sst.close(); err == nil {
		err = cerr
	}
	return err
}

// recoverWorkbook turns a panic of the workbook library on a malformed file
// into an error: a bad file must never stop the daemon.
func recoverWorkbook(name string, err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("%s is not a readable XLSX workbook (damaged, or not an Excel file): open it in Excel and save it again as .xlsx: %v", name, p)
	}
}

func quoteList(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
