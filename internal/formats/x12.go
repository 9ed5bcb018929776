package formats

import (
	"fmt"
	"io"
	"slices"
	"strings"

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

func (s *x12Source) sheet() string { return "" }
func (s *x12Source) close() error  { return nil }
