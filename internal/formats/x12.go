package formats

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"filebridge/internal/edi"
	"filebridge/internal/edi/x12"
	"filebridge/internal/model"
)

// x12Source reads an X12 interchange as rows, one set in memory at a
// time: its transaction sets mapped
// by their table (package x12) onto a header row of column names and one
// row per line item, numbered by the line's segment ordinal in the
// interchange (ISA is 1: the header row).
type x12Source struct {
	data []byte // the interchange: its sets are read one at a time
	ic   *x12.Interchange
	tab  *edi.Table
	cols []string
	sets []*x12.Set
	si   int       // next set
	rows []edi.Row // the rows of set si-1
	ri   int
	hdr  bool // header row returned
	// setOf is the set index of each row returned, to name a cell of any
	// row (grouped documents report rows of earlier sets).
	setOf map[int]int
}

// openX12 parses the whole interchange: an envelope problem is a
// fileProblem, nothing of the file is read as rows.
func openX12(r io.ReaderAt, size int64, opts Options) (rowSource, error) {
	data := make([]byte, size)
	if _, err := r.ReadAt(data, 0); err != nil && err != io.EOF {
		return nil, fmt.Errorf("reading the interchange: %w", err)
	}
	ic, _, err := x12.ParseEnvelope(data)
	if err != nil {
		return nil, &fileProblem{col: -1, msg: "the X12 interchange is malformed, nothing of it is submitted and its 997 acknowledgement rejects it: " + err.Error()}
	}
	s := &x12Source{data: data, ic: ic, setOf: map[int]int{}}
	var kind model.Kind
	if opts.Type != "" {
		dt, err := model.LookupDocType(opts.Edition, opts.Type)
		if err != nil {
			return nil, err
		}
		kind = dt.Kind
	}
	for _, g := range ic.Groups {
		for i := range g.Sets {
			set := &g.Sets[i]
			tab := x12.Tables[set.ID]
			if tab == nil {
				return nil, &fileProblem{col: -1, row: set.Start, msg: fmt.Sprintf("transaction set %s %s is not one filebridge reads: send %s", set.ID, set.Control, x12Sets())}
			}
			dt, err := model.LookupDocType(opts.Edition, tab.DocType)
			if err != nil {
				return nil, &fileProblem{col: -1, row: set.Start, msg: fmt.Sprintf("transaction set %s %s: %v", set.ID, set.Control, err)}
			}
			if kind == 0 {
				kind = dt.Kind
			}
			if dt.Kind != kind || s.tab != nil && s.tab != tab {
				return nil, &fileProblem{col: -1, row: set.Start, msg: fmt.Sprintf("transaction set %s %s (%s) is not of the document type of this file (%s): send each type in its own interchange",
					set.ID, set.Control, tab.Name, kindTable(kind, s.tab))}
			}
			s.tab = tab
			s.sets = append(s.sets, set)
		}
	}
	if s.tab == nil {
		return nil, &fileProblem{col: -1, msg: "the X12 interchange holds no transaction set"}
	}
	s.cols = x12.Columns(s.tab, opts.Edition, kind)
	return s, nil
}

func kindTable(k model.Kind, t *edi.Table) string {
	if t != nil {
		return t.Set + " " + t.Name
	}
	return k.String()
}

// x12Sets lists the sets filebridge reads.
func x12Sets() string {
	var ids []string
	for id, t := range x12.Tables {
		ids = append(ids, id+" ("+t.Name+")")
	}
	slices.Sort(ids)
	return strings.Join(ids, ", ")
}

func (s *x12Source) next() (int, []string, error) {
	if !s.hdr {
		s.hdr = true
		return 1, s.cols, nil
	}
	for s.ri >= len(s.rows) {
		if s.si >= len(s.sets) {
			return 0, nil, io.EOF
		}
		set := s.sets[s.si]
		if err := s.ic.ReadSet(s.data, set); err != nil {
			return 0, nil, err
		}
		s.rows, s.ri = s.tab.Rows(set.Body(), s.cols), 0
		set.Segments = nil // one set in memory at a time
		s.si++
	}
	r := s.rows[s.ri]
	s.ri++
	row := s.sets[s.si-1].Row(r.Pos)
	s.setOf[row] = s.si - 1
	return row, r.Cells, nil
}

// cell names where the value of column col on row came from: "segment 14
// N4, element 03 of set 940 0002".
func (s *x12Source) cell(row, col int) string {
	si, ok := s.setOf[row]
	if !ok {
		return ""
	}
	set := s.sets[si]
	if err := s.ic.ReadSet(s.data, set); err != nil {
		return ""
	}
	loc, _, ok := x12.Locate(set, s.tab, s.cols, row, col)
	set.Segments = nil
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s of set %s %s", loc, set.ID, set.Control)
}

// rewind starts the rows again from the header row, for another pass:
// the interchange is in memory, its envelope not parsed again.
func (s *x12Source) rewind() error {
	s.hdr, s.si, s.rows, s.ri = false, 0, nil, 0
	return nil
}

func (s *x12Source) sheet() string { return "" }
func (s *x12Source) close() error  { return nil }

