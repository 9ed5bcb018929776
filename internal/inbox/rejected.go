package inbox

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
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
// temporary file, and so do their places (rowRef, 16 bytes per failed
// row) as long as they come in row order, which they do when the rows of
// each order are together: memory then stays the same whatever the
// number of failed rows. Places that come out of row order (the rows of
// orders interleaved) are read back into memory and sorted. A kill
// leaves nothing behind.
type rejectSpool struct {
	f    rejectFile
	w    *bufio.Writer
	size int64
	// rf holds the places, in the order added; nrefs counts them, sorted
	// says they are in row order so far, last is the last row added.
	rf     rejectFile
	rw     *bufio.Writer
	nrefs  int64
	sorted bool
	last   uint32
	// temp creates the spool's files (unlinkedTemp; a test counts the
	// bytes that go through them).
	temp func(pattern string) (rejectFile, error)
}

// rejectFile is what the rejected-rows spool needs of its temporary
// files (*os.File).
type rejectFile interface {
	io.Writer
	io.ReaderAt
	io.Seeker
	io.Closer
	Truncate(size int64) error
}

// rowRef places a failed row's message in the spool. Rows of one document
// that share its message share one copy.
type rowRef struct {
	row uint32
	n   uint32
	off int64
}

// refSize is the size of a rowRef in the places file.
const refSize = 16

// newRejectSpool returns an empty spool; its files are created with the
// first failed document (most files have none).
func newRejectSpool() *rejectSpool { return &rejectSpool{sorted: true, temp: unlinkedTemp} }

// open creates the spool's files.
func (s *rejectSpool) open() error {
	f, err := s.temp("filebridge-rejected-*")
	if err != nil {
		return err
	}
	rf, err := s.temp("filebridge-rejected-rows-*")
	if err != nil {
		_ = f.Close()
		return err
	}
	s.f, s.w, s.rf, s.rw = f, bufio.NewWriterSize(f, 64<<10), rf, bufio.NewWriterSize(rf, 64<<10)
	return nil
}

// unlinkedTemp creates a temporary file and removes its name at once:
// the open file stays usable and nothing is left behind by a kill.
func unlinkedTemp(pattern string) (rejectFile, error) {
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return nil, fmt.Errorf("creating the rejected-rows spool: %w", err)
	}
	_ = os.Remove(f.Name())
	return f, nil
}

// reset empties the spool (the report is being written again).
func (s *rejectSpool) reset() error {
	s.size, s.nrefs, s.sorted, s.last = 0, 0, true, 0
	if s.f == nil {
		return nil
	}
	s.w.Reset(s.f)
	s.rw.Reset(s.rf)
	for _, f := range []rejectFile{s.f, s.rf} {
		if err := f.Truncate(0); err != nil {
			return fmt.Errorf("emptying the rejected-rows spool: %w", err)
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("emptying the rejected-rows spool: %w", err)
		}
	}
	return nil
}

func (s *rejectSpool) Close() error {
	if s.f == nil {
		return nil
	}
	return errors.Join(s.f.Close(), s.rf.Close())
}

func (s *rejectSpool) empty() bool { return s.nrefs == 0 }

// addRef records the place of a failed row's message.
func (s *rejectSpool) addRef(ref rowRef) error {
	if ref.row < s.last {
		s.sorted = false
	}
	s.last = ref.row
	var b [refSize]byte
	binary.LittleEndian.PutUint32(b[0:], ref.row)
	binary.LittleEndian.PutUint32(b[4:], ref.n)
	binary.LittleEndian.PutUint64(b[8:], uint64(ref.off))
	if _, err := s.rw.Write(b[:]); err != nil {
		return fmt.Errorf("writing the rejected-rows spool: %w", err)
	}
	s.nrefs++
	return nil
}

