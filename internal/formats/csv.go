package formats

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// Charsets of CSV files.
const (
	charsetUTF8        = "utf-8"
	charsetWindows1252 = "windows-1252"
	charsetLatin1      = "iso-8859-1"
)

// sniffSize is how much of a CSV file delimiter detection looks at.
const sniffSize = 64 << 10

// readSize is the read buffer of CSV text; a line longer than that is read
// by encoding/csv alone.
const readSize = 256 << 10

// csvSource reads CSV rows.
//
// A line without any double quote is split by csvSource itself, exactly as
// encoding/csv would split it (fields between delimiters, "\r\n" read as
// "\n", empty lines skipped): that is nearly every line of a legacy export,
// and the hot loop of reading a file. Any other line is read by encoding/csv,
// which shares the buffered reader: it reads exactly the lines of a record,
// so the two take turns without losing a byte.
type csvSource struct {
	delim rune // the delimiter in use, configured or detected
	r     *csv.Reader
	br    *bufio.Reader // the text, shared with r
	// comma is the delimiter when it is one byte (0: every line goes to r).
	comma byte
	rec   []string // the record of the last line split here (reused)
	// block holds whole lines without any double quote, read from br
	// already, and pos is where the next one starts: the lines split here
	// are carved from it, one allocation for many lines (see fillBlock).
	// r reads br only once block is used up.
	block string
	pos   int
	// fastLines counts the lines consumed here, csvLines those r consumed
	// (r numbers lines among its own only).
	fastLines, csvLines int
	// raw is the file, to locate an encoding error exactly.
	raw  io.ReaderAt
	size int64
	// utf8 says fields must be valid UTF-8 (the file is not transcoded).
	utf8 bool
}

// normCharset maps the configured charset to one filebridge reads.
func normCharset(s string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "utf-8", "utf8":
		return charsetUTF8, nil
	case "windows-1252", "cp1252":
		return charsetWindows1252, nil
	case "iso-8859-1", "latin1", "iso8859-1", "latin-1":
		return charsetLatin1, nil
	}
	return "", fmt.Errorf("unknown charset %q: use %q, %q or %q", s, charsetUTF8, charsetWindows1252, charsetLatin1)
}

func openCSV(r io.ReaderAt, size int64, opts Options) (*csvSource, error) {
	charset, err := normCharset(opts.Charset)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(io.NewSectionReader(r, 0, size), readSize)
	head, err := br.Peek(sniffSize)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("reading: %w", err)
	}
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		return nil, &fileProblem{msg: "this is an XLSX workbook (or another zip file), not a CSV file: name it .xlsx, or set format = \"xlsx\" on the route"}
	case bytes.HasPrefix(head, oleMagic):
		return nil, &fileProblem{msg: "this is an Excel workbook, not a CSV file: save it as CSV UTF-8, or as .xlsx"}
	case bytes.HasPrefix(head, []byte{0xFF, 0xFE}), bytes.HasPrefix(head, []byte{0xFE, 0xFF}):
		return nil, &fileProblem{msg: "the file is UTF-16 text: save it as \"CSV UTF-8\" (or set charset = \"windows-1252\" and save it as plain CSV)"}
	}
	if bytes.HasPrefix(head, []byte("\xEF\xBB\xBF")) {
		// A UTF-8 byte order mark: the file is UTF-8 whatever the route says.
		_, _ = br.Discard(3)
		head = head[3:]
		charset = charsetUTF8
	}
	delim := opts.Delimiter
	if delim == 0 {
		delim = detectDelimiter(head)
	}
	if !validDelim(delim) {
		return nil, fmt.Errorf("delimiter %q cannot separate CSV fields: use ',', ';', tab or '|'", delim)
	}
	s := &csvSource{raw: r, size: size, delim: delim}
	// in is handed to encoding/csv as is: it uses a *bufio.Reader directly,
	// without buffering of its own.
	in := br
	switch charset {
	case charsetWindows1252:
		in = bufio.NewReaderSize(charmap.Windows1252.NewDecoder().Reader(br), readSize)
	case charsetLatin1:
		in = bufio.NewReaderSize(charmap.ISO8859_1.NewDecoder().Reader(br), readSize)
	default:
		s.utf8 = true
	}
	s.br = in
	if delim < utf8.RuneSelf {
		s.comma = byte(delim)
	}
	cr := csv.NewReader(in)
	cr.Comma = delim
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	cr.LazyQuotes = false
	s.r = cr
	return s, nil
}

