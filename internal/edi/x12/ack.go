package x12

import (
	"strconv"

	"filebridge/internal/edi"
)

// statusCode is the X12 code of an acknowledgement status (AK501, AK901,
// TA104).
func statusCode(s edi.AckStatus) string {
	switch s {
	case edi.AcceptedWithErrors:
		return "E"
	case edi.Rejected:
		return "R"
	}
	return "A"
}

// TA1 returns the interchange acknowledgement of ack.
func TA1(ack *edi.InterchangeAck) edi.Segment {
	code := "000"
	if ack.Error != nil && ack.Error.Code != "" {
		code = ack.Error.Code
	}
	return Seg("TA1", ack.Control, ack.Date, ack.Time, statusCode(ack.Status), code)
}

// Ack997 returns the 997 sets acknowledging each functional group of ack:
// AK1, per set AK2, AK3/AK4 for segment and element errors, AK5, and AK9
// with the group's counts.
func Ack997(ack *edi.InterchangeAck) []OutSet {
	var out []OutSet
	for _, g := range ack.Groups {
		var body []edi.Segment
		body = append(body, Seg("AK1", g.FuncID, g.Control))
		for _, s := range g.Sets {
			body = append(body, Seg("AK2", s.ID, s.Control))
			var codes []string
			for _, e := range s.Errors {
				switch e.Level {
				case edi.LevelSegment:
					body = append(body, Seg("AK3", e.Tag, strconv.Itoa(e.Pos), "", e.Code))
				case edi.LevelElement:
					body = append(body, Seg("AK3", e.Tag, strconv.Itoa(e.Pos), "", "8"))
					pos := strconv.Itoa(e.Elem)
					ak4 := edi.Segment{Tag: "AK4", Elems: [][]string{{pos}, {""}, {e.Code}}}
					if e.Comp > 0 {
						ak4.Elems[0] = []string{pos, strconv.Itoa(e.Comp)}
					}
					body = append(body, ak4)
				default:
					if len(codes) < 5 {
						codes = append(codes, e.Code)
					}
				}
			}
			if s.Status != edi.Accepted && len(codes) == 0 && len(s.Errors) > 0 {
				codes = append(codes, "5") // one or more segments in error
			}
			body = append(body, Seg("AK5", append([]string{statusCode(s.Status)}, codes...)...))
		}
		st := statusCode(g.Status)
		if g.Accepted > 0 && g.Accepted < g.Received {
			st = "P" // partially accepted
		}
		ak9 := []string{st, strconv.Itoa(g.Included), strconv.Itoa(g.Received), strconv.Itoa(g.Accepted)}
		for i, e := range g.Errors {
			if i < 5 {
				ak9 = append(ak9, e.Code)
			}
		}
		body = append(body, Seg("AK9", ak9...))
		out = append(out, OutSet{ID: "997", Body: body})
	}
	return out
}

// AckEnvelope is what filebridge sends back for an inbound interchange: the
// 997 of its groups, preceded by a TA1 when the ISA asked for one (ISA14)
// or the interchange itself is rejected. The acknowledgement goes from the
// inbound receiver to its sender. ok is false when the ISA could not be
// read: there is no one to address it to.
func AckEnvelope(ack *edi.InterchangeAck, ackRequested bool) (env Envelope, pre []edi.Segment, sets []OutSet, ok bool) {
	if ack.Control == "" {
		return env, nil, nil, false
	}
	env = Envelope{Sender: ack.Receiver, Receiver: ack.Sender}
	if ackRequested || ack.Error != nil {
		pre = append(pre, TA1(ack))
	}
	sets = Ack997(ack)
	if len(ack.Groups) > 0 {
		env.GSSender, env.GSReceiver = ack.Groups[0].Receiver, ack.Groups[0].Sender
		env.Version = ack.Groups[0].Version
	}
	return env, pre, sets, true
}
