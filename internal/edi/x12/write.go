package x12

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"filebridge/internal/edi"
)

// Envelope says who an outbound interchange is from and to, and how it is
// numbered.
type Envelope struct {
	Sender, Receiver     edi.Party // ISA05/06 and ISA07/08
	GSSender, GSReceiver string    // GS02/GS03; "" takes ISA06/ISA08
	Version              string    // GS08: "004010" (default) or "005010"
	Test                 bool      // ISA15 = T
	AckRequested         bool      // ISA14 = 1
	Control              int64     // ISA13, and GS06 of the group
	Time                 time.Time
}

// OutSet is one transaction set to write: its segments between ST and SE.
type OutSet struct {
	ID   string // ST01: "945"
	Body []edi.Segment
}

// Delims are the separators filebridge writes: * > ~ (and ^ repeats in
// 005010), each segment on its own line.
var Delims = edi.Delimiters{Element: '*', Component: '>', Segment: '~', Repetition: '^', Decimal: '.'}

func (e Envelope) version() string {
	if len(e.Version) < 6 || !digits(e.Version[:6]) {
		return "004010"
	}
	return e.Version
}

// FuncIDs are the functional identifier codes (GS01) of the sets filebridge
// writes and reads.
var FuncIDs = map[string]string{
	"940": "OW", "943": "AR", "944": "RE", "945": "SW", "846": "IB", "947": "AW",
	"888": "QG", "832": "SC", "997": "FA",
}

// Write writes one interchange: the ISA, the segments of pre (a TA1), one
// functional group of sets when there are any, IEA. Set control numbers
// run from 0001; SE01, GE01 and IEA01 are counted.
func Write(w io.Writer, env Envelope, pre []edi.Segment, sets []OutSet) error {
	sw, err := NewWriter(w, env, pre)
	if err != nil {
		return err
	}
	for _, s := range sets {
		if err := sw.Begin(s.ID); err != nil {
			return err
		}
		for _, b := range s.Body {
			sw.Segment(b)
		}
		sw.End()
	}
	return sw.Close()
}

// Writer streams one interchange: its sets are written as they come, the
// trailers count them at the end, so memory stays flat whatever their
// number.
type Writer struct {
	ew       *encoder
	env      Envelope
	ctl, ver string
	funcID   string
	sets     int // sets begun
	segs     int // segments of the open set, ST included
	open     bool
}

// NewWriter writes the ISA and the segments of pre (a TA1).
func NewWriter(w io.Writer, env Envelope, pre []edi.Segment) (*Writer, error) {
	if env.Control < 0 || env.Control > 999999999 {
		return nil, fmt.Errorf("interchange control number %d is out of ISA13's 9 digits", env.Control)
	}
	ew := &encoder{w: bufio.NewWriter(w), d: Delims}
	ts := env.Time.UTC()
	ctl := fmt.Sprintf("%09d", env.Control)
	ver := env.version()
	rep := "U"
	if ver >= "005010" {
		rep = string(Delims.Repetition)
	} else {
		ew.d.Repetition = 0 // 004010 has no repetition separator
	}
	ackReq := "0"
	if env.AckRequested {
		ackReq = "1"
	}
	usage := "P"
	if env.Test {
		usage = "T"
	}
	isa := []string{"00", pad("", 10), "00", pad("", 10),
		pad(qual(env.Sender.Qualifier), 2), pad(env.Sender.ID, 15), pad(qual(env.Receiver.Qualifier), 2), pad(env.Receiver.ID, 15),
		ts.Format("060102"), ts.Format("1504"), rep, ver[:5], ctl, ackReq, usage, string(Delims.Component)}
	for i, v := range isa {
		if len(v) != isaWidths[i] {
			return nil, fmt.Errorf("ISA%02d %q is longer than its %d characters: shorten the partner identity in the config", i+1, v, isaWidths[i])
		}
	}
	// The ISA is written as is: its last element is the component separator.
	ew.raw("ISA*" + strings.Join(isa, "*"))
	for _, s := range pre {
		ew.seg(s)
	}
	return &Writer{ew: ew, env: env, ctl: ctl, ver: ver}, ew.err
}

