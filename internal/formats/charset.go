package formats

import (
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// charsetWatch passes the bytes of a CSV file read in a single-byte
// charset through and watches them for signs that the route names the
// wrong charset: multi-byte UTF-8 sequences in a file that is valid UTF-8
// throughout (windows-1252 would turn "Café" into "CafÃ©"), or, in a
// Latin-1 route, bytes 0x80–0x9F, which Latin-1 reads as control
// characters and Windows-1252 as € – “ ” and the like.
type charsetWatch struct {
	r       io.Reader
	charset string
	cm      *charmap.Charmap
	line    int // line of the next byte

	// carry holds the start of a UTF-8 sequence cut by the end of a read.
	carry [utf8.UTFMax]byte
	nc    int
	// notUTF8 says the file holds a byte sequence that is not UTF-8.
	notUTF8 bool
	// multi is the first multi-byte UTF-8 sequence, on line multiLine.
	multi     []byte
	multiLine int
	// c1 is the first byte 0x80–0x9F of a Latin-1 file, on line c1Line.
	c1     byte
	c1Line int
}

func newCharsetWatch(r io.Reader, charset string) *charsetWatch {
	w := &charsetWatch{r: r, charset: charset, cm: charmap.Windows1252, line: 1}
	if charset == charsetLatin1 {
		w.cm = charmap.ISO8859_1
	}
	return w
}

func (w *charsetWatch) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	w.scan(p[:n], err != nil)
	return n, err
}

// scan looks at the next bytes of the file; last says no more follow.
func (w *charsetWatch) scan(b []byte, last bool) {
	latin1 := w.charset == charsetLatin1 && w.c1 == 0
	if w.notUTF8 && !latin1 {
		return // nothing more to learn
	}
	if latin1 {
		for j := nonASCII(b); j < len(b); j += 1 + nonASCII(b[j+1:]) {
			if c := b[j]; c < 0xA0 {
				w.c1, w.c1Line = c, w.line+bytes.Count(b[:j], []byte{'\n'})
				break
			}
		}
	}
	all := b
	defer func() { w.line += bytes.Count(all, []byte{'\n'}) }()
	if w.nc > 0 && len(b) > 0 && !w.notUTF8 {
		// Complete the sequence the previous read cut.
		k := copy(w.carry[w.nc:], b)
		seq := w.carry[:w.nc+k]
		if !utf8.FullRune(seq) {
			w.nc += k
			return
		}
		_, size := utf8.DecodeRune(seq)
		if size <= w.nc {
			w.notUTF8 = true
			return
		}
		w.rune(seq[:size], w.line)
		b = b[size-w.nc:]
		w.nc = 0
	}
	for i := 0; i < len(b) && !w.notUTF8; {
		if b[i] < utf8.RuneSelf {
			i += nonASCII(b[i:])
			continue
		}
		if !utf8.FullRune(b[i:]) {
			w.nc = copy(w.carry[:], b[i:])
			break
		}
		_, size := utf8.DecodeRune(b[i:])
		if w.multi == nil || size == 1 {
			w.rune(b[i:i+size], w.line+bytes.Count(all[:len(all)-len(b)+i], []byte{'\n'}))
		}
		i += size
	}
	if last && w.nc > 0 {
		w.notUTF8, w.nc = true, 0
	}
}

// rune notes a non-ASCII sequence: a multi-byte rune, or an invalid byte
// (one byte).
func (w *charsetWatch) rune(seq []byte, line int) {
	if len(seq) == 1 {
		w.notUTF8 = true
		return
	}
	if w.multi == nil {
		w.multi, w.multiLine = append([]byte(nil), seq...), line
	}
}

// problem is, once the whole file was read, the charset it looks like
// when that is not the route's, as a problem of the file.
func (w *charsetWatch) problem() *fileProblem {
	switch {
	case w.multi != nil && !w.notUTF8:
		return &fileProblem{row: w.multiLine, charset: charsetUTF8, msg: fmt.Sprintf(
			"the file looks like UTF-8, not %s: line %d holds %q written as UTF-8 (bytes % X), which %s reads as %q; set charset = %q on the route (or save the file in %s)",
			w.charset, w.multiLine, w.multi, w.multi, w.charset, w.decode(w.multi), charsetUTF8, w.charset)}
	case w.c1 != 0:
		return &fileProblem{row: w.c1Line, charset: charsetWindows1252, msg: fmt.Sprintf(
			"the file looks like Windows-1252, not iso-8859-1: line %d holds the byte 0x%X, a control character in iso-8859-1 but %q in windows-1252; set charset = %q on the route",
			w.c1Line, w.c1, string(charmap.Windows1252.DecodeByte(w.c1)), charsetWindows1252)}
	}
	return nil
}

// decode reads b in the route's charset.
func (w *charsetWatch) decode(b []byte) string {
	var s strings.Builder
	for _, c := range b {
		s.WriteRune(w.cm.DecodeByte(c))
	}
	return s.String()
}

// nonASCII returns the index of the first byte of b that is not ASCII
// (len(b) when none is), eight bytes at a time.
func nonASCII(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if binary.LittleEndian.Uint64(b[i:])&0x8080808080808080 != 0 {
			break
		}
	}
	for ; i < len(b); i++ {
		if b[i] >= utf8.RuneSelf {
			return i
		}
	}
	return i
}

// locate finds, on a line of the file, the cell a charset problem is in:
// its column index and its text read in the charset that fits the bytes
// (-1 and "" when the line cannot be split on its own).
func (s *csvSource) locate(line int, charset string) (int, string) {
	raw, err := s.rawLine(line)
	if err != nil {
		return -1, ""
	}
	text := string(raw)
	if charset == charsetWindows1252 {
		text, err = charmap.Windows1252.NewDecoder().String(text)
		if err != nil {
			return -1, ""
		}
	}
	cr := csv.NewReader(strings.NewReader(text))
	cr.Comma, cr.FieldsPerRecord, cr.LazyQuotes = s.delim, -1, true
	rec, err := cr.Read()
	if err != nil {
		return -1, ""
	}
	for i, f := range rec {
		if nonASCII([]byte(f)) < len(f) {
			return i, strings.TrimSpace(f)
		}
	}
	return -1, ""
}

// rawLine reads line n of the file again (at most maxLocatedLine bytes of
// it), from its start: this happens once, on a file in the wrong charset,
// at its end.
func (s *csvSource) rawLine(n int) ([]byte, error) {
	s.curLine, s.curOff = 0, 0
	from, err := s.seekLine(n)
	if err != nil {
		return nil, err
	}
	to, err := s.seekLine(n + 1)
	if err != nil {
		return nil, err
	}
	if to-from > maxLocatedLine {
		return nil, fmt.Errorf("line %d is longer than %d bytes", n, maxLocatedLine)
	}
	b := make([]byte, to-from)
	if _, err := s.raw.ReadAt(b, from); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	b = bytes.TrimPrefix(b, []byte("\xEF\xBB\xBF"))
	return bytes.TrimRight(b, "\r\n"), nil
}

// maxLocatedLine bounds the line rawLine reads.
const maxLocatedLine = 4096
