package edi

// AckStatus is the verdict of an acknowledgement on a set, a group or an
// interchange.
type AckStatus int

const (
	Accepted           AckStatus = iota // X12 A; EDIFACT 7
	AcceptedWithErrors                  // X12 E; EDIFACT 4 on some segments, the rest 7
	Rejected                            // X12 R; EDIFACT 4
)

func (s AckStatus) String() string {
	switch s {
	case AcceptedWithErrors:
		return "accepted with errors"
	case Rejected:
		return "rejected"
	}
	return "accepted"
}

// Worse returns the worse of two statuses.
func (s AckStatus) Worse(o AckStatus) AckStatus { return max(s, o) }

// Party is an interchange or group partner identity.
type Party struct {
	Qualifier string // X12 ISA05/ISA07; EDIFACT UNB 0007
	ID        string // X12 ISA06/ISA08 (GS02/GS03 for groups); EDIFACT 0004/0010
}

// InterchangeAck acknowledges one inbound interchange: what a 997 (and TA1)
// or a CONTRL says back.
type InterchangeAck struct {
	// Sender and Receiver are those of the inbound interchange; the
	// acknowledgement goes from Receiver to Sender.
	Sender, Receiver Party
	Control          string // ISA13 / UNB 0020
	Date, Time       string // of the inbound interchange (ISA09/10): a TA1 echoes them
	// Status and Error are the interchange-level verdict (TA1 / UCI).
	Status AckStatus
	Error  *Error
	Groups []GroupAck
}

// GroupAck acknowledges one functional group (X12 GS/GE; an EDIFACT
// interchange without groups has one).
type GroupAck struct {
	FuncID   string // GS01 ("OW" for 940)
	Control  string // GS06
	Version  string // GS08
	Sender   string // GS02
	Receiver string // GS03
	Status   AckStatus
	Errors   []*Error // group-level problems (AK9 codes)
	Sets     []SetAck
	// Included is the number of sets the trailer declares (GE01); Received
	// those found; Accepted those not rejected.
	Included, Received, Accepted int
}

// SetAck acknowledges one transaction set / message.
type SetAck struct {
	ID      string // ST01 / UNH 0065
	Control string // ST02 / UNH 0062
	Status  AckStatus
	Errors  []*Error
}

// Add records err on the set and makes its status at least st.
func (s *SetAck) Add(st AckStatus, err *Error) {
	s.Status = s.Status.Worse(st)
	if err != nil {
		s.Errors = append(s.Errors, err)
	}
}

// Finish computes a group's counts and status from its sets: the worst of
// them, rejected when no set was accepted or the group itself is in error.
// (X12 says P, partially accepted, when Accepted is between 0 and Received.)
func (g *GroupAck) Finish() {
	g.Received, g.Accepted = len(g.Sets), 0
	st := Accepted
	for _, s := range g.Sets {
		if s.Status != Rejected {
			g.Accepted++
		}
		st = st.Worse(s.Status)
	}
	if len(g.Errors) > 0 || g.Accepted == 0 && g.Received > 0 {
		st = Rejected
	}
	g.Status = g.Status.Worse(st)
}