// x12Interchange is the envelope of an X12 file and what its 997 (with a
// TA1 when the ISA asks for one or the interchange is refused) says of it.
type x12Interchange struct {
	name      string
	opts      Options
	ic        *x12.Interchange // nil when the ISA is unreadable; its sets without segments
	ack       *edi.InterchangeAck
	err       error // a malformed envelope: every set is rejected
	duplicate bool
}

func (x *x12Interchange) Standard() string { return "X12" }
func (x *x12Interchange) AckName() string  { return "997" }
func (x *x12Interchange) Control() string  { return x.ack.Control }
func (x *x12Interchange) Sound() bool      { return x.ic != nil && x.err == nil }

func (x *x12Interchange) Sender() string {
	return strings.TrimSpace(x.ack.Sender.Qualifier) + ":" + strings.TrimSpace(x.ack.Sender.ID)
}

func (x *x12Interchange) CounterKey() string { return "x12:" + x.Sender() }

func (x *x12Interchange) Unaddressed() string {
	if x.ack.Control == "" {
		return "the ISA header is unreadable"
	}
	return ""
}

// Duplicate rejects the interchange with TA1 code 025.
func (x *x12Interchange) Duplicate() {
	x.duplicate = true
	x.ack.Status = edi.Rejected
	x.ack.Error = edi.Errorf(edi.Location{}, edi.LevelInterchange, "025", "duplicate interchange control number")
}

// Ack reads a sound interchange again (its sets were let go while the file
// was read) to set the verdict of each of its sets.
func (x *x12Interchange) Ack(r io.ReaderAt, size int64, refused []Refusal, fileErr bool, ctl int64, now time.Time) (Ack, error) {
	if x.Sound() && !x.duplicate {
		data, err := readAll(r, size, x.name)
		if err != nil {
			return Ack{}, err
		}
		ic, ack, err := x12.ParseEnvelope(data)
		if err != nil {
			return Ack{}, fmt.Errorf("reading %s again for its 997: the interchange changed", x.name)
		}
		x.ic, x.ack = ic, ack
		x.ackSets(data, refused, fileErr)
	}
	env, pre, sets, _ := x12.AckEnvelope(x.ack, x.ic != nil && x.ic.AckRequested)
	env.Control, env.Time, env.Test = ctl%1_000_000_000, now, x.ic != nil && x.ic.Test
	var buf bytes.Buffer
	if err := x12.Write(&buf, env, pre, sets); err != nil {
		return Ack{}, fmt.Errorf("writing the 997 of %s: %w", x.name, err)
	}
	return Ack{Name: fmt.Sprintf("997_%s_%09d.x12", safeName(x.ack.Sender.ID), env.Control), Control: env.Control, Data: buf.Bytes(), Verdict: x.verdict()}, nil
}

// ackSets sets the verdict of each set: a set is rejected when a refused
// row is in it (the first such value named by AK3/AK4), or when the file
// has errors.
func (x *x12Interchange) ackSets(data []byte, refused []Refusal, fileErr bool) {
	failed := map[int]Refusal{}
	for _, f := range refused {
		if _, ok := failed[f.Row]; !ok {
			failed[f.Row] = f
		}
	}
	rows := slices.Sorted(maps.Keys(failed))
	for gi, g := range x.ic.Groups {
		ga := &x.ack.Groups[gi]
		for si := range g.Sets {
			set, sa := &g.Sets[si], &ga.Sets[si]
			for _, r := range rows {
				if r < set.Start || r >= set.Start+set.Count {
					continue
				}
				sa.Add(edi.Rejected, x.setError(data, set, failed[r]))
				break
			}
			if fileErr {
				sa.Status = edi.Rejected
			}
		}
		ga.Status = edi.Accepted
		ga.Finish()
	}
}

// setError names the refusal of a row of set for the 997.
func (x *x12Interchange) setError(data []byte, set *x12.Set, f Refusal) *edi.Error {
	tab := x12.Tables[set.ID]
	if tab != nil && f.Column != "" {
		dt, err := model.LookupDocType(x.opts.Edition, tab.DocType)
		if err == nil {
			cols := x12.Columns(tab, x.opts.Edition, dt.Kind)
			if col := slices.Index(cols, f.Column); col >= 0 && x.ic.ReadSet(data, set) == nil {
				loc, val, ok := x12.Locate(set, tab, cols, f.Row, col)
				set.Segments = nil
				if ok && loc.Elem > 0 {
					code := "7" // invalid code value
					if val == "" {
						code = "1" // mandatory element missing
					}
					return &edi.Error{Location: loc, Level: edi.LevelElement, Code: code, Msg: f.Msg}
				}
			}
		}
	}
	return edi.Errorf(edi.Location{}, edi.LevelSet, "5", "%s", f.Msg)
}

func (x *x12Interchange) verdict() string {
	if x.ack.Error != nil {
		return "interchange rejected: " + x.ack.Error.Msg
	}
	var parts []string
	for _, g := range x.ack.Groups {
		parts = append(parts, fmt.Sprintf("group %s %s, %d of %d sets accepted", g.Control, g.Status, g.Accepted, g.Received))
	}
	return strings.Join(parts, "; ")
}
