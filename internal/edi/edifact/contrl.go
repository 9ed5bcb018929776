package edifact

import (
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Action codes (ISO 9735 data element 0083) CONTRL uses.
const (
	ActionRejected = 4 // this level and all lower levels rejected
	ActionAccepted = 7 // this level acknowledged, lower levels too unless explicitly rejected
)

// Ack is the acknowledgement of one interchange: what CONTRL says.
type Ack struct {
	Of       Header // the acknowledged interchange's header
	Action   int
	Err      *Error // the first problem of UNB/UNZ (or the syntax), nil if none
	Groups   []GroupAck
	Messages []MessageAck // messages outside groups
}

// GroupAck acknowledges one functional group and its messages.
type GroupAck struct {
	Group    Group
	Action   int
	Err      *Error
	Messages []MessageAck
}

// MessageAck acknowledges one message: its action and its problems (in
// UNH/UNT themselves, or in its segments).
type MessageAck struct {
	Ref    string
	ID     MessageID
	Action int
	Errs   []*Error
}

// Accepted reports whether the interchange was acknowledged whole.
func (a Ack) Accepted() bool {
	if a.Action != ActionAccepted {
		return false
	}
	for _, m := range a.allMessages() {
		if m.Action != ActionAccepted {
			return false
		}
	}
	return true
}

func (a Ack) allMessages() []MessageAck {
	ms := slices.Clone(a.Messages)
	for _, g := range a.Groups {
		ms = append(ms, g.Messages...)
	}
	return ms
}

// NewAck acknowledges ic: rejected whole when its envelopes have problems;
// otherwise accepted, with the messages named in refused (problems of their
// content, found by validation or by the portal, at message level) rejected
// one by one.
func NewAck(ic *Interchange, refused []*Error) Ack {
	a := Ack{Of: ic.Header, Action: ActionAccepted}
	all := slices.Concat(ic.Errors, refused)
	byMsg := map[string][]*Error{}
	for _, e := range all {
		switch e.Level {
		case LevelMessage:
			byMsg[e.MsgRef] = append(byMsg[e.MsgRef], e)
		case LevelInterchange:
			if a.Err == nil {
				a.Err = e
			}
		}
	}
	if ic.Rejected() {
		a.Action = ActionRejected
	}
	msg := func(mi MessageInfo) MessageAck {
		m := MessageAck{Ref: mi.Ref, ID: mi.ID, Action: ActionAccepted, Errs: byMsg[mi.Ref]}
		if len(m.Errs) > 0 || a.Action == ActionRejected {
			m.Action = ActionRejected
		}
		return m
	}
	for gi, g := range ic.Groups {
		ga := GroupAck{Group: g, Action: a.Action}
		for _, e := range ic.Errors {
			if e.Level == LevelGroup && e.Pos >= g.Pos && ga.Err == nil && (gi+1 == len(ic.Groups) || e.Pos < ic.Groups[gi+1].Pos) {
				ga.Err, ga.Action = e, ActionRejected
			}
		}
		a.Groups = append(a.Groups, ga)
	}
	for _, mi := range ic.Messages {
		if mi.Group >= 0 && mi.Group < len(a.Groups) {
			g := &a.Groups[mi.Group]
			g.Messages = append(g.Messages, msg(mi))
			continue
		}
		a.Messages = append(a.Messages, msg(mi))
	}
	return a
}

// ContrlID is the message identifier of the CONTRL written for an
// interchange of syntax version v.
func ContrlID(v string) MessageID {
	if v == "4" {
		return MessageID{Type: "CONTRL", Version: "4", Release: "1", Agency: "UN"}
	}
	return MessageID{Type: "CONTRL", Version: "D", Release: "3", Agency: "UN"}
}

// Write writes the CONTRL interchange: its UNB sent by the acknowledged
// interchange's recipient to its sender, with control reference ref.
func (a Ack) Write(w io.Writer, ref string, now time.Time) error {
	h := Header{Syntax: a.Of.Syntax, SyntaxVersion: a.Of.SyntaxVersion, Sender: a.Of.Recipient, Recipient: a.Of.Sender,
		Ref: ref, Delims: a.Of.Delims, UNA: a.Of.UNA, Test: a.Of.Test}
	if _, ok := charsets[h.Syntax]; !ok {
		h.Syntax, h.SyntaxVersion = "UNOC", "3" // answering an interchange whose syntax is not read
	}
	if h.Delims == (Delims{}) {
		h.Delims = Default
	}
	wr := NewWriter(w, h, now, true)
	wr.Begin("1", ContrlID(h.SyntaxVersion))
	uci := [][]string{{a.Of.Ref}, party(a.Of.Sender), party(a.Of.Recipient), {strconv.Itoa(a.Action)}}
	wr.Segment("UCI", append(uci, errElems(a.Err)...)...)
	for _, m := range a.Messages {
		writeUCM(wr, m)
	}
	for _, g := range a.Groups {
		ucf := [][]string{{g.Group.Ref}, party(g.Group.Sender), party(g.Group.Recipient), {strconv.Itoa(g.Action)}}
		wr.Segment("UCF", append(ucf, errElems(g.Err)...)...)
		for _, m := range g.Messages {
			writeUCM(wr, m)
		}
	}
	wr.End()
	return wr.Close()
}

// errElems are the syntax error code, service segment tag and element
// position that UCI, UCF and UCM give for a problem of a service segment.
func errElems(e *Error) [][]string {
	if e == nil {
		return nil
	}
	out := [][]string{{strconv.Itoa(e.Code)}}
	if strings.HasPrefix(e.Tag, "UN") {
		out = append(out, []string{e.Tag}, position(e))
	}
	return out
}

// position is the S011 composite: element and component positions.
func position(e *Error) []string {
	if e.Elem == 0 {
		return nil
	}
	if e.Comp > 0 {
		return []string{strconv.Itoa(e.Elem), strconv.Itoa(e.Comp)}
	}
	return []string{strconv.Itoa(e.Elem)}
}

// writeUCM writes a message's UCM and, per segment in error, a UCS and its
// UCDs. A problem of UNH or UNT goes on the UCM itself.
func writeUCM(wr *Writer, m MessageAck) {
	ucm := [][]string{{m.Ref}, trimEmpty([]string{m.ID.Type, m.ID.Version, m.ID.Release, m.ID.Agency, m.ID.Assoc}), {strconv.Itoa(m.Action)}}
	var body []*Error
	for _, e := range m.Errs {
		if (e.Tag == "UNH" || e.Tag == "UNT") && len(ucm) == 3 {
			ucm = append(ucm, errElems(e)...)
			continue
		}
		body = append(body, e)
	}
	wr.Segment("UCM", ucm...)
	// One UCS per segment position, in order, with its element problems.
	slices.SortStableFunc(body, func(x, y *Error) int { return x.Pos - y.Pos })
	for i := 0; i < len(body); {
		j := i
		for j < len(body) && body[j].Pos == body[i].Pos {
			j++
		}
		var segCode []string
		var elems []*Error
		for _, e := range body[i:j] {
			if e.Elem == 0 {
				if segCode == nil {
					segCode = []string{strconv.Itoa(e.Code)}
				}
				continue
			}
			elems = append(elems, e)
		}
		wr.Segment("UCS", []string{strconv.Itoa(body[i].Pos)}, segCode)
		for _, e := range elems {
			wr.Segment("UCD", []string{strconv.Itoa(e.Code)}, position(e))
		}
		i = j
	}
}
