package formats

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
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

// readSize is the read buffer of CSV text.
const readSize = 256 << 10

// csvSource reads CSV rows with encoding/csv.
type csvSource struct {
	delim rune // the delimiter in use, configured or detected
	r     *csv.Reader
	// raw is the file, to locate an encoding error exactly.
	raw  io.ReaderAt
	size int64
	// utf8 says fields must be valid UTF-8 (the file is not transcoded).
	utf8 bool
	// watch sees the bytes of a file read in a single-byte charset.
	watch *charsetWatch
	// eol ends a line: '\n', or '\r' in a file of CR-only line ends.
	eol byte
	// skipSep says the first line is Excel's "sep=;" line.
	skipSep bool
	// keepRaw says a broken record comes with its raw lines (Rows).
	keepRaw bool
	// curLine starts at raw offset curOff (see seekLine).
	curLine int
	curOff  int64
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

// textFile is the start of a CSV or fixed-width file: its bytes from
// after a byte order mark, in UTF-8 (watch sees them when they are read in
// a single-byte charset), and what the first sniffSize bytes tell of it.
type textFile struct {
	in    io.Reader
	head  []byte // the first bytes, CR line ends read as LF
	crEOL bool   // lines end in CR alone
	watch *charsetWatch
}

// openText opens a text file in the route's charset (UTF-8 after a byte
// order mark); UTF-16 text is refused with the problem utf16 names.
func openText(r io.ReaderAt, size int64, opts Options, utf16 string) (*textFile, error) {
	charset, err := normCharset(opts.Charset)
	if err != nil {
		return nil, err
	}
	// A small file gets a buffer of its size, not readSize: an inbox of
	// one-order files opens thousands of them.
	br := bufio.NewReaderSize(io.NewSectionReader(r, 0, size), int(min(size+1, readSize)))
	head, err := br.Peek(sniffSize)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("reading: %w", err)
	}
	if bytes.HasPrefix(head, []byte{0xFF, 0xFE}) || bytes.HasPrefix(head, []byte{0xFE, 0xFF}) {
		return nil, &fileProblem{msg: utf16}
	}
	if bytes.HasPrefix(head, []byte("\xEF\xBB\xBF")) {
		// A UTF-8 byte order mark: the file is UTF-8 whatever the route says.
		_, _ = br.Discard(3)
		head = head[3:]
		charset = charsetUTF8
	}
	t := &textFile{in: br, head: head}
	if bytes.IndexByte(head, '\n') < 0 && bytes.IndexByte(head, '\r') >= 0 {
		// Lines end in CR alone (classic Mac OS, some ERPs), which
		// encoding/csv does not take for line ends.
		t.crEOL, t.in = true, crLines{br}
		t.head = bytes.ReplaceAll(head, []byte{'\r'}, []byte{'\n'})
	}
	if cm := charmaps[charset]; cm != nil {
		t.watch = newCharsetWatch(t.in, charset)
		t.in = cm.NewDecoder().Reader(t.watch)
	}
	return t, nil
}

// charmaps are the single-byte charsets files are read in.
var charmaps = map[string]*charmap.Charmap{charsetWindows1252: charmap.Windows1252, charsetLatin1: charmap.ISO8859_1}

func openCSV(r io.ReaderAt, size int64, opts Options) (*csvSource, error) {
	t, err := openText(r, size, opts, "the file is UTF-16 text: save it as \"CSV UTF-8\" (or set charset = \"windows-1252\" and save it as plain CSV)")
	switch {
	case err != nil:
		return nil, err
	case bytes.HasPrefix(t.head, []byte("PK\x03\x04")):
		return nil, &fileProblem{msg: "this is an XLSX workbook (or another zip file), not a CSV file: name it .xlsx, or set format = \"xlsx\" on the route"}
	case bytes.HasPrefix(t.head, oleMagic):
		return nil, &fileProblem{msg: "this is an Excel workbook, not a CSV file: save it as CSV UTF-8, or as .xlsx"}
	}
	s := &csvSource{raw: r, size: size, eol: '\n', watch: t.watch, utf8: t.watch == nil}
	if t.crEOL {
		s.eol = '\r'
	}
	delim := opts.Delimiter
	if d, ok := sepLine(t.head); ok {
		// Excel's "sep=;" line names the delimiter; it is not a row.
		delim, s.skipSep = d, true
	}
	if delim == 0 {
		delim = detectDelimiter(t.head)
	}
	if !validDelim(delim) {
		return nil, fmt.Errorf("delimiter %q cannot separate CSV fields: use ',', ';', tab or '|'", delim)
	}
	s.delim = delim
	cr := csv.NewReader(t.in)
	cr.Comma = delim
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	s.r = cr
	return s, nil
}

// sepLine reads the delimiter of Excel's "sep=;" first line.
func sepLine(head []byte) (rune, bool) {
	rest, ok := bytes.CutPrefix(head, []byte("sep="))
	if !ok {
		return 0, false
	}
	d, n := utf8.DecodeRune(rest)
	switch end := rest[n:]; {
	case n == 0, d == utf8.RuneError:
		return 0, false
	case len(end) == 0, end[0] == '\n', bytes.HasPrefix(end, []byte("\r\n")):
		return d, true
	}
	return 0, false
}

// crLines reads a file whose lines end in CR alone as lines ending in LF.
type crLines struct{ r io.Reader }

func (c crLines) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i, b := range p[:n] {
		if b == '\r' {
			p[i] = '\n'
		}
	}
	return n, err
}

func validDelim(r rune) bool {
	return r != 0 && r != '"' && r != '\r' && r != '\n' && r != utf8.RuneError && utf8.ValidRune(r)
}

// next reads a record, numbered by the line it starts on.
func (s *csvSource) next() (int, []string, error) {
	rec, err := s.r.Read()
	if s.skipSep {
		s.skipSep = false
		if line, _ := s.r.FieldPos(0); err == nil && line == 1 {
			rec, err = s.r.Read()
		}
	}
	if err == nil {
		line, _ := s.r.FieldPos(0)
		if !s.textOK(rec) {
			return 0, nil, s.encodingProblem()
		}
		return line, rec, nil
	}
	if errors.Is(err, io.EOF) {
		if s.watch != nil {
			if p := s.watch.problem(); p != nil {
				p.col, p.value = s.locate(p.row, p.charset)
				return 0, nil, p
			}
		}
		return 0, nil, io.EOF
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		if !s.textOK(rec) {
			return 0, nil, s.encodingProblem()
		}
		return pe.StartLine, rec, s.brokenRecord(pe, rec)
	}
	return 0, nil, fmt.Errorf("reading CSV: %w", err)
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
		if strings.IndexByte(f, 0) >= 0 || s.utf8 && !utf8.ValidString(f) {
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
			e := &encodingError{offset: start + int64(bad), line: line + bytes.Count(chunk[:bad], []byte{s.eol}), nul: nul}
			return &fileProblem{row: e.line, msg: e.Error()}
		}
		line += bytes.Count(chunk, []byte{s.eol})
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
