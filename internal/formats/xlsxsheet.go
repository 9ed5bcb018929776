package formats

import (
	"archive/zip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
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
// rows, sorted by first row (read only for a part that has them: checkZip
// marks it).
func readMerges(zr *zip.Reader, name string) ([]mergeRange, error) {
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
	slices.SortStableFunc(out, func(a, b mergeRange) int { return a.r1 - b.r1 })
	return out, nil
}

func attr(se xml.StartElement, name string) string {
	for _, a := range se.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func cellName(col, row int) string {
	c, _ := excelize.CoordinatesToCellName(col, row)
	return c
}
