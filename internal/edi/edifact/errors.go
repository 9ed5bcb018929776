package edifact

import (
	"fmt"
	"strconv"
	"strings"

	"filebridge/internal/edi"
)

// Level is the envelope level a problem belongs to.
type Level int

const (
	LevelInterchange Level = iota // UNB..UNZ, or the syntax itself
	LevelGroup                    // UNG..UNE
	LevelMessage                  // UNH..UNT
)

// Syntax error codes (ISO 9735 data element 0085) that CONTRL reports.
const (
	CodeSyntaxVersion      = 2  // syntax version or level not supported
	CodeInvalidValue       = 12 // invalid value
	CodeMissing            = 13 // missing
	CodeUnspecified        = 18 // unspecified error
	CodeInvalidServiceChar = 20 // character invalid as service character
	CodeInvalidChar        = 21 // invalid character(s)
	CodeDuplicate          = 26 // duplicate detected
	CodeRefMismatch        = 28 // references do not match
	CodeCountMismatch      = 29 // control count does not match number of instances received
	CodeGroupsMixed        = 30 // functional groups and messages mixed
	CodeOutside            = 33 // invalid occurrence outside message, package or group
	CodeTooLong            = 39 // data element too long
)

// Error is a problem of an interchange, named as CONTRL names it: the
// segment's position (in its message, UNH being 1; or in the interchange
// for a segment outside any message), its tag, the data element and
// component (1-based, 0 for the whole), and the syntax error code.
type Error struct {
	Level  Level
	MsgRef string // the message's reference (UNH 0062) at message level
	Pos    int
	Line   int
	Tag    string
	Elem   int
	Comp   int
	Code   int
	Msg    string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Level == LevelMessage && e.MsgRef != "" {
		fmt.Fprintf(&b, "message %s, ", e.MsgRef)
	}
	fmt.Fprintf(&b, "segment %d", e.Pos)
	if e.Tag != "" {
		b.WriteString(" " + e.Tag)
	}
	if e.Elem > 0 {
		fmt.Fprintf(&b, ", element %02d", e.Elem)
	}
	if e.Comp > 1 {
		fmt.Fprintf(&b, ", component %d", e.Comp)
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, " (line %d)", e.Line)
	}
	b.WriteString(": " + e.Msg)
	return b.String()
}

// Shared returns the problem as the acknowledgement model and the reports
// of both standards name it.
func (e *Error) Shared() *edi.Error {
	level := edi.LevelInterchange
	switch {
	case e.Level == LevelGroup:
		level = edi.LevelGroup
	case e.Level == LevelMessage && (e.Tag == "UNH" || e.Tag == "UNT"):
		level = edi.LevelSet
	case e.Level == LevelMessage && e.Elem > 0:
		level = edi.LevelElement
	case e.Level == LevelMessage:
		level = edi.LevelSegment
	}
	return &edi.Error{Location: edi.Location{Pos: e.Pos, Tag: e.Tag, Elem: e.Elem, Comp: e.Comp},
		Level: level, Code: strconv.Itoa(e.Code), Msg: e.Msg, Line: e.Line}
}
