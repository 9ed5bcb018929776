// Package x12 reads and writes ANSI X12 interchanges: the tokenizer with the
// separators an ISA header declares, the envelope checks (ISA/IEA, GS/GE,
// ST/SE control numbers and counts), the 997 and TA1 acknowledgements, and
// the interchange writer of outbound sets.
package x12

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"filebridge/internal/edi"
)

// isaLen is the fixed length of an ISA segment with its terminator.
const isaLen = 106

// isaWidths are the fixed widths of ISA01..ISA16.
var isaWidths = [16]int{2, 10, 2, 10, 2, 15, 2, 15, 6, 4, 1, 5, 9, 1, 1, 1}

// Interchange is one ISA..IEA envelope.
type Interchange struct {
	Delims           edi.Delimiters
	Sender, Receiver edi.Party     // ISA05/06, ISA07/08
	Date, Time       string        // ISA09, ISA10
	Version          string        // ISA12 ("00401", "00501")
	Control          string        // ISA13
	AckRequested     bool          // ISA14 = 1: a TA1 is wanted
	Test             bool          // ISA15 = T
	TA1              []edi.Segment // interchange acknowledgements between ISA and GS
	Groups           []Group
}

// Group is one GS..GE functional group.
type Group struct {
	FuncID           string // GS01
	Sender, Receiver string // GS02, GS03
	Control          string // GS06
	Version          string // GS08
	Sets             []Set
	seg              edi.Segment
}

// Set is one ST..SE transaction set; Segments run from ST to SE inclusive,
// positioned from 1 at ST.
type Set struct {
	ID      string // ST01
	Control string // ST02
	Start   int    // the ordinal of ST in the interchange (ISA is 1)
	Count   int    // its segments, ST to SE
	// Segments are nil after ParseEnvelope until ReadSet reads them.
	Segments []edi.Segment
	// off and end delimit the set in the data parsed; line is the line
	// ST starts on.
	off, end, line int
}

// Body returns the segments between ST and SE.
func (s *Set) Body() []edi.Segment {
	if len(s.Segments) < 2 {
		return nil
	}
	return s.Segments[1 : len(s.Segments)-1]
}

// Parse tokenizes and checks one interchange. It always returns the
// acknowledgement the interchange deserves; err is non-nil when the
// envelope is malformed (the interchange, a group or a set is rejected):
// then nothing of it is to be submitted, and err says what and where.
func Parse(data []byte) (*Interchange, *edi.InterchangeAck, error) {
	return parse(data, false)
}

// ParseEnvelope is Parse keeping only the place of each set, not its
// segments: memory holds one set at a time. ReadSet reads a set again.
func ParseEnvelope(data []byte) (*Interchange, *edi.InterchangeAck, error) {
	return parse(data, true)
}

// ReadSet tokenizes again the segments of set s of the interchange ic
// parsed from data.
func (ic *Interchange) ReadSet(data []byte, s *Set) error {
	if s.off < 0 || s.end > len(data) || s.off > s.end {
		return fmt.Errorf("reading set %s %s again: the interchange is not the one parsed", s.ID, s.Control)
	}
	p := &parser{d: ic.Delims, data: data[s.off:s.end], line: s.line}
	segs := make([]edi.Segment, 0, s.Count)
	for {
		seg, ok, err := p.next()
		if err != nil {
			return fmt.Errorf("reading set %s %s again: %w", s.ID, s.Control, err)
		}
		if !ok {
			break
		}
		seg.Pos = len(segs) + 1
		segs = append(segs, seg)
	}
	if len(segs) != s.Count {
		return fmt.Errorf("reading set %s %s again: %d segments, not %d", s.ID, s.Control, len(segs), s.Count)
	}
	s.Segments = segs
	return nil
}

func parse(data []byte, drop bool) (*Interchange, *edi.InterchangeAck, error) {
	p := &parser{drop: drop}
	ic, err := p.parse(data)
	if err != nil {
		return ic, p.ack(ic, err, true), err
	}
	if err := p.firstSetError(ic); err != nil {
		return ic, p.ack(ic, nil, true), err
	}
	return ic, p.ack(ic, nil, false), nil
}

