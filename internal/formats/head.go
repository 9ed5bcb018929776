package formats

import (
	"errors"
	"fmt"
	"io"
)

// headSize is how much of a file its format is told by (an X12 or EDIFACT
// envelope, a workbook's magic) and a one-order file's whole size.
const headSize = 512

// Head is a file whose first bytes were read once: OpenInterchange,
// Decode, Rows and FileType take its format from them instead of reading
// them again, and reads within them are served from memory.
type Head struct {
	r    io.ReaderAt
	size int64
	head []byte
}

// ReadHead reads the first bytes of the file r (size bytes long) once.
func ReadHead(r io.ReaderAt, size int64) (*Head, error) {
	if h, ok := r.(*Head); ok {
		return h, nil
	}
	head := make([]byte, min(size, headSize))
	n, err := r.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("reading the first %d bytes: %w", len(head), err)
	}
	// A file shorter now than size is read as it is.
	return &Head{r: r, size: size, head: head[:n]}, nil
}

// ReadAt reads the file, the first bytes from memory. A negative offset
// (a corrupt workbook's directory can hold one) is an error, as
// io.ReaderAt asks.
func (h *Head) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errNegativeOffset
	}
	n := 0
	if off < int64(len(h.head)) {
		n = copy(p, h.head[off:])
	}
	if n == len(p) {
		return n, nil
	}
	if off+int64(n) >= h.size {
		return n, io.EOF
	}
	m, err := h.r.ReadAt(p[n:], off+int64(n))
	return n + m, err
}

var errNegativeOffset = errors.New("reading at a negative offset")

// headOf returns the first bytes of r: those a Head holds, else read now.
func headOf(r io.ReaderAt, size int64, name string) ([]byte, error) {
	if h, ok := r.(*Head); ok && h.size == size {
		return h.head, nil
	}
	head := make([]byte, min(size, headSize))
	if _, err := r.ReadAt(head, 0); err != nil && err != io.EOF {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	return head, nil
}
