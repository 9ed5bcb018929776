// Package edifact reads and writes UN/EDIFACT interchanges (ISO 9735,
// syntax versions 1 to 4, character sets UNOA to UNOC): the service string
// advice, the UNB/UNG/UNH envelopes with their counts and references, and
// CONTRL acknowledgements.
package edifact

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"filebridge/internal/edi"
)

// Delims are the service characters of an interchange.
type Delims struct {
	Component  byte // ':' component data element separator
	Element    byte // '+' data element separator
	Decimal    byte // '.' decimal mark
	Release    byte // '?' release character (0: none)
	Terminator byte // '\'' segment terminator
}

// Default are the service characters of an interchange without UNA.
var Default = Delims{Component: ':', Element: '+', Decimal: '.', Release: '?', Terminator: '\''}

// levelB are the defaults of a level B interchange without UNA: the
// information separators IS1, IS3 and IS4.
var levelB = Delims{Component: 0x1f, Element: 0x1d, Decimal: '.', Terminator: 0x1c}

// UNA returns the service string advice of d ("UNA:+.? '").
func (d Delims) UNA() string {
	rel := d.Release
	if rel == 0 {
		rel = ' '
	}
	return string([]byte{'U', 'N', 'A', d.Component, d.Element, d.Decimal, rel, ' ', d.Terminator})
}

// parseUNA reads the six characters after "UNA".
func parseUNA(b []byte) (Delims, error) {
	if len(b) < 6 {
		return Delims{}, errors.New("the service string advice (UNA) is cut short: it needs six characters after UNA")
	}
	d := Delims{Component: b[0], Element: b[1], Decimal: b[2], Release: b[3], Terminator: b[5]}
	if d.Release == ' ' {
		d.Release = 0 // syntax version 4: a space says no release character
	}
	if d.Decimal != '.' && d.Decimal != ',' {
		return d, fmt.Errorf("the service string advice (UNA) gives %q as decimal mark: use . or ,", d.Decimal)
	}
	seps := []struct {
		name string
		c    byte
	}{{"component separator", d.Component}, {"element separator", d.Element}, {"release character", d.Release}, {"segment terminator", d.Terminator}}
	for i, s := range seps {
		if s.c == 0 && s.name == "release character" {
			continue
		}
		if isAlnum(s.c) || s.c == ' ' && s.name != "release character" || s.c == '\r' || s.c == '\n' {
			return d, fmt.Errorf("the service string advice (UNA) gives %q as %s: a separator cannot be a letter, a digit, a space or a line break", s.c, s.name)
		}
		for _, o := range seps[:i] {
			if o.c == s.c && s.c != 0 {
				return d, fmt.Errorf("the service string advice (UNA) gives %q as both %s and %s", s.c, o.name, s.name)
			}
		}
	}
	return d, nil
}

func isAlnum(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
}

// Segment is one segment: Pos is its position in its message (UNH is
// 1), as CONTRL counts; for a segment outside a message, its position in
// the interchange.
type Segment = edi.Segment

// IsEDIFACT reports whether a file's first bytes begin an EDIFACT
// interchange: UNA, or UNB and its element separator (after an optional
// byte order mark).
func IsEDIFACT(head []byte) bool {
	head = bytes.TrimPrefix(head, []byte("\ufeff"))
	return bytes.HasPrefix(head, []byte("UNA")) || bytes.HasPrefix(head, []byte("UNB+")) || bytes.HasPrefix(head, []byte("UNB\x1d"))
}

// maxSegment bounds one segment (bytes), so a file without terminators
// cannot hold the reader's memory.
const maxSegment = 1 << 20

// Scanner splits an interchange into segments. Values are decoded by the
// interchange's character set once the UNB has named it.
type Scanner struct {
	r      *bufio.Reader
	d      Delims
	una    bool
	cs     charset
	line   int
	index  int    // segments read
	peeked []byte // bytes read ahead while looking for UNA
	buf    []byte
	err    error
}

// NewScanner reads the service string advice, if any, and returns a
// scanner positioned on the first segment.
func NewScanner(r io.Reader) (*Scanner, error) {
	s := &Scanner{r: bufio.NewReaderSize(r, 64<<10), d: Default, line: 1, cs: charsets["UNOC"]}
	head, err := s.r.Peek(9)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	// A byte order mark or blank lines before the interchange are tolerated.
	if len(head) >= 3 && string(head[:3]) == "\xef\xbb\xbf" {
		s.r.Discard(3)
		head, _ = s.r.Peek(9)
	}
	switch {
	case len(head) >= 3 && string(head[:3]) == "UNA":
		d, err := parseUNA(head[3:])
		if err != nil {
			return nil, &Error{Level: LevelInterchange, Pos: 1, Line: 1, Tag: "UNA", Code: CodeInvalidServiceChar, Msg: err.Error()}
		}
		s.d, s.una = d, true
		s.r.Discard(9)
	case len(head) >= 4 && string(head[:3]) == "UNB" && head[3] == levelB.Element:
		s.d = levelB
	case len(head) >= 3 && string(head[:3]) == "UNB":
	default:
		return nil, &Error{Level: LevelInterchange, Pos: 1, Line: 1, Code: CodeMissing,
			Msg: "the file does not begin with UNA or UNB: it is not an EDIFACT interchange"}
	}
	return s, nil
}

