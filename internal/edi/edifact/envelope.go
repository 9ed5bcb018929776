package edifact

import (
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Party is an interchange or group sender or recipient: identification,
// code qualifier and routing address.
type Party struct {
	ID, Qual, Routing string
}

// Header is the UNB of an interchange and the service characters it used.
type Header struct {
	Delims        Delims
	UNA           bool
	Syntax        string // UNOA, UNOB, UNOC
	SyntaxVersion string // 1..4
	Sender        Party
	Recipient     Party
	Date, Time    string // YYMMDD (CCYYMMDD in version 4), HHMM
	Ref           string // interchange control reference (0020)
	App           string // application reference (0026)
	AckRequest    bool   // 0031 = 1
	Test          bool   // 0035 = 1
}

// Group is the UNG of a functional group.
type Group struct {
	ID        string // message group identification (0038)
	Sender    Party
	Recipient Party
	Ref       string // group reference number (0048)
	Pos       int
	Messages  int
}

// MessageID is the message identifier of a UNH (S009).
type MessageID struct {
	Type, Version, Release, Agency, Assoc string
}

// String renders it as UNH carries it ("ORDERS:D:96A:UN:EAN008").
func (m MessageID) String() string {
	s := m.Type + ":" + m.Version + ":" + m.Release + ":" + m.Agency
	if m.Assoc != "" {
		s += ":" + m.Assoc
	}
	return s
}

// Message is one message, UNH to UNT; Segments hold both.
type Message struct {
	Ref      string // message reference number (0062)
	ID       MessageID
	Group    *Group // nil outside a functional group
	Segments []Segment
	// Start is the position of its UNH in the interchange (UNB is 1).
	Start int
}

// Interchange is what Read learnt of an interchange: its header, the
// messages (without their segments) and every envelope problem. An
// interchange with Errors is rejected whole.
type Interchange struct {
	Header   Header
	Groups   []Group
	Messages []MessageInfo
	Errors   []*Error
}

// MessageInfo is a message as CONTRL acknowledges it.
type MessageInfo struct {
	Ref   string
	ID    MessageID
	Group int // index in Groups, -1 outside groups
}

// Rejected reports whether the interchange has envelope problems.
func (ic *Interchange) Rejected() bool { return len(ic.Errors) > 0 }

// maxRef is the length of a control reference (an..14).
const maxRef = 14

// Read reads an interchange, checking its envelopes (UNB/UNZ, UNG/UNE,
// UNH/UNT: counts and references), and calls fn with each message whose
// own envelope is sound, in order. Problems of the interchange go into its
// Errors; a problem of the syntax itself (a cut segment, a bad UNA) ends
// reading. The error returned is one of reading, or fn's.
func Read(r io.Reader, fn func(*Message) error) (*Interchange, error) {
	ic := &Interchange{}
	sc, err := NewScanner(r)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			ic.Errors = append(ic.Errors, e)
			return ic, nil
		}
		return ic, err
	}
	rd := reader{ic: ic, sc: sc, fn: fn, group: -1}
	return ic, rd.run()
}

// reader is the state of one Read.
type reader struct {
	ic    *Interchange
	sc    *Scanner
	fn    func(*Message) error
	msg   *Message // the open message
	group int      // the open group, -1 none
	// units counts what UNZ counts: groups, or messages outside groups.
	units    int
	inGroups bool
	unz      bool
}

func (rd *reader) fail(e *Error) { rd.ic.Errors = append(rd.ic.Errors, e) }

