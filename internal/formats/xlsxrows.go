package formats

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/xuri/excelize/v2"
)

// A worksheet is read in chunks of whole rows, parsed by one worker per
// core: encoding/xml is nearly all of a workbook's reading time, and a
// sheet's rows are independent of each other. The part is cut after a
// </row> end tag that checkZip's pass through budgetWriter, which knows a
// tag from text, comments and CDATA, marked; each chunk is parsed by its own xml.Decoder
// (RawToken: no name-space translation, no end-tag matching, which
// checkZip's pass does not need either, having checked the part whole),
// and the rows come back in order. What depends on the rows before (a row
// without a number is the one after the previous row, numbers only grow)
// is settled by next, in order. Memory holds a few chunks, whatever the
// number of rows.

// chunkSize is how many bytes of a sheet a chunk holds at least (the rows
// that end past it wholly).
const chunkSize = 256 << 10

// sheetRow is one <row> element as a worker read it.
type sheetRow struct {
	num    int // its r attribute; 0 without one (the row after the previous)
	hidden bool
	cells  []string
	info   []cellInfo
	// Without a row number: the row its cells' references name (0 when
	// none does), and the first such reference.
	refRow int
	ref    string
}

// chunkResult is what a worker read of a chunk: its rows up to the end of
// the sheet's data or the first error.
type chunkResult struct {
	rows  []sheetRow
	ended bool // </sheetData> was read
	err   error
}

type chunkJob struct {
	data []byte
	last bool // the part ends with this chunk
	out  chan<- chunkResult
}

// sheetStream reads the rows of a worksheet part one at a time.
type sheetStream struct {
	rc      io.ReadCloser
	results chan (<-chan chunkResult) // one per chunk, in the part's order
	done    chan struct{}
	wg      sync.WaitGroup
	closed  bool

	cur   []sheetRow // the rows of the current chunk
	pos   int
	err   error // what ended the current chunk
	ended bool

	// The current row: its number, whether it is hidden, its cells and
	// what each holds.
	row    int
	hidden bool
	cells  []string
	info   []cellInfo
}

func openSheetStream(zr *zip.Reader, name string, marks *sheetMarks, sst *sharedStrings) (*sheetStream, error) {
	rc, err := zr.Open(name)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", name, err)
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), 4))
	s := &sheetStream{rc: rc, results: make(chan (<-chan chunkResult), 2*workers), done: make(chan struct{})}
	jobs := make(chan chunkJob)
	s.wg.Add(1 + workers)
	go func() {
		defer s.wg.Done()
		defer close(jobs)
		s.split(jobs, marks)
	}()
	for range workers {
		go func() {
			defer s.wg.Done()
			p := chunkParser{sst: sst}
			for j := range jobs {
				j.out <- p.parse(j.data, j.last)
			}
		}()
	}
	return s, nil
}

// split reads the part and hands it to the workers in chunks of whole
// rows, cut where checkZip's pass marked; the last chunk ends with the
// sheet's data (what follows is not read) or with the part.
func (s *sheetStream) split(jobs chan<- chunkJob, marks *sheetMarks) {
	send := func(data []byte, last bool, err error) bool {
		out := make(chan chunkResult, 1)
		select {
		case s.results <- out:
		case <-s.done:
			return false
		}
		if err != nil {
			out <- chunkResult{err: err}
			return false
		}
		select {
		case jobs <- chunkJob{data: data, last: last, out: out}:
			return true
		case <-s.done:
			return false
		}
	}
	read := func(n int64) ([]byte, error) {
		b := make([]byte, n)
		_, err := io.ReadFull(s.rc, b)
		return b, err
	}
	at := int64(0)
	for _, cut := range marks.cuts {
		b, err := read(cut - at)
		if err != nil {
			send(nil, true, err)
			return
		}
		if !send(b, false, nil) {
			return
		}
		at = cut
	}
	var b []byte
	var err error
	if marks.dataEnd > 0 {
		b, err = read(marks.dataEnd - at)
	} else {
		// A sheet without the end of its data: the rows after the last
		// cut, at most a chunk and a row, then its end is missed.
		b, err = io.ReadAll(io.LimitReader(s.rc, chunkSize+maxRowBytes))
	}
	if err != nil {
		send(nil, true, err)
		return
	}
	send(b, true, nil)
}

