package inbox

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"filebridge/internal/formats"
)

// rejectSpool holds the error message of every failed row between the
// report pass (documents, in the decoder's order) and the rejected-rows
// pass (raw rows, in file order). The messages go to an unlinked
// temporary file; memory holds 16 bytes per failed row, and a kill leaves
// nothing behind.
type rejectSpool struct {
	f    *os.File
	w    *bufio.Writer
	size int64
	refs []rowRef
}

// rowRef places a failed row's message in the spool. Rows of one document
// that share its message share one copy.
type rowRef struct {
	row uint32
	n   uint32
	off int64
}

func newRejectSpool() (*rejectSpool, error) {
	f, err := os.CreateTemp("", "filebridge-rejected-*")
	if err != nil {
		return nil, fmt.Errorf("creating the rejected-rows spool: %w", err)
	}
	// Unlinked at once: the open file stays usable and nothing is left
	// behind by a kill.
	_ = os.Remove(f.Name())
	return &rejectSpool{f: f, w: bufio.NewWriterSize(f, 64<<10)}, nil
}

// reset empties the spool (the report is being written again).
func (s *rejectSpool) reset() error {
	s.w.Reset(s.f)
	s.size, s.refs = 0, s.refs[:0]
	if err := s.f.Truncate(0); err != nil {
		return fmt.Errorf("emptying the rejected-rows spool: %w", err)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("emptying the rejected-rows spool: %w", err)
	}
	return nil
}

func (s *rejectSpool) Close() error { return s.f.Close() }

func (s *rejectSpool) empty() bool { return len(s.refs) == 0 }

// put stores a message and returns its place.
func (s *rejectSpool) put(msg string) (int64, uint32, error) {
	off := s.size
	n, err := s.w.WriteString(msg)
	s.size += int64(n)
	if err != nil {
		return 0, 0, fmt.Errorf("writing the rejected-rows spool: %w", err)
	}
	return off, uint32(n), nil
}

// addDoc records the rows of a failed document with their messages, in
// one pass over its rows and one over its issues.
func (s *rejectSpool) addDoc(d formats.Doc, docMsg string) error {
	var docOff int64
	var docN uint32
	docStored := false
	return rowMessages(d, docMsg, func(row int, own bool, msg string) error {
		if row <= 0 || int64(row) > int64(^uint32(0)) {
			return nil
		}
		if own {
			off, n, err := s.put(msg)
			if err != nil {
				return err
			}
			s.refs = append(s.refs, rowRef{row: uint32(row), n: n, off: off})
			return nil
		}
		if !docStored {
			var err error
			if docOff, docN, err = s.put(msg); err != nil {
				return err
			}
			docStored = true
		}
		s.refs = append(s.refs, rowRef{row: uint32(row), n: docN, off: docOff})
		return nil
	})
}

// rowMessages calls fn with the error-column message of every row of a
// failed document: the row's own problems (own is true), or, when the row
// itself is fine, why its document failed (another row of the order, or
// the portal's answer; the same text for every such row). It is linear in
// the rows and issues of the document.
func rowMessages(d formats.Doc, docMsg string, fn func(row int, own bool, msg string) error) error {
	byRow := map[int][]string{}
	for _, is := range d.Issues {
		if is.Row > 0 && !is.Warning {
			byRow[is.Row] = append(byRow[is.Row], issueText(is))
		}
	}
	fine := docMsg
	if len(d.Rows) > 1 {
		fine = "this row is fine, but its order failed: " + docMsg
	}
	for _, r := range d.Rows {
		own := byRow[r]
		var err error
		if len(own) == 0 {
			err = fn(r, false, fine)
		} else {
			err = fn(r, true, strings.Join(own, "; "))
			delete(byRow, r) // a row listed twice gets its problems once
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// reader returns the rows' messages in row order.
func (s *rejectSpool) reader() (*spoolReader, error) {
	if err := s.w.Flush(); err != nil {
		return nil, fmt.Errorf("writing the rejected-rows spool: %w", err)
	}
	byRow := func(a, b rowRef) int { return int(a.row) - int(b.row) }
	if !slices.IsSortedFunc(s.refs, byRow) {
		slices.SortStableFunc(s.refs, byRow)
	}
	return &spoolReader{s: s, last: -1}, nil
}

// spoolReader reads the messages of failed rows for ascending rows,
// sequentially where the spool is in order, seeking where not.
type spoolReader struct {
	s       *rejectSpool
	i       int
	br      *bufio.Reader
	pos     int64 // the spool offset br reads next
	last    int64 // offset of the last message read, -1 before any
	lastMsg string
}

// message returns the message of a row, false when the row did not fail.
func (r *spoolReader) message(row int) (string, bool, error) {
	refs := r.s.refs
	for r.i < len(refs) && int(refs[r.i].row) < row {
		r.i++
	}
	if r.i >= len(refs) || int(refs[r.i].row) != row {
		return "", false, nil
	}
	ref := refs[r.i]
	r.i++
	if ref.off == r.last {
		return r.lastMsg, true, nil
	}
	if r.br == nil || ref.off != r.pos {
		r.br = bufio.NewReaderSize(io.NewSectionReader(r.s.f, ref.off, r.s.size-ref.off), 64<<10)
		r.pos = ref.off
	}
	buf := make([]byte, ref.n)
	if _, err := io.ReadFull(r.br, buf); err != nil {
		return "", false, fmt.Errorf("reading the rejected-rows spool: %w", err)
	}
	r.pos += int64(ref.n)
	r.last, r.lastMsg = ref.off, string(buf)
	return r.lastMsg, true, nil
}
