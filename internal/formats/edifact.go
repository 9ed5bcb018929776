package formats

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"filebridge/internal/edi"
	"filebridge/internal/edi/edifact"
	"filebridge/internal/model"
)

// ediSource yields the rows of an EDIFACT interchange: a header row of the
// mapping table's columns, then one row per line item of each message
// (its header values repeated). A row's number is the position in the
// interchange of the segment that starts its line (LIN), and a cell is
// named by segment and element ("message 2, segment 14 NAD, element 08").
type ediSource struct {
	dt     model.DocType
	ic     *edifact.Interchange
	header []string
	rows   []ediRow
	byRow  map[int]int
	i      int
}

type ediRow struct {
	row   int
	pos   int    // the position of its LIN in the message
	msg   string // the message reference
	cells []string
	src   []edi.Location
}

// openEDIFACT reads the interchange whole (envelopes first: a malformed
// one is a problem of the file, and nothing of it is submitted) and maps
// its messages onto rows of the route's document type, or of the type the
// first message's table feeds when the route names none.
func openEDIFACT(r io.ReaderAt, size int64, opts Options) (rowSource, error) {
	s := &ediSource{byRow: map[int]int{}}
	var typeErr error
	var table *edi.Table
	var cols []string
	var decimal []bool
	ic, err := edifact.Read(io.NewSectionReader(r, 0, size), func(m *edifact.Message) error {
		if typeErr != nil {
			return nil
		}
		if table == nil {
			var err error
			if s.dt, err = ediDocType(opts, m.ID.Type); err != nil {
				typeErr = err
				return nil
			}
			if table, cols, err = edifact.TableFor(opts.Edition, m.ID.Type, s.dt); err != nil {
				typeErr = err
				return nil
			}
			s.header = cols
			spec, _ := model.SpecFor(opts.Edition, s.dt.Kind)
			decimal = make([]bool, len(cols))
			for i, c := range cols {
				f, _ := spec.Field(c)
				decimal[i] = f.Type == model.TDecimal
			}
		}
		if m.ID.Type != table.Set {
			typeErr = fmt.Errorf("message %s is %s while the interchange's first message is %s: send one message type per file", m.Ref, m.ID.Type, table.Set)
			return nil
		}
		for _, row := range table.Rows(m.Segments, cols) {
			n := m.Start + row.Pos - 1
			if row.Pos == 0 {
				n = m.Start
			}
			for i, v := range row.Cells {
				if decimal[i] {
					row.Cells[i] = strings.Replace(v, ",", ".", 1) // UNA may make the decimal mark a comma
				}
			}
			s.byRow[n] = len(s.rows)
			s.rows = append(s.rows, ediRow{row: n, pos: row.Pos, msg: m.Ref, cells: row.Cells, src: row.Src})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.ic = ic
	if ic.Rejected() {
		msgs := make([]string, 0, len(ic.Errors))
		for _, e := range ic.Errors {
			msgs = append(msgs, e.Error())
		}
		return nil, &fileProblem{row: ic.Errors[0].Line, col: -1, msg: "the EDIFACT interchange is malformed and was rejected whole (nothing of it is submitted): " + strings.Join(msgs, "; ")}
	}
	if typeErr != nil {
		return nil, &fileProblem{col: -1, msg: typeErr.Error()}
	}
	return s, nil
}

// ediDocType is the route's document type, or the one a message type feeds.
func ediDocType(opts Options, msgType string) (model.DocType, error) {
	if opts.Type != "" {
		return model.LookupDocType(opts.Edition, opts.Type)
	}
	for _, t := range edifact.Tables {
		if t.Set == msgType {
			return model.LookupDocType(opts.Edition, t.DocType)
		}
	}
	return model.DocType{}, fmt.Errorf("filebridge reads no EDIFACT %s message: it reads ORDERS, DESADV and PRICAT", msgType)
}

// rewind starts the rows again from the header row, for another pass:
// they are in memory, not parsed again.
func (s *ediSource) rewind() error {
	s.i = 0
	return nil
}

func (s *ediSource) next() (int, []string, error) {
	if s.i == 0 {
		s.i++
		return 1, s.header, nil
	}
	if s.i > len(s.rows) {
		return 0, nil, io.EOF
	}
	r := s.rows[s.i-1]
	s.i++
	return r.row, r.cells, nil
}

// cell names where the value of column col on row came from.
func (s *ediSource) cell(row, col int) string {
	i, ok := s.byRow[row]
	if !ok || col < 0 || col >= len(s.rows[i].src) {
		return ""
	}
	r := s.rows[i]
	if r.src[col].Tag == "" {
		// The message lacks the value: name the line's segment.
		return fmt.Sprintf("message %s, %s", r.msg, edi.Location{Pos: r.pos, Tag: "LIN"})
	}
	return fmt.Sprintf("message %s, %s", r.msg, r.src[col])
}

func (s *ediSource) sheet() string { return "" }
func (s *ediSource) close() error  { return nil }

// edifactInterchange is the envelope of an EDIFACT file, with its
// problems (and a duplicate one Duplicate adds), which its CONTRL reports.
type edifactInterchange struct {
	name string
	opts Options
	ic   *edifact.Interchange
}

func (x *edifactInterchange) Standard() string { return "EDIFACT" }
func (x *edifactInterchange) AckName() string  { return "CONTRL" }
func (x *edifactInterchange) Control() string  { return x.ic.Header.Ref }
func (x *edifactInterchange) Sound() bool      { return !x.ic.Rejected() }

// Sender is "14:5412345000013".
func (x *edifactInterchange) Sender() string {
	return x.ic.Header.Sender.Qual + ":" + x.ic.Header.Sender.ID
}

func (x *edifactInterchange) CounterKey() string { return edifact.CounterKey(x.ic.Header.Sender) }

func (x *edifactInterchange) Unaddressed() string {
	if x.ic.Header.Sender.ID == "" {
		return "the UNB is unreadable"
	}
	return ""
}

// Duplicate rejects the interchange with UCI code 26 (duplicate detected).
func (x *edifactInterchange) Duplicate() {
	x.ic.Errors = append(x.ic.Errors, &edifact.Error{Level: edifact.LevelInterchange, Pos: 1, Tag: "UNB", Elem: 5, Code: edifact.CodeDuplicate,
		Msg: "interchange " + x.ic.Header.Ref + " was received before"})
}

// Ack rejects the whole interchange when it has envelope problems;
// otherwise it accepts it, and rejects each message a refusal falls in,
// naming the segment and element of its column (the line's LIN for a
// whole document), or every message when fileErr.
func (x *edifactInterchange) Ack(r io.ReaderAt, size int64, refused []Refusal, fileErr bool, ctl int64, now time.Time) (Ack, error) {
	ic := x.ic
	if fileErr {
		refused = append(refused, Refusal{Msg: "the file has errors"})
	}
	var rows map[int]ediRow
	var header []string
	var msgs []string
	if src, err := openEDIFACT(r, size, x.opts); err == nil {
		es := src.(*ediSource)
		rows, header = make(map[int]ediRow, len(es.rows)), es.header
		for _, row := range es.rows {
			rows[row.row] = row
		}
	}
	for _, m := range ic.Messages {
		msgs = append(msgs, m.Ref)
	}
	var errs []*edifact.Error
	for _, f := range refused {
		if f.Row == 0 {
			for _, m := range msgs {
				errs = append(errs, &edifact.Error{Level: edifact.LevelMessage, MsgRef: m, Pos: 1, Tag: "UNH", Code: edifact.CodeUnspecified, Msg: f.Msg})
			}
			continue
		}
		row, ok := rows[f.Row]
		if !ok {
			continue
		}
		loc, code := edi.Location{Pos: row.pos, Tag: "LIN"}, edifact.CodeUnspecified
		if ci := slices.Index(header, f.Column); ci >= 0 && row.src[ci].Tag != "" {
			loc, code = row.src[ci], edifact.CodeInvalidValue
			if row.cells[ci] == "" {
				code = edifact.CodeMissing
			}
		}
		errs = append(errs, &edifact.Error{Level: edifact.LevelMessage, MsgRef: row.msg, Pos: loc.Pos, Tag: loc.Tag,
			Elem: loc.Elem, Comp: loc.Comp, Code: code, Msg: f.Msg})
	}
	a := edifact.NewAck(ic, errs)
	ref := strconv.FormatInt(ctl, 10)
	var b bytes.Buffer
	if err := edifact.WriteCONTRL(&b, ic.Header, a, ref, now); err != nil {
		return Ack{}, fmt.Errorf("writing the CONTRL of %s: %w", x.name, err)
	}
	verdict := "interchange " + a.Status.String()
	if a.Error != nil {
		verdict += ": " + a.Error.Msg
	}
	for _, g := range a.Groups {
		verdict += fmt.Sprintf(", %d of %d messages accepted", g.Accepted, g.Received)
	}
	name := fmt.Sprintf("CONTRL_%s_%s.edi", safeName(ic.Header.Sender.ID), ref)
	return Ack{Name: name, Control: ctl, Data: b.Bytes(), Verdict: verdict}, nil
}