func validDelim(r rune) bool {
	return r != 0 && r != '"' && r != '\r' && r != '\n' && r != utf8.RuneError && utf8.ValidRune(r)
}

func (s *csvSource) next() (int, []string, error) {
	for s.comma != 0 {
		if s.pos == len(s.block) {
			s.fillBlock()
		}
		if s.pos < len(s.block) {
			// A line of the block: it ends with "\n" and holds no quote.
			rest := s.block[s.pos:]
			n := strings.IndexByte(rest, '\n') + 1
			text := rest[:n-1]
			if len(text) > 0 && text[len(text)-1] == '\r' {
				text = text[:len(text)-1]
			}
			s.pos += n
			s.fastLines++
			if len(text) == 0 {
				continue
			}
			rec, ascii := splitLine(s.rec[:0], text, s.comma)
			s.rec = rec
			if !ascii && (strings.IndexByte(text, 0) >= 0 || s.utf8 && !utf8.ValidString(text)) {
				// The delimiter is ASCII: the line is text if and only if every field is.
				return 0, nil, s.encodingProblem()
			}
			return s.fastLines + s.csvLines, rec, nil
		}
		line, err := s.peekLine()
		switch {
		case err != nil:
			return 0, nil, fmt.Errorf("reading CSV: %w", err)
		case line == nil:
			return s.csvNext()
		case len(line) == 0:
			return 0, nil, io.EOF
		}
		// What encoding/csv does to a line: drop a final "\r" before the end
		// of the file, read "\r\n" as "\n", skip empty lines.
		n := len(line)
		text := line
		if text[n-1] == '\n' {
			text = text[:n-1]
			if len(text) > 0 && text[len(text)-1] == '\r' {
				text = text[:len(text)-1]
			}
		} else if text[n-1] == '\r' {
			text = text[:n-1]
		}
		if len(text) == 0 {
			_, _ = s.br.Discard(n)
			s.fastLines++
			continue
		}
		if bytes.IndexByte(text, '"') >= 0 {
			return s.csvNext()
		}
		if !plainASCIIBytes(text) && (bytes.IndexByte(text, 0) >= 0 || s.utf8 && !utf8.Valid(text)) {
			// The delimiter is ASCII: the line is text if and only if every field is.
			return 0, nil, s.encodingProblem()
		}
		s.rec, _ = splitLine(s.rec[:0], string(text), s.comma)
		_, _ = s.br.Discard(n)
		s.fastLines++
		return s.fastLines + s.csvLines, s.rec, nil
	}
	return s.csvNext()
}

// blockSize is the most bytes fillBlock copies at once.
const blockSize = 32 << 10

// fillBlock moves into block the complete lines at the start of the
// buffered text, up to blockSize bytes and up to the first line with a
// double quote (which encoding/csv reads). It leaves block empty when the
// next line is not such a line, or ends the file without a "\n": the line
// by line path reads it. Read errors are left to that path too.
//
// Lines are taken from one string so that reading a line allocates nothing:
// a document handed on keeps the text of its block alive (blockSize bytes
// at most), not just its own line's.
func (s *csvSource) fillBlock() {
	s.block, s.pos = "", 0
	buf, _ := s.br.Peek(s.br.Buffered())
	if len(buf) < blockSize {
		buf, _ = s.br.Peek(s.br.Size())
	}
	buf = buf[:min(len(buf), blockSize)]
	if q := bytes.IndexByte(buf, '"'); q >= 0 {
		buf = buf[:q]
	}
	if end := bytes.LastIndexByte(buf, '\n') + 1; end > 0 {
		s.block = string(buf[:end])
		_, _ = s.br.Discard(end)
	}
}

