package formats

import (
	"fmt"
	"io"
	"strings"
	"time"

	"filebridge/internal/edi/edifact"
	"filebridge/internal/edi/x12"
)

// Interchange is an inbound X12 or EDIFACT interchange as the inbox sees it
// besides its rows: who sent it under which control number, and the
// acknowledgement (997 or CONTRL) written back to the sender.
type Interchange interface {
	// Standard names the standard for a clerk: "X12", "EDIFACT".
	Standard() string
	// AckName names the acknowledgement: "997", "CONTRL".
	AckName() string
	// Sender names the partner in the journal ("ZZ:SHOPERP"), Control the
	// interchange (ISA13, UNB 0020).
	Sender() string
	Control() string
	// Sound reports whether the envelope is well formed: only then is the
	// interchange checked for a duplicate and recorded as received.
	Sound() bool
	// Unaddressed says why no acknowledgement can be written ("" when one
	// can): the header naming the partner is unreadable.
	Unaddressed() string
	// CounterKey names the journal's counter of the acknowledgements sent
	// to the partner.
	CounterKey() string
	// Duplicate makes the acknowledgement reject the whole interchange as
	// one received before.
	Duplicate()
	// Ack writes the acknowledgement numbered ctl of the interchange read
	// from r: it rejects each set or message a refusal falls in, naming
	// the segment and element of its column where it can, and every one
	// when fileErr (the file has errors).
	Ack(r io.ReaderAt, size int64, refused []Refusal, fileErr bool, ctl int64, now time.Time) (Ack, error)
}

// Refusal is a problem of one row of an EDI file, found by validation or
// refused by the portal: its row (as Decode numbered it), the column ("":
// the whole document) and the message.
type Refusal struct {
	Row    int
	Column string
	Msg    string
}

// Ack is an acknowledgement written for an EDI file: its file name, its
// control number, its bytes, and its verdict for the log.
type Ack struct {
	Name    string
	Control int64
	Data    []byte
	Verdict string
}

// OpenInterchange reads the envelope of an X12 or EDIFACT file (by the
// route's format, or by its first bytes); nil for another format. A
// malformed envelope is not an error: the interchange is then not Sound.
func OpenInterchange(r io.ReaderAt, size int64, name string, opts Options) (Interchange, error) {
	switch strings.ToLower(strings.TrimSpace(opts.Format)) {
	case "", "x12", "edifact":
	default:
		return nil, nil // the route names another format: nothing to sniff
	}
	head, err := headOf(r, size, name)
	if err != nil {
		return nil, err
	}
	switch f := opts.Format; {
	case f == "x12" || f == "" && x12.IsX12(head):
		data, err := readAll(r, size, name)
		if err != nil {
			return nil, err
		}
		ic, ack, err := x12.ParseEnvelope(data)
		return &x12Interchange{name: name, opts: opts, ic: ic, ack: ack, err: err}, nil
	case f == "edifact" || f == "" && edifact.IsEDIFACT(head):
		ic, err := edifact.Read(io.NewSectionReader(r, 0, size), nil)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		return &edifactInterchange{name: name, opts: opts, ic: ic}, nil
	}
	return nil, nil
}

func readAll(r io.ReaderAt, size int64, name string) ([]byte, error) {
	data := make([]byte, size)
	if _, err := r.ReadAt(data, 0); err != nil && err != io.EOF {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	return data, nil
}

// safeName keeps the letters, digits, '-' and '_' of a partner id for a
// file name.
func safeName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return -1
	}, s)
	if s == "" {
		return "partner"
	}
	return s
}
