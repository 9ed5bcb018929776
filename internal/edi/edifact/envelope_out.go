package edifact

import "time"

// Envelope is what an outbound interchange needs besides its messages:
// its UNB (partners, control reference, syntax, test flag), the directory
// release of its messages (96A or 01B) and its time.
type Envelope struct {
	Header  Header
	Release string
	Time    time.Time
}

// ExportID is the identifier of an outbound message type in release
// (96A or 01B), with its EANCOM subset.
func ExportID(typ, release string) MessageID {
	assoc := map[string]string{"RECADV": "EAN003", "DESADV": "EAN005", "INVRPT": "EAN008"}
	if release == "01B" {
		assoc = map[string]string{"RECADV": "EAN004", "DESADV": "EAN007", "INVRPT": "EAN009"}
	}
	return MessageID{Type: typ, Version: "D", Release: release, Agency: "UN", Assoc: assoc[typ]}
}

// Err returns the first error the Writer met (it also sticks until Close).
func (wr *Writer) Err() error { return wr.err }

// CounterKey names a partner's counter of control references in the
// journal, shared by the exports to it and the CONTRLs sent to it.
func CounterKey(p Party) string { return "edifact:" + p.Qual + ":" + p.ID }