// run reads segment after segment.
func (rd *reader) run() error {
	first := true
	for {
		seg, err := rd.sc.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var se *Error
		if errors.As(err, &se) {
			if rd.msg != nil {
				se.Level, se.MsgRef, se.Pos = LevelMessage, rd.msg.Ref, len(rd.msg.Segments)+1
				rd.closeMsg()
			}
			rd.fail(se)
			return nil // the syntax cannot be trusted past here
		}
		if err != nil {
			return err
		}
		if first {
			first = false
			if seg.Tag != "UNB" {
				rd.fail(&Error{Pos: seg.Pos, Line: seg.Line, Tag: seg.Tag, Code: CodeMissing,
					Msg: "an interchange begins with UNB (after an optional UNA): this file does not look like EDIFACT"})
				return nil
			}
			if !rd.unb(seg) {
				return nil
			}
			continue
		}
		if rd.unz {
			rd.fail(&Error{Pos: seg.Pos, Line: seg.Line, Tag: seg.Tag, Code: CodeOutside,
				Msg: "a segment follows UNZ, the end of the interchange: send one interchange per file"})
			return nil
		}
		if err := rd.segment(seg); err != nil {
			return err
		}
	}
	if first {
		rd.fail(&Error{Pos: 1, Tag: "UNB", Code: CodeMissing, Msg: "the file is empty: an interchange begins with UNB"})
		return nil
	}
	if rd.msg != nil {
		rd.fail(&Error{Level: LevelMessage, MsgRef: rd.msg.Ref, Pos: len(rd.msg.Segments) + 1, Tag: "UNT", Code: CodeMissing,
			Msg: fmt.Sprintf("the file ends inside message %s: its UNT is missing", rd.msg.Ref)})
		rd.closeMsg()
	}
	if rd.group >= 0 {
		rd.fail(&Error{Level: LevelGroup, Pos: rd.sc.index + 1, Tag: "UNE", Code: CodeMissing, Msg: "the file ends inside a functional group: its UNE is missing"})
	}
	if !rd.unz {
		rd.fail(&Error{Pos: rd.sc.index + 1, Tag: "UNZ", Code: CodeMissing, Msg: "the interchange has no UNZ: the file is cut short or was sent before it was complete"})
	}
	return nil
}

// unb reads the interchange header; false when the interchange cannot be read on.
func (rd *reader) unb(seg Segment) bool {
	h := &rd.ic.Header
	h.Delims, h.UNA = rd.sc.Delims(), rd.sc.HasUNA()
	h.Syntax, h.SyntaxVersion = seg.Elem(1, 1), seg.Elem(1, 2)
	h.Sender = Party{seg.Elem(2, 1), seg.Elem(2, 2), seg.Elem(2, 3)}
	h.Recipient = Party{seg.Elem(3, 1), seg.Elem(3, 2), seg.Elem(3, 3)}
	h.Date, h.Time = seg.Elem(4, 1), seg.Elem(4, 2)
	h.Ref = seg.Elem(5, 1)
	h.App = seg.Elem(7, 1)
	h.AckRequest = seg.Elem(9, 1) == "1"
	h.Test = seg.Elem(11, 1) == "1"
	bad := func(elem, comp, code int, msg string) {
		rd.fail(&Error{Pos: seg.Pos, Line: seg.Line, Tag: "UNB", Elem: elem, Comp: comp, Code: code, Msg: msg})
	}
	cs, ok := charsets[h.Syntax]
	if !ok {
		bad(1, 1, CodeSyntaxVersion, fmt.Sprintf("syntax identifier %q is not one filebridge reads: use UNOA, UNOB, UNOC or UNOW", h.Syntax))
		return false
	}
	rd.sc.setCharset(cs)
	// The UNB is read before its syntax identifier is known: its own
	// values must be in that character set too (a writer could not send
	// them back otherwise).
	for ei, el := range seg.Elems {
		for ci, v := range el {
			if _, err := cs.encode(v); err != nil {
				bad(ei+1, ci+1, CodeInvalidChar, err.Error())
				return false
			}
		}
	}
	switch h.SyntaxVersion {
	case "1", "2", "3", "4":
	default:
		bad(1, 2, CodeSyntaxVersion, fmt.Sprintf("syntax version %q is not 1, 2, 3 or 4", h.SyntaxVersion))
	}
	for _, p := range []struct {
		elem int
		v    string
		what string
	}{{2, h.Sender.ID, "the interchange sender"}, {3, h.Recipient.ID, "the interchange recipient"}, {4, h.Date, "the date of preparation"}, {5, h.Ref, "the interchange control reference"}} {
		if p.v == "" {
			bad(p.elem, 1, CodeMissing, p.what+" is missing")
		}
	}
	if len(h.Ref) > maxRef {
		bad(5, 1, CodeTooLong, fmt.Sprintf("the interchange control reference %q is longer than %d characters", h.Ref, maxRef))
	}
	return true
}