type parser struct {
	drop bool // let each set's segments go once it is checked
	base int  // offset of data in the input (leading space, BOM)
	seg  int  // offset of the segment next read
	d    edi.Delimiters
	data []byte
	off  int // next byte to read
	line int // physical line of off
	n    int // segments read in the interchange
	// group and set errors found while parsing, by group index
	groupErrs map[int][]*edi.Error
	setErrs   map[[2]int][]*edi.Error
}

func ierr(code, format string, args ...any) *edi.Error {
	return edi.Errorf(edi.Location{}, edi.LevelInterchange, code, format, args...)
}

// header reads the ISA segment and the separators it declares.
func (p *parser) header(data []byte) (*Interchange, error) {
	start := 0
	for start < len(data) && strings.IndexByte(" \t\r\n", data[start]) >= 0 {
		start++
	}
	p.line = 1 + bytes.Count(data[:start], []byte{'\n'})
	p.base = start
	if bytes.HasPrefix(data[start:], []byte("\ufeff")) {
		p.base += len("\ufeff")
	}
	data = data[p.base:]
	if !bytes.HasPrefix(data, []byte("ISA")) {
		return nil, ierr("024", "the file does not start with an ISA segment: it is not an X12 interchange")
	}
	if len(data) < isaLen {
		return nil, ierr("023", "the ISA segment is cut short: an ISA is %d characters with its terminator, the file has %d", isaLen, len(data))
	}
	d := edi.Delimiters{Element: data[3], Component: data[104], Segment: data[105], Decimal: '.'}
	isa := data[:105]
	if !isDelim(d.Element) {
		return nil, ierr("026", "the element separator %q (4th character of ISA) is a letter, digit or space: the ISA header is malformed", d.Element)
	}
	if !isDelim(d.Component) || d.Component == d.Element {
		return nil, ierr("027", "the component separator %q (ISA16) is not usable: it must be a punctuation character other than the element separator %q", d.Component, d.Element)
	}
	if d.Segment == d.Element || d.Segment == d.Component || d.Segment != '\n' && d.Segment != '\r' && !isDelim(d.Segment) {
		return nil, ierr("022", "the segment terminator %q (after ISA16) is not usable: it must differ from the element %q and component %q separators", d.Segment, d.Element, d.Component)
	}
	els := strings.Split(string(isa[4:]), string(d.Element))
	if len(els) != 16 {
		return nil, ierr("022", "the ISA segment has %d elements, not 16: its fields must have their fixed widths, padded with spaces", len(els))
	}
	for i, w := range isaWidths {
		if len(els[i]) != w {
			return nil, edi.Errorf(edi.Location{Pos: 1, Tag: "ISA", Elem: i + 1}, edi.LevelInterchange, "022",
				"ISA%02d is %d characters long, not %d: pad it with spaces to its fixed width", i+1, len(els[i]), w)
		}
	}
	ic := &Interchange{
		Sender:       edi.Party{Qualifier: els[4], ID: strings.TrimSpace(els[5])},
		Receiver:     edi.Party{Qualifier: els[6], ID: strings.TrimSpace(els[7])},
		Date:         els[8],
		Time:         els[9],
		Version:      els[11],
		Control:      els[12],
		AckRequested: els[13] == "1",
		Test:         els[14] == "T",
	}
	if !digits(ic.Control) {
		return nil, edi.Errorf(edi.Location{Pos: 1, Tag: "ISA", Elem: 13}, edi.LevelInterchange, "018", "the interchange control number %q (ISA13) is not 9 digits", ic.Control)
	}
	if ic.Version >= "00501" {
		d.Repetition = els[10][0]
		if !isDelim(d.Repetition) || d.Repetition == d.Element || d.Repetition == d.Component || d.Repetition == d.Segment {
			return nil, ierr("022", "the repetition separator %q (ISA11) is not usable in version %s", d.Repetition, ic.Version)
		}
	}
	ic.Delims = d
	p.d, p.data, p.off = d, data, isaLen
	p.n = 1
	p.line += bytes.Count(data[:isaLen], []byte{'\n'})
	return ic, nil
}