// Delims returns the service characters in use.
func (s *Scanner) Delims() Delims { return s.d }

// HasUNA says whether the interchange began with a service string advice.
func (s *Scanner) HasUNA() bool { return s.una }

// setCharset makes values decode as the named character set.
func (s *Scanner) setCharset(cs charset) { s.cs = cs }

// Next returns the next segment, io.EOF after the last one. Carriage
// returns and line feeds between segments are skipped. A segment cut short
// (no terminator before the end, a release character at the end) is an
// *Error.
func (s *Scanner) Next() (Segment, error) {
	if s.err != nil {
		return Segment{}, s.err
	}
	seg, err := s.next()
	if err != nil {
		s.err = err
	}
	return seg, err
}

func (s *Scanner) next() (Segment, error) {
	// Skip line breaks (and stray blanks) between segments.
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			return Segment{}, err // io.EOF: the end
		}
		if c == '\n' {
			s.line++
			continue
		}
		if c == '\r' || c == ' ' || c == '\t' {
			continue
		}
		s.r.UnreadByte()
		break
	}
	s.index++
	seg := Segment{Pos: s.index, Line: s.line}
	// Read the raw segment up to its unreleased terminator.
	s.buf = s.buf[:0]
	released := false
	for {
		c, err := s.r.ReadByte()
		if errors.Is(err, io.EOF) {
			return seg, s.cut(seg, "the file ends inside this segment (no segment terminator "+quote(s.d.Terminator)+")")
		}
		if err != nil {
			return seg, err
		}
		if c == '\n' {
			s.line++
		}
		if released {
			released = false
			s.buf = append(s.buf, c)
		} else if c == s.d.Release && s.d.Release != 0 {
			released = true
			s.buf = append(s.buf, c)
			continue
		} else if c == s.d.Terminator {
			break
		} else {
			s.buf = append(s.buf, c)
		}
		if len(s.buf) > maxSegment {
			return seg, s.cut(seg, fmt.Sprintf("this segment is longer than %d bytes: a segment terminator %s is missing", maxSegment, quote(s.d.Terminator)))
		}
	}
	return seg, s.split(&seg)
}

// cut is the error of a segment the file cuts short.
func (s *Scanner) cut(seg Segment, msg string) error {
	tag := ""
	if len(s.buf) >= 3 {
		tag = string(s.buf[:3])
	}
	return &Error{Level: LevelInterchange, Pos: seg.Pos, Line: seg.Line, Tag: tag, Code: CodeUnspecified, Msg: msg}
}

// split splits the raw segment in s.buf into its tag, elements and
// components, decoding the values.
func (s *Scanner) split(seg *Segment) error {
	raw := s.buf
	// The tag: up to the first element separator (a segment may be its tag
	// alone). A tag may carry components (syntax 1-3 nesting); only the
	// first counts.
	end := len(raw)
	for i, c := range raw {
		if c == s.d.Element {
			end = i
			break
		}
	}
	tag := string(raw[:end])
	if i := strings.IndexByte(tag, s.d.Component); i >= 0 {
		tag = tag[:i]
	}
	if !validTag(tag) {
		return &Error{Level: LevelInterchange, Pos: seg.Pos, Line: seg.Line, Tag: clipTag(tag), Code: CodeInvalidValue,
			Msg: fmt.Sprintf("%q is not a segment tag (three capital letters or digits)", clipTag(tag))}
	}
	seg.Tag = tag
	if end == len(raw) {
		return nil
	}
	var comp []byte
	elem := []string{}
	released := false
	flush := func(ei, ci int) error {
		v, err := s.cs.decode(comp)
		if err != nil {
			return &Error{Level: LevelInterchange, Pos: seg.Pos, Line: seg.Line, Tag: tag, Elem: ei, Comp: ci, Code: CodeInvalidChar, Msg: err.Error()}
		}
		elem = append(elem, v)
		comp = comp[:0]
		return nil
	}
	ei, ci := 1, 1
	for _, c := range raw[end+1:] {
		switch {
		case released:
			released = false
			comp = append(comp, c)
		case c == s.d.Release && s.d.Release != 0:
			released = true
		case c == s.d.Component:
			if err := flush(ei, ci); err != nil {
				return err
			}
			ci++
		case c == s.d.Element:
			if err := flush(ei, ci); err != nil {
				return err
			}
			seg.Elems = append(seg.Elems, elem)
			elem = []string{}
			ei, ci = ei+1, 1
		default:
			comp = append(comp, c)
		}
	}
	if released {
		return &Error{Level: LevelInterchange, Pos: seg.Pos, Line: seg.Line, Tag: tag, Elem: ei, Comp: ci, Code: CodeInvalidChar,
			Msg: "the segment ends on a release character " + quote(s.d.Release) + " with nothing after it to release"}
	}
	if err := flush(ei, ci); err != nil {
		return err
	}
	seg.Elems = append(seg.Elems, elem)
	return nil
}

func validTag(t string) bool {
	if len(t) != 3 {
		return false
	}
	for i := range 3 {
		if c := t[i]; !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func clipTag(t string) string {
	if len(t) > 10 {
		return t[:10] + "…"
	}
	return t
}

// quote shows a service character to a person.
func quote(c byte) string {
	if c < ' ' || c > '~' {
		return fmt.Sprintf("0x%02X", c)
	}
	return `"` + string(c) + `"`
}
