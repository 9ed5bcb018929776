package edifact

import (
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"filebridge/internal/edi"
)

// Action codes (ISO 9735 data element 0083) CONTRL uses.
const (
	ActionRejected = 4 // this level and all lower levels rejected
	ActionAccepted = 7 // this level acknowledged, lower levels too unless explicitly rejected
)

// action is the 0083 code of a status. EDIFACT syntax 3 has no "accepted
// with errors": such a level is acknowledged and its errors are listed.
func action(s edi.AckStatus) string {
	if s == edi.Rejected {
		return strconv.Itoa(ActionRejected)
	}
	return strconv.Itoa(ActionAccepted)
}

// NewAck acknowledges ic in the shared model: rejected whole when its
// envelopes have problems; otherwise accepted, with the messages that
// refused names (by MsgRef: problems of their content that validation or
// the portal found) rejected one by one. An interchange without UNG has
// one group with an empty Control. A set's ID is the whole message
// identifier (S009, "ORDERS:D:96A:UN:EAN008"), which UCM repeats.
func NewAck(ic *Interchange, refused []*Error) edi.InterchangeAck {
	h := ic.Header
	a := edi.InterchangeAck{Sender: edi.Party{Qualifier: h.Sender.Qual, ID: h.Sender.ID},
		Receiver: edi.Party{Qualifier: h.Recipient.Qual, ID: h.Recipient.ID}, Control: h.Ref, Date: h.Date, Time: h.Time}
	byMsg := map[string][]*edi.Error{}
	for _, e := range slices.Concat(ic.Errors, refused) {
		if e.Level == LevelMessage {
			byMsg[e.MsgRef] = append(byMsg[e.MsgRef], e.Shared())
		} else if e.Level == LevelInterchange && a.Error == nil {
			a.Error = e.Shared()
		}
	}
	if ic.Rejected() {
		a.Status = edi.Rejected
	}
	groups := []edi.GroupAck{{}}
	if len(ic.Groups) > 0 {
		groups = groups[:0]
		for gi, g := range ic.Groups {
			// UCF repeats the group's sender and recipient with their qualifiers.
			ga := edi.GroupAck{FuncID: g.ID, Control: g.Ref, Sender: strings.Join(party(g.Sender), ":"), Receiver: strings.Join(party(g.Recipient), ":")}
			for _, e := range ic.Errors {
				if e.Level == LevelGroup && e.Pos >= g.Pos && (gi+1 == len(ic.Groups) || e.Pos < ic.Groups[gi+1].Pos) {
					ga.Errors = append(ga.Errors, e.Shared())
				}
			}
			groups = append(groups, ga)
		}
	}
	for _, mi := range ic.Messages {
		s := edi.SetAck{ID: mi.ID.String(), Control: mi.Ref, Errors: byMsg[mi.Ref]}
		if len(s.Errors) > 0 || a.Status == edi.Rejected {
			s.Status = edi.Rejected
		}
		g := &groups[0]
		if mi.Group >= 0 && mi.Group < len(groups) {
			g = &groups[mi.Group]
		}
		g.Sets = append(g.Sets, s)
	}
	for i := range groups {
		if a.Status == edi.Rejected {
			groups[i].Status = edi.Rejected
		}
		groups[i].Finish()
	}
	a.Groups = groups
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

// WriteCONTRL writes the CONTRL interchange acknowledging a, whose header
// was of: its UNB goes from of's recipient to of's sender, in of's
// syntax and service characters, with control reference ref.
func WriteCONTRL(w io.Writer, of Header, a edi.InterchangeAck, ref string, now time.Time) error {
	h := Header{Syntax: of.Syntax, SyntaxVersion: of.SyntaxVersion, Sender: of.Recipient, Recipient: of.Sender,
		Ref: ref, Delims: of.Delims, UNA: of.UNA, Test: of.Test}
	if _, ok := charsets[h.Syntax]; !ok {
		h.Syntax, h.SyntaxVersion = "UNOC", "3" // answering an interchange whose syntax is not read
	}
	if h.Delims == (Delims{}) {
		h.Delims = Default
	}
	wr := NewWriter(w, h, now, true)
	wr.Begin("1", ContrlID(h.SyntaxVersion))
	uci := [][]string{{a.Control}, party(of.Sender), party(of.Recipient), {action(a.Status)}}
	wr.Segment("UCI", append(uci, errElems(a.Error)...)...)
	for _, g := range a.Groups {
		if g.Control != "" {
			ucf := [][]string{{g.Control}, strings.Split(g.Sender, ":"), strings.Split(g.Receiver, ":"), {action(g.Status)}}
			var ge *edi.Error
			if len(g.Errors) > 0 {
				ge = g.Errors[0]
			}
			wr.Segment("UCF", append(ucf, errElems(ge)...)...)
		}
		for _, s := range g.Sets {
			writeUCM(wr, s)
		}
	}
	wr.End()
	return wr.Close()
}

// errElems are the syntax error code, service segment tag and element
// position that UCI, UCF and UCM give for a problem of a service segment.
func errElems(e *edi.Error) [][]string {
	if e == nil {
		return nil
	}
	out := [][]string{{e.Code}}
	if strings.HasPrefix(e.Tag, "UN") {
		out = append(out, []string{e.Tag}, position(e))
	}
	return out
}

// position is the S011 composite: element and component positions.
func position(e *edi.Error) []string {
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
func writeUCM(wr *Writer, s edi.SetAck) {
	ucm := [][]string{{s.Control}, strings.Split(s.ID, ":"), {action(s.Status)}}
	var body []*edi.Error
	for _, e := range s.Errors {
		if e.Level == edi.LevelSet && len(ucm) == 3 {
			ucm = append(ucm, errElems(e)...)
			continue
		}
		body = append(body, e)
	}
	wr.Segment("UCM", ucm...)
	// One UCS per segment position, in order, with its element problems.
	slices.SortStableFunc(body, func(x, y *edi.Error) int { return x.Pos - y.Pos })
	for i := 0; i < len(body); {
		j := i
		for j < len(body) && body[j].Pos == body[i].Pos {
			j++
		}
		var segCode []string
		var elems []*edi.Error
		for _, e := range body[i:j] {
			if e.Elem == 0 {
				if segCode == nil {
					segCode = []string{e.Code}
				}
				continue
			}
			elems = append(elems, e)
		}
		wr.Segment("UCS", []string{strconv.Itoa(body[i].Pos)}, segCode)
		for _, e := range elems {
			wr.Segment("UCD", []string{e.Code}, position(e))
		}
		i = j
	}
}
