package formats

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// The byte budget of a workbook's sheets and shared strings, checked while
// checkZip reads them, before excelize opens the workbook. excelize reads
// a sheet with encoding/xml, which holds each token (a run of text, a tag,
// a comment) whole in memory, and Rows.Columns holds a whole row; its
// options only cap the unpacked size of the whole workbook
// (UnzipSizeLimit) and choose memory or a temporary file for a part
// (UnzipXMLSizeLimit). So a 1.5 MB workbook under the 1.6 GiB limit whose
// sheet holds 1.5 GB of spaces would take gigabytes. Checking with
// encoding/xml itself costs more than excelize's own reading (16 s for a
// 100 MB sheet); budgetWriter only looks for '<' with bytes.IndexByte and
// at the first bytes of each tag.
const (
	// maxCellBytes caps one cell (<c>), one shared string (<si>), one run
	// of text or spaces, one tag and one comment: a cell holds at most
	// 32,767 characters, at most about 200 KB written as XML.
	maxCellBytes = 1 << 20
	// maxRowBytes caps one row (<row>).
	maxRowBytes = 16 << 20
)

// budgeted reports whether a part is read under the byte budget.
func budgeted(part string) bool {
	p := strings.ToLower(part)
	return strings.HasSuffix(p, ".xml") && (strings.HasPrefix(p, "xl/worksheets/") || p == "xl/sharedstrings.xml")
}

// budgetError is a part over the byte budget.
type budgetError struct{ msg string }

func (e *budgetError) Error() string {
	return e.msg + " (a cell holds at most 32,767 characters)"
}

// tagHead is how much of a tag budgetWriter looks at: its name and first
// attribute.
const tagHead = 64

// budgetWriter is written the XML of a part and fails the write that takes
// a token, a cell or a row over its budget.
type budgetWriter struct {
	n      int64 // bytes written
	lastLT int64 // offset of the last '<'

	inTag bool   // the head of a tag is being read
	head  []byte // what follows its '<', up to '>' or tagHead bytes

	term      string // the end of the comment, CDATA section or processing instruction under way
	termStart int64
	carry     []byte // its last bytes, to find term across writes
	// The open cell (or shared string) and row: where they start and
	// their tag's head, to name them in an error.
	cell, row         bool
	cellStart         int64
	rowStart          int64
	cellHead, rowHead []byte
	// marks, for a worksheet, records what sheetStream needs of it.
	marks   *sheetMarks
	lastCut int64
}

// sheetMarks is what checkZip's pass learned of a worksheet part.
type sheetMarks struct {
	// cuts are offsets just past a </row> end tag, at least chunkSize
	// apart: where the part is cut into chunks of whole rows.
	cuts    []int64
	dataEnd int64 // the offset just past </sheetData>; 0 without it
	merges  bool  // it holds merged ranges
}

func (b *budgetWriter) Write(p []byte) (int, error) {
	total := len(p)
	for len(p) > 0 {
		switch {
		case b.term != "":
			var err error
			if p, err = b.skipSpecial(p); err != nil {
				return 0, err
			}
		case b.inTag:
			take := len(p)
			if i := bytes.IndexByte(p, '>'); i >= 0 {
				take = i + 1
			}
			take = min(take, tagHead-len(b.head))
			b.head = append(b.head, p[:take]...)
			b.n += int64(take)
			p = p[take:]
			if b.head[len(b.head)-1] == '>' || len(b.head) >= tagHead {
				b.inTag = false
				if err := b.tag(); err != nil {
					return 0, err
				}
			}
		default:
			i := bytes.IndexByte(p, '<')
			if i < 0 {
				b.n += int64(len(p))
				p = nil
				break
			}
			b.n += int64(i)
			if err := b.check(); err != nil {
				return 0, err
			}
			b.lastLT, b.inTag, b.head = b.n, true, b.head[:0]
			b.n++
			p = p[i+1:]
		}
		if err := b.check(); err != nil {
			return 0, err
		}
	}
	return total, nil
}

// check fails when what is open is over its budget.
func (b *budgetWriter) check() error {
	switch {
	case b.cell && (b.n-b.cellStart > maxCellBytes || b.n-b.lastLT > maxCellBytes):
		return &budgetError{fmt.Sprintf("%s holds more than %s", describe(b.cellHead), humanBytes(maxCellBytes))}
	case b.term != "" && b.n-b.termStart > maxCellBytes:
		return &budgetError{fmt.Sprintf("a comment or other markup of more than %s, from byte %d", humanBytes(maxCellBytes), b.termStart)}
	case b.term == "" && b.n-b.lastLT > maxCellBytes:
		return &budgetError{fmt.Sprintf("a run of more than %s of text or spaces outside any cell, from byte %d", humanBytes(maxCellBytes), b.lastLT)}
	case b.row && b.n-b.rowStart > maxRowBytes:
		return &budgetError{fmt.Sprintf("%s holds more than %s", describe(b.rowHead), humanBytes(maxRowBytes))}
	}
	return nil
}

