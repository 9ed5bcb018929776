package edifact

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Writer writes one interchange: UNA and UNB at the start, UNH and UNT
// around each message with its segment count, UNZ with the message count.
// Values are escaped with the release character and checked against the
// character set. A Writer's first error sticks and is returned by Close.
type Writer struct {
	w        *bufio.Writer
	h        Header
	cs       charset
	nl       bool // a line break after each segment
	msgs     int
	segs     int    // segments of the open message, UNH included
	msgRef   string // the open message's reference
	err      error
	released string // the characters to release
}

// NewWriter starts an interchange. h.Syntax defaults to UNOC, version 3,
// delimiters Default; Date and Time come from now when empty. A line
// break after each segment makes the file readable and is allowed by
// every reader (the tokenizer here skips it).
func NewWriter(w io.Writer, h Header, now time.Time, lineBreaks bool) *Writer {
	if h.Syntax == "" {
		h.Syntax = "UNOC"
	}
	if h.SyntaxVersion == "" {
		h.SyntaxVersion = "3"
	}
	if h.Delims == (Delims{}) {
		h.Delims = Default
	}
	if h.Date == "" {
		h.Date, h.Time = now.Format("060102"), now.Format("1504")
		if h.SyntaxVersion == "4" {
			h.Date = now.Format("20060102")
		}
	}
	wr := &Writer{w: bufio.NewWriter(w), h: h, nl: lineBreaks}
	cs, ok := charsets[h.Syntax]
	if !ok {
		wr.err = fmt.Errorf("syntax identifier %q: use UNOA, UNOB, UNOC or UNOW", h.Syntax)
		return wr
	}
	wr.cs = cs
	d := h.Delims
	wr.released = string([]byte{d.Component, d.Element, d.Terminator})
	if d.Release != 0 {
		wr.released += string(d.Release)
	}
	if h.UNA || d != Default {
		wr.raw(d.UNA())
		if lineBreaks {
			wr.raw("\n")
		}
	}
	unb := [][]string{{h.Syntax, h.SyntaxVersion}, party(h.Sender), party(h.Recipient), {h.Date, h.Time}, {h.Ref}}
	if h.App != "" || h.AckRequest || h.Test {
		unb = append(unb, nil, []string{h.App}, nil, []string{yes(h.AckRequest)}, nil, []string{yes(h.Test)})
	}
	wr.segment("UNB", unb)
	return wr
}

func party(p Party) []string {
	return trimEmpty([]string{p.ID, p.Qual, p.Routing})
}

func yes(b bool) string {
	if b {
		return "1"
	}
	return ""
}

// trimEmpty drops trailing empty values, as EDIFACT writes them.
func trimEmpty(v []string) []string {
	for len(v) > 0 && v[len(v)-1] == "" {
		v = v[:len(v)-1]
	}
	return v
}

// Begin opens a message with its reference and identifier.
func (wr *Writer) Begin(ref string, id MessageID) {
	if wr.msgRef != "" && wr.err == nil {
		wr.err = fmt.Errorf("message %s begins before message %s ends", ref, wr.msgRef)
	}
	wr.msgRef, wr.segs = ref, 0
	wr.Segment("UNH", []string{ref}, trimEmpty([]string{id.Type, id.Version, id.Release, id.Agency, id.Assoc}))
}

// Segment writes one segment of the open message; each element is its
// components.
func (wr *Writer) Segment(tag string, elems ...[]string) {
	wr.segs++
	wr.segment(tag, elems)
}

// End closes the open message with its UNT.
func (wr *Writer) End() {
	wr.segs++
	wr.segment("UNT", [][]string{{strconv.Itoa(wr.segs)}, {wr.msgRef}})
	wr.msgRef = ""
	wr.msgs++
}

// Close writes the UNZ and flushes.
func (wr *Writer) Close() error {
	if wr.msgRef != "" && wr.err == nil {
		wr.err = fmt.Errorf("message %s is not ended", wr.msgRef)
	}
	wr.segment("UNZ", [][]string{{strconv.Itoa(wr.msgs)}, {wr.h.Ref}})
	if wr.err != nil {
		return wr.err
	}
	return wr.w.Flush()
}

func (wr *Writer) segment(tag string, elems [][]string) {
	if wr.err != nil {
		return
	}
	d := wr.h.Delims
	var b strings.Builder
	b.WriteString(tag)
	// Trailing empty elements are left out.
	n := len(elems)
	for n > 0 && len(trimEmpty(elems[n-1])) == 0 {
		n--
	}
	for ei, el := range elems[:n] {
		b.WriteByte(d.Element)
		for ci, v := range trimEmpty(el) {
			if ci > 0 {
				b.WriteByte(d.Component)
			}
			enc, err := wr.cs.encode(v)
			if err != nil {
				wr.err = fmt.Errorf("segment %s, element %02d: %w", tag, ei+1, err)
				return
			}
			wr.escape(&b, enc, tag, ei+1)
		}
	}
	b.WriteByte(d.Terminator)
	if wr.nl {
		b.WriteByte('\n')
	}
	wr.raw(b.String())
}

// escape writes v with the release character before each service character.
func (wr *Writer) escape(b *strings.Builder, v, tag string, elem int) {
	for i := range len(v) {
		c := v[i]
		if strings.IndexByte(wr.released, c) >= 0 {
			if wr.h.Delims.Release == 0 {
				wr.err = fmt.Errorf("segment %s, element %02d: %q holds the service character %s and the interchange has no release character", tag, elem, v, quote(c))
				return
			}
			b.WriteByte(wr.h.Delims.Release)
		}
		b.WriteByte(c)
	}
}

func (wr *Writer) raw(s string) {
	if wr.err == nil {
		_, wr.err = wr.w.WriteString(s)
	}
}