func (s *sheetStream) close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	close(s.done)
	s.wg.Wait()
	return s.rc.Close()
}

// next reads the next <row> element; false at the end of the sheet's data.
func (s *sheetStream) next() (bool, error) {
	for s.pos >= len(s.cur) {
		switch {
		case s.err != nil:
			return false, s.err
		case s.ended:
			return false, nil
		}
		res := <-<-s.results
		s.cur, s.pos, s.err, s.ended = res.rows, 0, res.err, res.ended
	}
	r := s.cur[s.pos]
	s.cur[s.pos] = sheetRow{} // the chunk holds no row already read
	s.pos++
	row := r.num
	if row == 0 {
		row = s.row + 1
		if r.refRow != 0 && r.refRow != row {
			return false, fmt.Errorf("cell reference %q is not valid on row %d", r.ref, row)
		}
	}
	if row <= s.row {
		return false, fmt.Errorf("row %d comes after row %d", row, s.row)
	}
	s.row, s.hidden, s.cells, s.info = row, r.hidden, r.cells, r.info
	return true, nil
}

// chunkParser reads the rows of one chunk.
type chunkParser struct {
	dec  *xml.Decoder
	sst  *sharedStrings
	buf  strings.Builder
	row  *sheetRow // the row being read
	strs stringBlock
}

// parse reads the rows of a chunk; last tells whether the part ends with it.
func (p *chunkParser) parse(data []byte, last bool) (res chunkResult) {
	defer func() { // a bad file must never stop the daemon
		if v := recover(); v != nil {
			res.err = fmt.Errorf("%v", v)
		}
	}()
	p.dec = xml.NewDecoder(bytes.NewReader(data))
	width := 0
	for {
		tok, err := p.dec.RawToken()
		switch {
		case errors.Is(err, io.EOF) && last:
			res.err = errors.New("the sheet ends inside its data")
			return res
		case errors.Is(err, io.EOF):
			return res
		case err != nil:
			res.err = err
			return res
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local != "row" {
				continue
			}
			res.rows = append(res.rows, sheetRow{cells: make([]string, 0, width), info: make([]cellInfo, 0, width)})
			p.row = &res.rows[len(res.rows)-1]
			if err := p.readRow(t); err != nil {
				res.rows = res.rows[:len(res.rows)-1]
				res.err = err
				return res
			}
			width = len(p.row.cells)
		case xml.EndElement:
			if t.Name.Local == "sheetData" {
				res.ended = true
				return res
			}
		}
	}
}

// skip reads up to the end of the element just started.
func (p *chunkParser) skip() error {
	for depth := 1; depth > 0; {
		tok, err := p.dec.RawToken()
		if err != nil {
			return err
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		}
	}
	return nil
}

// readRow reads one <row> element.
func (p *chunkParser) readRow(start xml.StartElement) error {
	for _, a := range start.Attr {
		switch a.Name.Local {
		case "r":
			n, err := strconv.Atoi(a.Value)
			if err != nil || n < 1 || n > excelize.TotalRows {
				return fmt.Errorf("row number %q is not valid", a.Value)
			}
			p.row.num = n
		case "hidden":
			p.row.hidden = a.Value == "1" || a.Value == "true"
		}
	}
	col := 0
	for {
		tok, err := p.dec.RawToken()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local != "c" {
				if err := p.skip(); err != nil {
					return err
				}
				continue
			}
			if col, err = p.readCell(t, col); err != nil {
				return err
			}
		case xml.EndElement:
			return nil
		}
	}
}