// tag looks at the head of a tag: a row or a cell opens or closes, or a
// comment, CDATA section or processing instruction starts.
func (b *budgetWriter) tag() error {
	h := b.head
	if h[0] == '!' || h[0] == '?' {
		return b.special(h)
	}
	end := h[0] == '/'
	switch name := tagName(h); {
	case bytes.Equal(name, []byte("row")):
		b.cell, b.row, b.rowStart = false, !end, b.lastLT
		b.rowHead = append(b.rowHead[:0], h...)
		// A row ends with its end tag, or is an empty element.
		closed := end && h[len(h)-1] == '>' || bytes.HasSuffix(h, []byte("/>"))
		if m := b.marks; m != nil && closed && b.n-b.lastCut >= chunkSize && m.dataEnd == 0 {
			m.cuts = append(m.cuts, b.n)
			b.lastCut = b.n
		}
	case bytes.Equal(name, []byte("c")), bytes.Equal(name, []byte("si")):
		b.cell, b.cellStart = !end, b.lastLT
		b.cellHead = append(b.cellHead[:0], h...)
	case b.marks == nil:
	case end && bytes.Equal(name, []byte("sheetData")) && h[len(h)-1] == '>':
		if b.marks.dataEnd == 0 {
			b.marks.dataEnd = b.n
		}
	case !end && bytes.Equal(name, []byte("mergeCell")):
		b.marks.merges = true
	}
	return nil
}

// special starts a comment, CDATA section or processing instruction whose
// head is h, and refuses a document type declaration.
func (b *budgetWriter) special(h []byte) error {
	closed := h[len(h)-1] == '>'
	for _, s := range []struct{ start, term string }{{"!--", "-->"}, {"![CDATA[", "]]>"}, {"?", "?>"}} {
		if !bytes.HasPrefix(h, []byte(s.start)) {
			continue
		}
		if closed && len(h) >= len(s.start)+len(s.term)-1 && bytes.HasSuffix(h, []byte(s.term)) {
			return nil // ended within its head
		}
		b.term, b.termStart = s.term, b.lastLT
		b.carry = append(b.carry[:0], h[max(0, len(h)-len(s.term)+1):]...)
		return nil
	}
	return &budgetError{"a document type declaration, which a spreadsheet never holds"}
}

var refAttr = regexp.MustCompile(`\sr="([A-Z]*[0-9]+)"`)

// describe names the row or cell whose tag starts with head: "row 7",
// "cell B7", "a shared string".
func describe(head []byte) string {
	ref := "?"
	if m := refAttr.FindSubmatch(head); m != nil {
		ref = string(m[1])
	}
	switch string(tagName(head)) {
	case "si":
		return "a shared string"
	case "row":
		return "row " + ref
	}
	return "cell " + ref
}

// tagName is the local name of the tag whose head is h, without a leading
// '/' (end) or prefix.
func tagName(h []byte) []byte {
	h = bytes.TrimPrefix(h, []byte("/"))
	start := 0
	for i, c := range h {
		switch c {
		case ' ', '\t', '\r', '\n', '/', '>':
			return h[start:i]
		case ':':
			start = i + 1
		}
	}
	return h[start:]
}

// skipSpecial reads on to the end of a comment, CDATA section or
// processing instruction and returns what follows it.
func (b *budgetWriter) skipSpecial(p []byte) ([]byte, error) {
	term := []byte(b.term)
	// The end may straddle the previous write and this one.
	joined := append(b.carry, p[:min(len(p), len(term)-1)]...)
	used := -1
	if i := bytes.Index(joined, term); i >= 0 {
		used = i + len(term) - len(b.carry)
	} else if i := bytes.Index(p, term); i >= 0 {
		used = i + len(term)
	}
	if used < 0 {
		b.n += int64(len(p))
		b.carry = append(b.carry[:0], joined[max(0, len(joined)-len(term)+1):]...)
		if len(p) >= len(term)-1 {
			b.carry = append(b.carry[:0], p[len(p)-len(term)+1:]...)
		}
		return nil, nil
	}
	b.n += int64(used)
	if err := b.check(); err != nil {
		return nil, err
	}
	b.term, b.lastLT = "", b.n-1
	return p[used:], nil
}