// isDelim reports whether b can separate: printable punctuation or a
// control character, never a letter, digit or space.
func isDelim(b byte) bool {
	switch {
	case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b >= '0' && b <= '9', b == ' ':
		return false
	}
	return b < 0x80
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// next returns the next segment after the ISA, false at the end of data.
func (p *parser) next() (edi.Segment, bool, error) {
	// Line breaks (and spaces) after a terminator are layout, not data.
	for p.off < len(p.data) && (p.data[p.off] == '\r' || p.data[p.off] == '\n' || p.data[p.off] == ' ') && p.data[p.off] != p.d.Segment {
		if p.data[p.off] == '\n' {
			p.line++
		}
		p.off++
	}
	if p.off >= len(p.data) {
		return edi.Segment{}, false, nil
	}
	p.seg = p.off
	rest := p.data[p.off:]
	end := bytes.IndexByte(rest, p.d.Segment)
	p.n++
	if end < 0 {
		tag, _, _ := bytes.Cut(rest, []byte{p.d.Element})
		return edi.Segment{}, false, edi.Errorf(edi.Location{Pos: p.n, Tag: cleanTag(string(tag))}, edi.LevelInterchange, "023",
			"the file ends inside this segment, before its terminator %q: the interchange is cut short", p.d.Segment)
	}
	raw := rest[:end]
	line := p.line
	p.line += bytes.Count(raw, []byte{'\n'})
	p.off += end + 1
	if p.d.Segment == '\n' {
		p.line++
	}
	s := p.split(raw)
	s.Line = line
	if !validTag(s.Tag) {
		return s, true, edi.Errorf(edi.Location{Pos: p.n, Tag: cleanTag(s.Tag)}, edi.LevelInterchange, "024",
			"%q is not a segment tag (2 or 3 capital letters or digits): the separators or the file are damaged", clip(s.Tag, 10))
	}
	return s, true, nil
}

// split cuts a segment into its tag, elements and components.
func (p *parser) split(raw []byte) edi.Segment {
	s := string(bytes.TrimRight(raw, "\r\n"))
	parts := strings.Split(s, string(p.d.Element))
	seg := edi.Segment{Tag: strings.TrimSpace(parts[0]), Elems: make([][]string, len(parts)-1)}
	for i, e := range parts[1:] {
		if strings.IndexByte(e, p.d.Component) >= 0 {
			seg.Elems[i] = strings.Split(e, string(p.d.Component))
		} else {
			seg.Elems[i] = parts[i+1 : i+2 : i+2] // a simple element shares the split's array
		}
	}
	return seg
}

func validTag(t string) bool {
	if len(t) < 2 || len(t) > 3 {
		return false
	}
	for i := 0; i < len(t); i++ {
		if !(t[i] >= 'A' && t[i] <= 'Z' || t[i] >= '0' && t[i] <= '9') {
			return false
		}
	}
	return true
}

// cleanTag is what of a damaged tag a message can show.
func cleanTag(t string) string {
	return strings.TrimSpace(strings.ToValidUTF8(clip(t, 3), "?"))
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// parse reads the whole interchange. Problems of a group or a set are
// recorded in groupErrs/setErrs and parsing goes on to the end, so the
// acknowledgement names them all; an interchange-level problem stops it.
func (p *parser) parse(data []byte) (*Interchange, error) {
	ic, err := p.header(data)
	if err != nil {
		return nil, err
	}
	p.groupErrs, p.setErrs = map[int][]*edi.Error{}, map[[2]int][]*edi.Error{}
	var g *Group
	var set *Set
	gi := -1
	for {
		s, ok, err := p.next()
		if e, isEDI := err.(*edi.Error); isEDI && set != nil && e.Tag != "" {
			e.Pos = len(set.Segments) + 1 // count as acknowledgements do
			e.Msg = fmt.Sprintf("in set %s %s: %s", set.ID, set.Control, e.Msg)
		}
		if err != nil {
			return ic, err
		}
		if !ok {
			return ic, ierr("023", "the interchange %s has no IEA trailer: the file is cut short", ic.Control)
		}
		if set != nil {
			s.Pos = len(set.Segments) + 1
		} else {
			s.Pos = p.n
		}
		switch s.Tag {
		case "GS":
			if set != nil {
				p.setErr(gi, len(g.Sets)-1, edi.LevelSet, "2", s, 0, "set %s %s has no SE trailer before GS", set.ID, set.Control)
				p.closeSet(set)
				set = nil
			}
			ic.Groups = append(ic.Groups, Group{FuncID: s.Value(1), Sender: s.Value(2), Receiver: s.Value(3), Control: s.Value(6), Version: s.Value(8), seg: s})
			gi = len(ic.Groups) - 1
			g = &ic.Groups[gi]
		case "ST":
			if g == nil {
				return ic, ierr("024", "segment %d ST comes before any GS functional group header", p.n)
			}
			if set != nil {
				p.setErr(gi, len(g.Sets)-1, edi.LevelSet, "2", s, 0, "set %s %s has no SE trailer before the next ST", set.ID, set.Control)
				p.closeSet(set)
			}
			s.Pos = 1
			g.Sets = append(g.Sets, Set{ID: s.Value(1), Control: s.Value(2), Start: p.n, Segments: []edi.Segment{s}, off: p.base + p.seg, line: s.Line})
			set = &g.Sets[len(g.Sets)-1]
			if set.Control == "" {
				p.setErr(gi, len(g.Sets)-1, edi.LevelSet, "7", s, 2, "the transaction set control number (ST02) is empty")
			}
		case "SE":
			if set == nil {
				p.groupErr(gi, "3", s, "segment %d SE closes no transaction set", p.n)
				continue
			}
			set.Segments = append(set.Segments, s)
			si := len(g.Sets) - 1
			if s.Value(2) != set.Control {
				p.setErr(gi, si, edi.LevelSet, "3", s, 2, "the set control number in SE02 (%q) is not ST02's (%q)", s.Value(2), set.Control)
			}
			if n, err := strconv.Atoi(s.Value(1)); err != nil || n != len(set.Segments) {
				p.setErr(gi, si, edi.LevelSet, "4", s, 1, "SE01 says %q segments, the set has %d (ST to SE)", s.Value(1), len(set.Segments))
			}
			p.off0(set)
			p.closeSet(set)
			set = nil
		case "GE":
			if g == nil {
				return ic, ierr("024", "segment %d GE closes no functional group", p.n)
			}
			if set != nil {
				p.setErr(gi, len(g.Sets)-1, edi.LevelSet, "2", s, 0, "set %s %s has no SE trailer before GE", set.ID, set.Control)
				p.closeSet(set)
				set = nil
			}
			if s.Value(2) != g.Control {
				p.groupErr(gi, "4", s, "the group control number in GE02 (%q) is not GS06's (%q)", s.Value(2), g.Control)
			}
			if n, err := strconv.Atoi(s.Value(1)); err != nil || n != len(g.Sets) {
				p.groupErr(gi, "5", s, "GE01 says %q transaction sets, the group has %d", s.Value(1), len(g.Sets))
			}
			g = nil
		case "IEA":
			if set != nil || g != nil {
				return ic, ierr("024", "the IEA trailer comes before the open group or set is closed")
			}
			if s.Value(2) != ic.Control {
				return ic, edi.Errorf(edi.Location{Pos: p.n, Tag: "IEA", Elem: 2}, edi.LevelInterchange, "001",
					"the interchange control number in IEA02 (%q) is not ISA13's (%q)", s.Value(2), ic.Control)
			}
			if n, err := strconv.Atoi(s.Value(1)); err != nil || n != len(ic.Groups) {
				return ic, edi.Errorf(edi.Location{Pos: p.n, Tag: "IEA", Elem: 1}, edi.LevelInterchange, "021",
					"IEA01 says %q functional groups, the interchange has %d", s.Value(1), len(ic.Groups))
			}
			if _, more, err := p.next(); more || err != nil {
				return ic, ierr("024", "there is data after the IEA trailer: send one interchange per file")
			}
			return ic, nil
		case "TA1":
			if g != nil || len(ic.Groups) > 0 {
				return ic, ierr("024", "segment %d TA1 is not between ISA and the first GS", p.n)
			}
			ic.TA1 = append(ic.TA1, s)
		default:
			if set == nil {
				if g != nil && gi >= 0 {
					p.groupErr(gi, "3", s, "segment %d %s is outside any transaction set", p.n, s.Tag)
					continue
				}
				return ic, ierr("024", "segment %d %s is outside any functional group", p.n, s.Tag)
			}
			set.Segments = append(set.Segments, s)
		}
	}
}

// off0 marks the end of set in the data: after its SE.
func (p *parser) off0(set *Set) { set.end = p.base + p.off }

// closeSet counts the set's segments and, when the parser drops them, lets
// them go. A set closed without its SE ends where it was cut.
func (p *parser) closeSet(set *Set) {
	set.Count = len(set.Segments)
	if set.end == 0 {
		set.end = p.base + p.seg
	}
	if p.drop {
		set.Segments = nil
	}
}

func (p *parser) setErr(gi, si int, level edi.ErrorLevel, code string, s edi.Segment, elem int, format string, args ...any) {
	e := edi.Errorf(edi.Location{Pos: s.Pos, Tag: s.Tag, Elem: elem}, level, code, format, args...)
	e.Line = s.Line
	k := [2]int{gi, si}
	p.setErrs[k] = append(p.setErrs[k], e)
}

func (p *parser) groupErr(gi int, code string, s edi.Segment, format string, args ...any) {
	e := edi.Errorf(edi.Location{Pos: s.Pos, Tag: s.Tag}, edi.LevelGroup, code, format, args...)
	e.Line = s.Line
	p.groupErrs[gi] = append(p.groupErrs[gi], e)
}

// ack builds the acknowledgement of what was parsed. err is an
// interchange-level problem; reject rejects every set (an envelope problem
// anywhere refuses the whole file: nothing of it is submitted).
func (p *parser) ack(ic *Interchange, err error, reject bool) *edi.InterchangeAck {
	ack := &edi.InterchangeAck{}
	if ic == nil {
		ack.Status = edi.Rejected
		ack.Error = asErr(err)
		return ack
	}
	ack.Sender, ack.Receiver, ack.Control, ack.Date, ack.Time = ic.Sender, ic.Receiver, ic.Control, ic.Date, ic.Time
	if err != nil {
		ack.Status, ack.Error = edi.Rejected, asErr(err)
	}
	for gi, g := range ic.Groups {
		ga := edi.GroupAck{FuncID: g.FuncID, Control: g.Control, Version: g.Version, Sender: g.Sender, Receiver: g.Receiver,
			Errors: p.groupErrs[gi], Included: len(g.Sets)}
		for si, s := range g.Sets {
			sa := edi.SetAck{ID: s.ID, Control: s.Control}
			for _, e := range p.setErrs[[2]int{gi, si}] {
				sa.Add(edi.Rejected, e)
			}
			if reject {
				sa.Status = edi.Rejected
			}
			ga.Sets = append(ga.Sets, sa)
		}
		ga.Finish()
		if reject {
			ga.Status = edi.Rejected
		}
		ack.Groups = append(ack.Groups, ga)
	}
	return ack
}

func asErr(err error) *edi.Error {
	if e, ok := err.(*edi.Error); ok {
		return e
	}
	return ierr("024", "%v", err)
}

// firstSetError returns the first group or set problem found, nil when
// there is none.
func (p *parser) firstSetError(ic *Interchange) error {
	for gi, g := range ic.Groups {
		if es := p.groupErrs[gi]; len(es) > 0 {
			return fmt.Errorf("functional group %s: %w", g.Control, es[0])
		}
		for si, s := range g.Sets {
			if es := p.setErrs[[2]int{gi, si}]; len(es) > 0 {
				return fmt.Errorf("transaction set %s %s: %w", s.ID, s.Control, es[0])
			}
		}
	}
	return nil
}