// segment handles one segment after UNB.
func (rd *reader) segment(seg Segment) error {
	if rd.msg != nil {
		seg.Pos = len(rd.msg.Segments) + 1
		switch seg.Tag {
		case "UNT":
			rd.msg.Segments = append(rd.msg.Segments, seg)
			return rd.unt(seg)
		case "UNH", "UNB", "UNZ", "UNG", "UNE":
			rd.fail(&Error{Level: LevelMessage, MsgRef: rd.msg.Ref, Pos: seg.Pos, Line: seg.Line, Tag: "UNT", Code: CodeMissing,
				Msg: fmt.Sprintf("%s comes before the UNT that ends message %s", seg.Tag, rd.msg.Ref)})
			rd.closeMsg()
			// read the segment as outside a message
		default:
			rd.msg.Segments = append(rd.msg.Segments, seg)
			return nil
		}
	}
	switch seg.Tag {
	case "UNH":
		rd.unh(seg)
	case "UNG":
		rd.ung(seg)
	case "UNE":
		rd.une(seg)
	case "UNZ":
		rd.unzSeg(seg)
	default:
		rd.fail(&Error{Pos: seg.Pos, Line: seg.Line, Tag: seg.Tag, Code: CodeOutside,
			Msg: fmt.Sprintf("segment %s stands outside any message (between UNT and the next UNH)", seg.Tag)})
	}
	return nil
}

func (rd *reader) unh(seg Segment) {
	if rd.group < 0 {
		if rd.inGroups {
			rd.fail(&Error{Pos: seg.Pos, Line: seg.Line, Tag: "UNH", Code: CodeGroupsMixed, Msg: "a message stands outside the functional groups of an interchange that has them"})
		}
		rd.units++
	} else {
		rd.ic.Groups[rd.group].Messages++
	}
	id := MessageID{seg.Elem(2, 1), seg.Elem(2, 2), seg.Elem(2, 3), seg.Elem(2, 4), seg.Elem(2, 5)}
	m := &Message{Ref: seg.Elem(1, 1), ID: id, Start: seg.Pos}
	if rd.group >= 0 {
		m.Group = &rd.ic.Groups[rd.group]
	}
	seg.Pos = 1
	m.Segments = []Segment{seg}
	rd.msg = m
	bad := func(elem, comp, code int, msg string) {
		rd.fail(&Error{Level: LevelMessage, MsgRef: m.Ref, Pos: 1, Line: seg.Line, Tag: "UNH", Elem: elem, Comp: comp, Code: code, Msg: msg})
	}
	if m.Ref == "" {
		bad(1, 1, CodeMissing, "the message reference number is missing")
	} else if len(m.Ref) > maxRef {
		bad(1, 1, CodeTooLong, fmt.Sprintf("the message reference number %q is longer than %d characters", m.Ref, maxRef))
	}
	for i, v := range []string{id.Type, id.Version, id.Release, id.Agency} {
		if v == "" {
			bad(2, i+1, CodeMissing, "the message identifier is incomplete: it needs type, version, release and agency (ORDERS:D:96A:UN)")
			break
		}
	}
}

// closeMsg records the open message for the acknowledgement and closes it.
func (rd *reader) closeMsg() *Message {
	m := rd.msg
	rd.msg = nil
	gi := -1
	if m.Group != nil {
		gi = rd.group
	}
	rd.ic.Messages = append(rd.ic.Messages, MessageInfo{Ref: m.Ref, ID: m.ID, Group: gi})
	return m
}

func (rd *reader) unt(seg Segment) error {
	m := rd.closeMsg()
	ok := true
	bad := func(elem, code int, msg string) {
		ok = false
		rd.fail(&Error{Level: LevelMessage, MsgRef: m.Ref, Pos: seg.Pos, Line: seg.Line, Tag: "UNT", Elem: elem, Code: code, Msg: msg})
	}
	if n, err := strconv.Atoi(seg.Elem(1, 1)); err != nil || n != len(m.Segments) {
		bad(1, CodeCountMismatch, fmt.Sprintf("UNT counts %q segments but message %s has %d (UNH to UNT)", seg.Elem(1, 1), m.Ref, len(m.Segments)))
	}
	if ref := seg.Elem(2, 1); ref != m.Ref {
		bad(2, CodeRefMismatch, fmt.Sprintf("UNT names message %q but its UNH names %q", ref, m.Ref))
	}
	for _, e := range rd.ic.Errors {
		if e.Level == LevelMessage && e.MsgRef == m.Ref {
			ok = false
		}
	}
	if !ok || rd.fn == nil {
		return nil
	}
	return rd.fn(m)
}