// checkRef checks that a cell's reference names its row, and returns its
// column.
func (p *chunkParser) checkRef(ref string, col int) (int, error) {
	c, r, err := excelize.CellNameToCoordinates(ref)
	row := p.row
	switch {
	case err != nil || c < col:
	case row.num != 0 && r == row.num:
		return c, nil
	case row.num != 0:
	case row.refRow == 0:
		row.refRow, row.ref = r, ref
		return c, nil
	case r == row.refRow:
		return c, nil
	}
	on := row.num
	if on == 0 {
		on = row.refRow
	}
	return 0, fmt.Errorf("cell reference %q is not valid on row %d", ref, on)
}

// readCell reads one <c> element that follows column col, and returns its column.
func (p *chunkParser) readCell(start xml.StartElement, col int) (int, error) {
	col++
	typ, style := "", 0
	for _, a := range start.Attr {
		switch a.Name.Local {
		case "r":
			c, err := p.checkRef(a.Value, col)
			if err != nil {
				return 0, err
			}
			col = c
		case "s":
			style, _ = strconv.Atoi(a.Value)
		case "t":
			typ = a.Value
		}
	}
	hasF, hasV, text := false, false, ""
	for done := false; !done; {
		tok, err := p.dec.RawToken()
		if err != nil {
			return 0, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "v":
				hasV = true
				text, err = p.charData()
			case "f":
				hasF = true
				err = p.skip()
			case "is":
				hasV = true
				text, err = p.richText()
			default:
				err = p.skip()
			}
			if err != nil {
				return 0, err
			}
		case xml.EndElement:
			done = true
		}
	}
	info := cellInfo{kind: cellText, style: style}
	switch typ {
	case "s":
		if hasV {
			i, err := strconv.Atoi(strings.TrimSpace(text))
			if err == nil {
				text, err = p.sst.get(i, &p.strs)
			}
			if err != nil {
				return 0, fmt.Errorf("cell %s: shared string %q: %w", cellName(col, p.rowNum()), text, err)
			}
		}
	case "b":
		info.kind, text = cellBool, "FALSE"
		if t := strings.TrimSpace(text); t == "1" || strings.EqualFold(t, "true") {
			text = "TRUE"
		}
	case "e":
		info.kind = cellError
	case "str", "inlineStr", "d":
	default:
		info.kind = cellNumber
	}
	if hasF && (!hasV || text == "" && typ != "str") {
		info.kind, text = cellNoValue, ""
	}
	if !hasV && !hasF {
		return col, nil // a formatted empty cell
	}
	r := p.row
	for len(r.cells) < col-1 {
		r.cells = append(r.cells, "")
		r.info = append(r.info, cellInfo{})
	}
	r.cells = append(r.cells, text)
	r.info = append(r.info, info)
	return col, nil
}

// rowNum is the number of the row being read, as far as the chunk knows it.
func (p *chunkParser) rowNum() int {
	if p.row.num != 0 {
		return p.row.num
	}
	return p.row.refRow
}

// charData reads the text of the current element up to its end.
func (p *chunkParser) charData() (string, error) {
	p.buf.Reset()
	for {
		tok, err := p.dec.RawToken()
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.CharData:
			p.buf.Write(t)
		case xml.StartElement:
			if err := p.skip(); err != nil {
				return "", err
			}
		case xml.EndElement:
			return p.buf.String(), nil
		}
	}
}

// richText reads an inline string (<is>) or a shared string (<si>): the
// text of its <t> elements, plain or in rich-text runs; phonetic runs
// (<rPh>) are not part of it.
func (p *chunkParser) richText() (string, error) {
	p.buf.Reset()
	inT := false
	for depth := 1; ; {
		tok, err := p.dec.RawToken()
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.CharData:
			if inT {
				p.buf.Write(t)
			}
		case xml.StartElement:
			switch t.Name.Local {
			case "t":
				inT = true
				depth++
			case "rPh":
				if err := p.skip(); err != nil {
					return "", err
				}
			default:
				depth++
			}
		case xml.EndElement:
			if depth--; depth == 0 {
				return unescapeBSTR(p.buf.String()), nil
			}
			inT = false
		}
	}
}
