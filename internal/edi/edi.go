// Package edi holds what ANSI X12 and UN/EDIFACT share in filebridge: the
// tokenized segment, the delimiters of an interchange, the error that names
// where in an interchange a problem is, the mapping tables that turn a
// transaction set or message into the rows of a document type, and the model
// of the functional acknowledgement (997 / CONTRL) written back.
//
// The standards live in the subpackages x12 and edifact; they tokenize and
// check envelopes, and hand the segments of each set/message to Rows.
package edi

import (
	"fmt"
	"strings"
)

// Segment is one segment of an interchange.
type Segment struct {
	Tag string
	// Elems are the data elements after the tag; each is its components
	// (a simple element has one). Elems[0] is element 01.
	Elems [][]string
	// Pos is the 1-based position of the segment in its transaction set /
	// message (ST or UNH is 1), as acknowledgements count; envelope
	// segments outside a set count from the start of the interchange.
	Pos int
	// Line is the 1-based physical line of the file the segment starts on.
	Line int
}

// Elem returns component comp (1-based) of element elem (1-based, as in
// "N403"); "" when the segment has no such element or component.
func (s Segment) Elem(elem, comp int) string {
	if elem < 1 || elem > len(s.Elems) {
		return ""
	}
	cs := s.Elems[elem-1]
	if comp < 1 {
		comp = 1
	}
	if comp > len(cs) {
		return ""
	}
	return cs[comp-1]
}

// Value is Elem(elem, 1): the element's value (its first component).
func (s Segment) Value(elem int) string { return s.Elem(elem, 1) }

// Delimiters are the separators of one interchange. Zero means none.
type Delimiters struct {
	Element    byte // X12: 4th byte of ISA; EDIFACT: '+'
	Component  byte // X12: ISA16; EDIFACT: ':'
	Segment    byte // X12: the byte after ISA16; EDIFACT: '\''
	Repetition byte // X12 005010: ISA11; EDIFACT: '*' (D.01B and later)
	Release    byte // EDIFACT: '?'; X12 has none
	Decimal    byte // EDIFACT: '.' or ','; X12 always '.'
}

// Location names a place in an interchange the way a clerk's report and an
// acknowledgement do: "segment 14 N4, element 03, component 2".
type Location struct {
	Pos  int    // segment position (see Segment.Pos); 0: the interchange
	Tag  string // segment tag
	Elem int    // 1-based element; 0: the whole segment
	Comp int    // 1-based component; 0: the whole element
}

func (l Location) String() string {
	if l.Pos == 0 && l.Tag == "" {
		return "the interchange"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "segment %d %s", l.Pos, l.Tag)
	if l.Elem > 0 {
		fmt.Fprintf(&b, ", element %02d", l.Elem)
		if l.Comp > 0 {
			fmt.Fprintf(&b, ", component %d", l.Comp)
		}
	}
	return b.String()
}

// Error is a problem at a Location of an interchange. Code is the syntax
// error code the standard's acknowledgement carries for it (X12: AK304 for
// a segment, AK403 for an element, IK5/AK5 codes for a set; EDIFACT: the
// 0085 code of UCS/UCD/UCM); Level says which of these it is.
type Error struct {
	Location
	Level ErrorLevel
	Code  string
	Msg   string
	Line  int // physical line of the file, when known
}

// ErrorLevel says what an Error is about.
type ErrorLevel int

const (
	LevelInterchange ErrorLevel = iota // ISA/IEA, UNB/UNZ: TA1 / UCI
	LevelGroup                         // GS/GE, UNG/UNE: AK9 / UCF
	LevelSet                           // ST/SE, UNH/UNT: AK5 / UCM
	LevelSegment                       // a segment: AK3 / UCS
	LevelElement                       // an element: AK4 / UCD
)

func (e *Error) Error() string {
	if e.Pos == 0 && e.Tag == "" {
		return e.Msg
	}
	return e.Location.String() + ": " + e.Msg
}

// Errorf returns an *Error at loc.
func Errorf(loc Location, level ErrorLevel, code, format string, args ...any) *Error {
	return &Error{Location: loc, Level: level, Code: code, Msg: fmt.Sprintf(format, args...)}
}