// splitLine appends to rec the fields of str separated by comma, and
// reports whether str is plain ASCII (see plainASCII). It looks at eight
// bytes at a time.
func splitLine(rec []string, str string, comma byte) ([]string, bool) {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	const low7 = ^uint64(hi)
	c := lo * uint64(comma)
	var notASCII uint64
	start, i := 0, 0
	for ; i+8 <= len(str); i += 8 {
		w := uint64(str[i]) | uint64(str[i+1])<<8 | uint64(str[i+2])<<16 | uint64(str[i+3])<<24 |
			uint64(str[i+4])<<32 | uint64(str[i+5])<<40 | uint64(str[i+6])<<48 | uint64(str[i+7])<<56
		notASCII |= w&hi | (w-lo)&^w&hi
		x := w ^ c
		// The high bit of each byte of m is set where x has a zero byte.
		m := ^((x&low7 + low7) | x | low7)
		for m != 0 {
			j := i + bits.TrailingZeros64(m)>>3
			rec = append(rec, str[start:j])
			start = j + 1
			m &= m - 1
		}
	}
	for ; i < len(str); i++ {
		b := str[i]
		if b == 0 || b >= utf8.RuneSelf {
			notASCII = 1
		}
		if b == comma {
			rec = append(rec, str[start:i])
			start = i + 1
		}
	}
	return append(rec, str[start:]), notASCII == 0
}

// peekLine returns the next line of text with its "\n" (without it at the
// end of the file) without consuming it: empty at the end of the file, nil
// when the line is longer than the buffer.
func (s *csvSource) peekLine() ([]byte, error) {
	buf, _ := s.br.Peek(s.br.Buffered())
	if i := bytes.IndexByte(buf, '\n'); i >= 0 {
		return buf[:i+1], nil
	}
	buf, err := s.br.Peek(s.br.Size())
	if i := bytes.IndexByte(buf, '\n'); i >= 0 {
		return buf[:i+1], nil
	}
	switch {
	case err == nil || errors.Is(err, bufio.ErrBufferFull):
		return nil, nil
	case errors.Is(err, io.EOF):
		return buf[:len(buf):len(buf)], nil
	}
	return nil, err
}

// csvNext reads a record with encoding/csv, numbering its lines among all
// the lines of the file.
func (s *csvSource) csvNext() (int, []string, error) {
	rec, err := s.r.Read()
	if err == nil {
		line, _ := s.r.FieldPos(0)
		// The record ends on the line of its last field, or later when that
		// field is quoted and holds line breaks.
		last, _ := s.r.FieldPos(len(rec) - 1)
		s.csvLines = last + strings.Count(rec[len(rec)-1], "\n")
		if !s.textOK(rec) {
			return 0, nil, s.encodingProblem()
		}
		return line + s.fastLines, rec, nil
	}
	if errors.Is(err, io.EOF) {
		return 0, nil, io.EOF
	}
	if rec == nil && s.rec != nil {
		// encoding/csv reuses the slice of the record before, which was split here.
		rec = s.rec[:0]
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		// encoding/csv stops reading on the line of the error.
		s.csvLines = pe.Line
		start, at := pe.StartLine+s.fastLines, pe.Line+s.fastLines
		if !s.textOK(rec) {
			return 0, nil, s.encodingProblem()
		}
		return start, rec, &rowError{row: start, cells: rec, msg: parseErrorMessage(pe, start, at)}
	}
	return 0, nil, fmt.Errorf("reading CSV: %w", err)
}

// parseErrorMessage explains a CSV syntax error of a record from line start
// found on line at.
func parseErrorMessage(pe *csv.ParseError, start, at int) string {
	switch {
	case errors.Is(pe.Err, csv.ErrBareQuote):
		return fmt.Sprintf("a quote \" appears inside an unquoted value (line %d, byte %d): put the whole value in quotes and double the inner quotes (\"\")", at, pe.Column)
	case errors.Is(pe.Err, csv.ErrQuote):
		if at != start {
			return fmt.Sprintf("a quoted value opened on line %d is not closed properly (near line %d): check the quotes", start, at)
		}
		return "a quoted value is not closed properly: check the quotes (double a quote inside a quoted value: \"\")"
	}
	return pe.Err.Error()
}

func (s *csvSource) cell(int, int) string { return "" }
func (s *csvSource) sheet() string        { return "" }
func (s *csvSource) close() error         { return nil }

// detectDelimiter picks among ',' ';' tab '|' the one that splits the first
// line into the most fields, preferring counts that the next lines repeat.
func detectDelimiter(head []byte) rune {
	lines := sniffLines(head, 20)
	if len(lines) == 0 {
		return ','
	}
	best, bestCount, bestAgree := ',', 0, -1
	for _, d := range []byte{',', ';', '\t', '|'} {
		n := countOutsideQuotes(lines[0], d)
		if n == 0 {
			continue
		}
		agree := 0
		for _, l := range lines[1:] {
			if countOutsideQuotes(l, d) == n {
				agree++
			}
		}
		if agree > bestAgree || (agree == bestAgree && n > bestCount) {
			best, bestCount, bestAgree = rune(d), n, agree
		}
	}
	return best
}

