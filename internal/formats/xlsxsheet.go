package formats

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"
)

// cellKind is what a workbook cell holds, beyond its text.
type cellKind uint8

const (
	cellText    cellKind = iota // a string (shared, inline, a formula's text, an ISO date)
	cellNumber                  // a number (dates are numbers too)
	cellBool                    // TRUE or FALSE; its text is "TRUE" or "FALSE"
	cellError                   // an error value such as #N/A (its text)
	cellNoValue                 // a formula without a saved value; its text is ""
)

// cellInfo is the kind and style of one cell of the current row.
type cellInfo struct {
	kind  cellKind
	style int
}

// workbookParts locates the parts of a workbook in its zip archive.
type workbookParts struct {
	// sheets maps a worksheet's name to its part (chart sheets are absent).
	sheets        map[string]string
	sharedStrings string
}

type xmlRels struct {
	Rels []struct {
		ID     string `xml:"Id,attr"`
		Type   string `xml:"Type,attr"`
		Target string `xml:"Target,attr"`
	} `xml:"Relationship"`
}

type xmlWorkbookSheets struct {
	Sheets []struct {
		Name string `xml:"name,attr"`
		RID  string `xml:"id,attr"`
	} `xml:"sheets>sheet"`
}

// locateParts reads the package relationships, the workbook's sheet list
// and its relationships.
func locateParts(zr *zip.Reader) (workbookParts, error) {
	var root xmlRels
	if err := unmarshalPart(zr, "_rels/.rels", &root); err != nil {
		return workbookParts{}, err
	}
	wbPath := ""
	for _, r := range root.Rels {
		if strings.HasSuffix(r.Type, "/officeDocument") {
			wbPath = resolvePart("", r.Target)
		}
	}
	if wbPath == "" {
		return workbookParts{}, errors.New("the package names no workbook part")
	}
	var wb xmlWorkbookSheets
	if err := unmarshalPart(zr, wbPath, &wb); err != nil {
		return workbookParts{}, err
	}
	var rels xmlRels
	dir, file := path.Split(wbPath)
	if err := unmarshalPart(zr, dir+"_rels/"+file+".rels", &rels); err != nil {
		return workbookParts{}, err
	}
	p := workbookParts{sheets: map[string]string{}}
	targets := map[string]string{}
	for _, r := range rels.Rels {
		switch {
		case strings.HasSuffix(r.Type, "/worksheet"):
			targets[r.ID] = resolvePart(dir, r.Target)
		case strings.HasSuffix(r.Type, "/sharedStrings"):
			p.sharedStrings = resolvePart(dir, r.Target)
		}
	}
	for _, s := range wb.Sheets {
		if t, ok := targets[s.RID]; ok {
			p.sheets[s.Name] = t
		}
	}
	return p, nil
}

// resolvePart resolves a relationship target against the folder of its source.
func resolvePart(dir, target string) string {
	if t, ok := strings.CutPrefix(target, "/"); ok {
		return path.Clean(t)
	}
	return path.Join(dir, target)
}

func unmarshalPart(zr *zip.Reader, name string, v any) error {
	rc, err := zr.Open(name)
	if err != nil {
		return fmt.Errorf("opening part %s: %w", name, err)
	}
	defer rc.Close()
	if err := xml.NewDecoder(rc).Decode(v); err != nil {
		return fmt.Errorf("reading part %s: %w", name, err)
	}
	return nil
}

// bstrEscape is how OOXML writes a character XML 1.0 cannot hold: _xHHHH_.
var bstrEscape = regexp.MustCompile(`_x[0-9A-Fa-f]{4}_`)

// unescapeBSTR decodes the _xHHHH_ escapes of a string ("_x005F_" is "_").
func unescapeBSTR(s string) string {
	if !strings.Contains(s, "_x") {
		return s
	}
	return bstrEscape.ReplaceAllStringFunc(s, func(m string) string {
		n, _ := strconv.ParseUint(m[2:6], 16, 16)
		return string(rune(n))
	})
}

// mergeRange is a range of merged cells (1-based, inclusive).
type mergeRange struct {
	ref            string
	c1, r1, c2, r2 int
}

// readMerges reads the merged ranges of a worksheet part, which follow its
// rows, sorted by first row.
func readMerges(zr *zip.Reader, name string) ([]mergeRange, error) {
	if has, err := partContains(zr, name, mergeCellTag); err != nil || !has {
		return nil, err
	}
	rc, err := zr.Open(name)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", name, err)
	}
	defer rc.Close()
	dec := xml.NewDecoder(rc)
	var out []mergeRange
	for {
		tok, err := dec.RawToken()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != "mergeCell" {
			continue
		}
		ref := attr(se, "ref")
		from, to, _ := strings.Cut(ref, ":")
		m := mergeRange{ref: ref}
		if m.c1, m.r1, err = excelize.CellNameToCoordinates(from); err == nil && to != "" {
			m.c2, m.r2, err = excelize.CellNameToCoordinates(to)
		}
		if err != nil || to == "" {
			return nil, fmt.Errorf("reading %s: merged range %q: not a range of cells", name, ref)
		}
		out = append(out, m)
	}
	sortMerges(out)
	return out, nil
}

var mergeCellTag = []byte("mergeCell")

