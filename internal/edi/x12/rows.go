package x12

import (
	"bytes"
	"slices"

	"filebridge/internal/edi"
	"filebridge/internal/model"
)

// IsX12 reports whether data (the first bytes of a file) starts like an
// X12 interchange: ISA and its element separator at the fixed places of
// ISA01 and ISA16.
func IsX12(head []byte) bool {
	head = bytes.TrimLeft(head, " \t\r\n")
	head = bytes.TrimPrefix(head, []byte("\ufeff"))
	return len(head) > 103 && bytes.HasPrefix(head, []byte("ISA")) && head[6] == head[3] && head[103] == head[3]
}

// Columns are the columns of tab that the edition's document of kind has.
func Columns(tab *edi.Table, e model.Edition, kind model.Kind) []string {
	spec, _ := model.SpecFor(e, kind)
	return tab.Columns(func(c string) bool {
		return slices.ContainsFunc(spec.Fields, func(f model.Field) bool { return f.Name == c })
	})
}

// Row is the row number of a line of set: its segment's ordinal in the
// interchange (ISA is 1).
func (s *Set) Row(pos int) int { return s.Start + pos - 1 }

// SetOf returns the set of the interchange holding row (an ordinal), nil
// for none.
func (ic *Interchange) SetOf(row int) *Set {
	for gi := range ic.Groups {
		for si := range ic.Groups[gi].Sets {
			s := &ic.Groups[gi].Sets[si]
			if row >= s.Start && row < s.Start+s.Count {
				return s
			}
		}
	}
	return nil
}

// Locate names where column col of row comes from in set s mapped with
// tab onto cols: the element, or the line's segment when the set lacks the
// value. ok is false when row is no line of s.
func Locate(s *Set, tab *edi.Table, cols []string, row, col int) (loc edi.Location, value string, ok bool) {
	for _, r := range tab.Rows(s.Body(), cols) {
		if s.Row(r.Pos) != row {
			continue
		}
		if col >= 0 && col < len(cols) && r.Src[col].Tag != "" {
			return r.Src[col], r.Cells[col], true
		}
		return edi.Location{Pos: r.Pos, Tag: s.Segments[r.Pos-1].Tag}, "", true
	}
	return edi.Location{}, "", false
}