// sniffLines splits the start of a file into at most n complete non-empty
// lines, keeping quoted newlines inside their line.
func sniffLines(b []byte, n int) [][]byte {
	var out [][]byte
	inQ, start := false, 0
	for i := 0; i < len(b) && len(out) < n; i++ {
		switch b[i] {
		case '"':
			inQ = !inQ
		case '\n':
			if !inQ {
				if l := bytes.TrimRight(b[start:i], "\r"); len(bytes.TrimSpace(l)) > 0 {
					out = append(out, l)
				}
				start = i + 1
			}
		}
	}
	if len(out) == 0 && start < len(b) {
		out = append(out, b[start:])
	}
	return out
}

func countOutsideQuotes(l []byte, d byte) int {
	n, inQ := 0, false
	for _, c := range l {
		switch {
		case c == '"':
			inQ = !inQ
		case c == d && !inQ:
			n++
		}
	}
	return n
}

// encodingError says where a file stops being valid text.
type encodingError struct {
	offset int64
	line   int
	nul    bool
}

func (e *encodingError) Error() string {
	if e.nul {
		return fmt.Sprintf("the file holds a NUL byte at byte %d (line %d): it is not a text file; export it again as CSV", e.offset, e.line)
	}
	return fmt.Sprintf("the file is not valid UTF-8 at byte %d (line %d): it was probably saved in a Windows charset; set charset = \"windows-1252\" on the route, or save it as \"CSV UTF-8\"", e.offset, e.line)
}

// textOK reports whether the fields are text: valid UTF-8 (when the file
// is not transcoded) without NUL bytes. encoding/csv passes any byte through.
func (s *csvSource) textOK(rec []string) bool {
	for _, f := range rec {
		if !plainASCII(f) && (strings.IndexByte(f, 0) >= 0 || s.utf8 && !utf8.ValidString(f)) {
			return false
		}
	}
	return true
}

// plainASCII reports whether s holds only ASCII bytes other than NUL,
// eight bytes at a time.
func plainASCII(s string) bool {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if w&hi != 0 || (w-lo)&^w&hi != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c == 0 || c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// plainASCIIBytes is plainASCII for a byte slice.
func plainASCIIBytes(b []byte) bool {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		if w&hi != 0 || (w-lo)&^w&hi != 0 {
			return false
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == 0 || c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// encodingProblem finds the first byte of the file that is not text and
// says where it is. It rereads the file: this happens once, on a bad file.
func (s *csvSource) encodingProblem() error {
	buf := make([]byte, 64<<10)
	var off int64
	line := 1
	bom := true
	var carry []byte
	for off < s.size {
		n, err := s.raw.ReadAt(buf, off)
		if n == 0 && err != nil {
			break
		}
		chunk := append(carry, buf[:n]...)
		start := off - int64(len(carry))
		if bom && start == 0 && bytes.HasPrefix(chunk, []byte("\xEF\xBB\xBF")) {
			chunk, start = chunk[3:], 3
		}
		bom = false
		bad, nul := bytes.IndexByte(chunk, 0), true
		if s.utf8 {
			last := off+int64(n) >= s.size
			valid := chunk
			if !last {
				// Keep an incomplete rune at the end for the next chunk.
				for k := 1; k < utf8.UTFMax && k <= len(valid); k++ {
					if utf8.RuneStart(valid[len(valid)-k]) {
						if !utf8.FullRune(valid[len(valid)-k:]) {
							valid = valid[:len(valid)-k]
						}
						break
					}
				}
			}
			if i := firstInvalid(valid); i < len(valid) && (bad < 0 || i < bad) {
				bad, nul = i, false
			}
			carry = append([]byte(nil), chunk[len(valid):]...)
			chunk = valid
		}
		if bad >= 0 {
			e := &encodingError{offset: start + int64(bad), line: line + bytes.Count(chunk[:bad], []byte{'\n'}), nul: nul}
			return &fileProblem{row: e.line, msg: e.Error()}
		}
		line += bytes.Count(chunk, []byte{'\n'})
		off += int64(n)
	}
	return &fileProblem{msg: (&encodingError{offset: -1}).Error()}
}

// firstInvalid returns the index of the first byte of b that starts an
// invalid UTF-8 sequence.
func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(b)
}