// readRef decodes a place written by addRef.
func readRef(b []byte) rowRef {
	return rowRef{row: binary.LittleEndian.Uint32(b[0:]), n: binary.LittleEndian.Uint32(b[4:]), off: int64(binary.LittleEndian.Uint64(b[8:]))}
}

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
	if s.f == nil {
		if err := s.open(); err != nil {
			return err
		}
	}
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
			return s.addRef(rowRef{row: uint32(row), n: n, off: off})
		}
		if !docStored {
			var err error
			if docOff, docN, err = s.put(msg); err != nil {
				return err
			}
			docStored = true
		}
		return s.addRef(rowRef{row: uint32(row), n: docN, off: docOff})
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
	if err := s.rw.Flush(); err != nil {
		return nil, fmt.Errorf("writing the rejected-rows spool: %w", err)
	}
	places := io.NewSectionReader(s.rf, 0, s.nrefs*refSize)
	r := &spoolReader{s: s, last: -1}
	if s.sorted {
		// In row order already: read the places as the rows go.
		br := bufio.NewReaderSize(places, 64<<10)
		var b [refSize]byte
		r.next = func() (rowRef, bool, error) {
			if _, err := io.ReadFull(br, b[:]); err != nil {
				if errors.Is(err, io.EOF) {
					return rowRef{}, false, nil
				}
				return rowRef{}, false, fmt.Errorf("reading the rejected-rows spool: %w", err)
			}
			return readRef(b[:]), true, nil
		}
		return r, nil
	}
	refs := make([]rowRef, 0, s.nrefs)
	br := bufio.NewReaderSize(places, 64<<10)
	var b [refSize]byte
	for range s.nrefs {
		if _, err := io.ReadFull(br, b[:]); err != nil {
			return nil, fmt.Errorf("reading the rejected-rows spool: %w", err)
		}
		refs = append(refs, readRef(b[:]))
	}
	slices.SortStableFunc(refs, func(a, b rowRef) int { return cmp.Compare(a.row, b.row) })
	r.next = func() (rowRef, bool, error) {
		if len(refs) == 0 {
			return rowRef{}, false, nil
		}
		ref := refs[0]
		refs = refs[1:]
		return ref, true, nil
	}
	return r, nil
}

// spoolReader reads the messages of failed rows for ascending rows,
// sequentially where the spool is in order, with one read of its own for
// a message met before, seeking forward where rows were skipped.
type spoolReader struct {
	s *rejectSpool
	// next returns the places in row order; cur is the one read ahead.
	next    func() (rowRef, bool, error)
	cur     rowRef
	have    bool
	done    bool
	br      *bufio.Reader
	pos     int64 // the spool offset br reads next
	last    int64 // offset of the last message read, -1 before any
	lastMsg string
}

// message returns the message of a row, false when the row did not fail.
func (r *spoolReader) message(row int) (string, bool, error) {
	for !r.done && (!r.have || int(r.cur.row) < row) {
		ref, ok, err := r.next()
		if err != nil {
			return "", false, err
		}
		r.cur, r.have, r.done = ref, ok, !ok
	}
	if !r.have || int(r.cur.row) != row {
		return "", false, nil
	}
	ref := r.cur
	r.have = false
	if ref.off == r.last {
		return r.lastMsg, true, nil
	}
	buf := make([]byte, ref.n)
	if r.br != nil && ref.off < r.pos {
		// A message read before (that of a failed order, for a row of it
		// that is fine): read alone, the sequential reading goes on.
		if _, err := r.s.f.ReadAt(buf, ref.off); err != nil {
			return "", false, fmt.Errorf("reading the rejected-rows spool: %w", err)
		}
		r.last, r.lastMsg = ref.off, string(buf)
		return r.lastMsg, true, nil
	}
	if r.br == nil || ref.off != r.pos {
		sec := io.NewSectionReader(r.s.f, ref.off, r.s.size-ref.off)
		if r.br == nil {
			r.br = bufio.NewReaderSize(sec, 64<<10)
		} else {
			r.br.Reset(sec)
		}
		r.pos = ref.off
	}
	if _, err := io.ReadFull(r.br, buf); err != nil {
		return "", false, fmt.Errorf("reading the rejected-rows spool: %w", err)
	}
	r.pos += int64(ref.n)
	r.last, r.lastMsg = ref.off, string(buf)
	return r.lastMsg, true, nil
}