// partContains reports whether a part's bytes contain sub: a look through
// the unpacked bytes, much cheaper than reading the XML, that spares the
// pass over a sheet without merged cells (nearly all of them).
func partContains(zr *zip.Reader, name string, sub []byte) (bool, error) {
	rc, err := zr.Open(name)
	if err != nil {
		return false, fmt.Errorf("opening %s: %w", name, err)
	}
	defer rc.Close()
	buf := make([]byte, 64<<10)
	keep := 0 // bytes of the previous chunk kept, for a match across chunks
	for {
		n, err := rc.Read(buf[keep:])
		if bytes.Contains(buf[:keep+n], sub) {
			return true, nil
		}
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("reading %s: %w", name, err)
		}
		if end := keep + n; end >= len(sub) {
			keep = copy(buf, buf[end-len(sub)+1:end])
		} else {
			keep = end
		}
	}
}

func sortMerges(m []mergeRange) {
	for i := 1; i < len(m); i++ { // insertion sort: ranges are nearly sorted
		for j := i; j > 0 && m[j].r1 < m[j-1].r1; j-- {
			m[j], m[j-1] = m[j-1], m[j]
		}
	}
}

func attr(se xml.StartElement, name string) string {
	for _, a := range se.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// sheetStream reads the rows of a worksheet part one at a time.
type sheetStream struct {
	rc  io.ReadCloser
	dec *xml.Decoder
	sst *sharedStrings
	// The current row: its number, whether it is hidden, its cells and
	// what each holds.
	row    int
	hidden bool
	cells  []string
	info   []cellInfo
	ended  bool
	buf    strings.Builder
}

func openSheetStream(zr *zip.Reader, name string, sst *sharedStrings) (*sheetStream, error) {
	rc, err := zr.Open(name)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", name, err)
	}
	return &sheetStream{rc: rc, dec: xml.NewDecoder(rc), sst: sst}, nil
}

func (s *sheetStream) close() error { return s.rc.Close() }

// The sheet is read with RawToken, which does not translate name spaces
// (elements are matched by local name) and does not check that end tags
// match: checkZip has checked the part whole; skip counts the depth itself.

// next reads the next <row> element; false at the end of the sheet's data.
func (s *sheetStream) next() (bool, error) {
	for !s.ended {
		tok, err := s.dec.RawToken()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return false, errors.New("the sheet ends inside its data")
			}
			return false, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local == "row" {
				return true, s.readRow(t)
			}
		case xml.EndElement:
			if t.Name.Local == "sheetData" {
				s.ended = true
			}
		}
	}
	return false, nil
}

// skip reads up to the end of the element just started.
func (s *sheetStream) skip() error {
	for depth := 1; depth > 0; {
		tok, err := s.dec.RawToken()
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
func (s *sheetStream) readRow(start xml.StartElement) error {
	s.cells, s.info = s.cells[:0], s.info[:0]
	s.hidden = false
	row := s.row + 1
	for _, a := range start.Attr {
		switch a.Name.Local {
		case "r":
			n, err := strconv.Atoi(a.Value)
			if err != nil || n < 1 || n > excelize.TotalRows {
				return fmt.Errorf("row number %q is not valid", a.Value)
			}
			row = n
		case "hidden":
			s.hidden = a.Value == "1" || a.Value == "true"
		}
	}
	if row <= s.row {
		return fmt.Errorf("row %d comes after row %d", row, s.row)
	}
	s.row = row
	col := 0
	for {
		tok, err := s.dec.RawToken()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local != "c" {
				if err := s.skip(); err != nil {
					return err
				}
				continue
			}
			if col, err = s.readCell(t, col); err != nil {
				return err
			}
		case xml.EndElement:
			return nil
		}
	}
}

// readCell reads one <c> element that follows column col, and returns its column.
func (s *sheetStream) readCell(start xml.StartElement, col int) (int, error) {
	col++
	typ, style := "", 0
	for _, a := range start.Attr {
		switch a.Name.Local {
		case "r":
			c, r, err := excelize.CellNameToCoordinates(a.Value)
			if err != nil || r != s.row || c < col {
				return 0, fmt.Errorf("cell reference %q is not valid on row %d", a.Value, s.row)
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
		tok, err := s.dec.RawToken()
		if err != nil {
			return 0, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "v":
				hasV = true
				text, err = s.charData()
			case "f":
				hasF = true
				err = s.skip()
			case "is":
				hasV = true
				text, err = s.inlineText()
			default:
				err = s.skip()
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
				text, err = s.sst.get(i)
			}
			if err != nil {
				return 0, fmt.Errorf("cell %s: shared string %q: %w", cellName(col, s.row), text, err)
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
	for len(s.cells) < col-1 {
		s.cells = append(s.cells, "")
		s.info = append(s.info, cellInfo{})
	}
	s.cells = append(s.cells, text)
	s.info = append(s.info, info)
	return col, nil
}

// charData reads the text of the current element up to its end.
func (s *sheetStream) charData() (string, error) {
	s.buf.Reset()
	for {
		tok, err := s.dec.RawToken()
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.CharData:
			s.buf.Write(t)
		case xml.StartElement:
			if err := s.skip(); err != nil {
				return "", err
			}
		case xml.EndElement:
			return s.buf.String(), nil
		}
	}
}

// inlineText reads an inline string (<is>): the text of its <t> elements,
// plain or in rich-text runs; phonetic runs (<rPh>) are not part of it.
func (s *sheetStream) inlineText() (string, error) {
	s.buf.Reset()
	inT := false
	for {
		tok, err := s.dec.RawToken()
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.CharData:
			if inT {
				s.buf.Write(t)
			}
		case xml.StartElement:
			switch t.Name.Local {
			case "t":
				inT = true
			case "rPh":
				if err := s.skip(); err != nil {
					return "", err
				}
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "t":
				inT = false
			case "is":
				return unescapeBSTR(s.buf.String()), nil
			}
		}
	}
}

func cellName(col, row int) string {
	c, _ := excelize.CoordinatesToCellName(col, row)
	return c
}