// Begin starts a transaction set (ST); the first one opens the functional
// group (GS) of its functional identifier.
func (w *Writer) Begin(id string) error {
	if w.open {
		w.End()
	}
	if w.funcID == "" {
		w.funcID = FuncIDs[id]
		if w.funcID == "" {
			return fmt.Errorf("no functional identifier for set %s", id)
		}
		ts := w.env.Time.UTC()
		w.ew.seg(edi.Segment{Tag: "GS", Elems: elems(w.funcID, cmpOr(w.env.GSSender, w.env.Sender.ID), cmpOr(w.env.GSReceiver, w.env.Receiver.ID),
			ts.Format("20060102"), ts.Format("1504"), strconv.FormatInt(w.env.Control, 10), "X", w.ver)})
	} else if FuncIDs[id] != w.funcID {
		return fmt.Errorf("set %s does not belong in a group of %s", id, w.funcID)
	}
	w.sets++
	w.open, w.segs = true, 1
	w.ew.seg(edi.Segment{Tag: "ST", Elems: elems(id, fmt.Sprintf("%04d", w.sets))})
	return w.ew.err
}

// Segment writes one segment of the open set.
func (w *Writer) Segment(s edi.Segment) {
	w.segs++
	w.ew.seg(s)
}

// End closes the open set (SE with its count).
func (w *Writer) End() {
	if !w.open {
		return
	}
	w.open = false
	w.ew.seg(edi.Segment{Tag: "SE", Elems: elems(strconv.Itoa(w.segs+1), fmt.Sprintf("%04d", w.sets))})
}

// Close closes the open set, the group and the interchange, and flushes.
func (w *Writer) Close() error {
	w.End()
	groups := 0
	if w.funcID != "" {
		groups = 1
		w.ew.seg(edi.Segment{Tag: "GE", Elems: elems(strconv.Itoa(w.sets), strconv.FormatInt(w.env.Control, 10))})
	}
	w.ew.seg(edi.Segment{Tag: "IEA", Elems: elems(strconv.Itoa(groups), w.ctl)})
	if w.ew.err != nil {
		return w.ew.err
	}
	return w.ew.w.Flush()
}

// Err is the first error met (a value holding a separator).
func (w *Writer) Err() error { return w.ew.err }

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func qual(q string) string {
	if q == "" {
		return "ZZ" // mutually defined
	}
	return q
}

func pad(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return s + strings.Repeat(" ", n-len(s))
}

// elems makes simple elements of values.
func elems(vs ...string) [][]string {
	out := make([][]string, len(vs))
	for i, v := range vs {
		out[i] = []string{v}
	}
	return out
}

// Seg makes a segment of simple elements.
func Seg(tag string, vs ...string) edi.Segment { return edi.Segment{Tag: tag, Elems: elems(vs...)} }

type encoder struct {
	w   *bufio.Writer
	d   edi.Delimiters
	err error
}

func (e *encoder) raw(s string) {
	e.w.WriteString(s)
	e.w.WriteByte(e.d.Segment)
	e.w.WriteByte('\n')
}

// seg writes a segment, its trailing empty elements and components left
// out. A value holding a separator is an error: X12 has no release
// character.
func (e *encoder) seg(s edi.Segment) {
	if e.err != nil {
		return
	}
	n := len(s.Elems)
	for n > 0 && empty(s.Elems[n-1]) {
		n--
	}
	var b strings.Builder
	b.WriteString(s.Tag)
	for i, comps := range s.Elems[:n] {
		b.WriteByte(e.d.Element)
		m := len(comps)
		for m > 1 && comps[m-1] == "" {
			m--
		}
		for j, c := range comps[:m] {
			if j > 0 {
				b.WriteByte(e.d.Component)
			}
			if strings.ContainsAny(c, e.forbidden()) {
				e.err = fmt.Errorf("%s%02d: the value %q holds one of the X12 separators %q or a line break, which X12 cannot carry",
					s.Tag, i+1, c, e.forbidden())
				return
			}
			b.WriteString(c)
		}
	}
	e.raw(b.String())
}

// forbidden are the characters no value may hold.
func (e *encoder) forbidden() string {
	f := []byte{e.d.Element, e.d.Component, e.d.Segment, '\r', '\n'}
	if e.d.Repetition != 0 {
		f = append(f, e.d.Repetition)
	}
	return string(f)
}

func empty(comps []string) bool {
	for _, c := range comps {
		if c != "" {
			return false
		}
	}
	return true
}