func (rd *reader) ung(seg Segment) {
	if rd.group >= 0 {
		rd.fail(&Error{Level: LevelGroup, Pos: seg.Pos, Line: seg.Line, Tag: "UNE", Code: CodeMissing, Msg: "a UNG begins a group before the UNE that ends the previous one"})
	}
	if !rd.inGroups && rd.units > 0 {
		rd.fail(&Error{Pos: seg.Pos, Line: seg.Line, Tag: "UNG", Code: CodeGroupsMixed, Msg: "a functional group follows messages outside groups"})
	}
	rd.inGroups = true
	rd.units++
	g := Group{ID: seg.Elem(1, 1), Sender: Party{ID: seg.Elem(2, 1), Qual: seg.Elem(2, 2)},
		Recipient: Party{ID: seg.Elem(3, 1), Qual: seg.Elem(3, 2)}, Ref: seg.Elem(5, 1), Pos: seg.Pos}
	if g.Ref == "" {
		rd.fail(&Error{Level: LevelGroup, Pos: seg.Pos, Line: seg.Line, Tag: "UNG", Elem: 5, Comp: 1, Code: CodeMissing, Msg: "the group reference number is missing"})
	}
	rd.ic.Groups = append(rd.ic.Groups, g)
	rd.group = len(rd.ic.Groups) - 1
}

func (rd *reader) une(seg Segment) {
	if rd.group < 0 {
		rd.fail(&Error{Level: LevelGroup, Pos: seg.Pos, Line: seg.Line, Tag: "UNE", Code: CodeOutside, Msg: "UNE ends a functional group that no UNG began"})
		return
	}
	g := rd.ic.Groups[rd.group]
	rd.group = -1
	if n, err := strconv.Atoi(seg.Elem(1, 1)); err != nil || n != g.Messages {
		rd.fail(&Error{Level: LevelGroup, Pos: seg.Pos, Line: seg.Line, Tag: "UNE", Elem: 1, Code: CodeCountMismatch,
			Msg: fmt.Sprintf("UNE counts %q messages but group %s has %d", seg.Elem(1, 1), g.Ref, g.Messages)})
	}
	if ref := seg.Elem(2, 1); ref != g.Ref {
		rd.fail(&Error{Level: LevelGroup, Pos: seg.Pos, Line: seg.Line, Tag: "UNE", Elem: 2, Code: CodeRefMismatch,
			Msg: fmt.Sprintf("UNE names group %q but its UNG names %q", ref, g.Ref)})
	}
}

func (rd *reader) unzSeg(seg Segment) {
	rd.unz = true
	if rd.group >= 0 {
		rd.fail(&Error{Level: LevelGroup, Pos: seg.Pos, Line: seg.Line, Tag: "UNE", Code: CodeMissing, Msg: "UNZ comes before the UNE that ends the last functional group"})
		rd.group = -1
	}
	what := "messages"
	if rd.inGroups {
		what = "functional groups"
	}
	if n, err := strconv.Atoi(seg.Elem(1, 1)); err != nil || n != rd.units {
		rd.fail(&Error{Pos: seg.Pos, Line: seg.Line, Tag: "UNZ", Elem: 1, Code: CodeCountMismatch,
			Msg: fmt.Sprintf("UNZ counts %q %s but the interchange has %d", seg.Elem(1, 1), what, rd.units)})
	}
	if ref := seg.Elem(2, 1); ref != rd.ic.Header.Ref {
		rd.fail(&Error{Pos: seg.Pos, Line: seg.Line, Tag: "UNZ", Elem: 2, Code: CodeRefMismatch,
			Msg: fmt.Sprintf("UNZ names interchange %q but its UNB names %q", ref, rd.ic.Header.Ref)})
	}
	if rd.units == 0 {
		rd.fail(&Error{Pos: seg.Pos, Line: seg.Line, Tag: "UNZ", Code: CodeMissing, Msg: "the interchange holds no message"})
	}
}
