package formats

import (
	"archive/zip"
	"bufio"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
)

// sharedStrings is a workbook's shared string table: in memory, or, when
// its part unpacks to more than sstSpillSize bytes, in an unlinked
// temporary file with the strings' offsets in memory, so that memory does
// not grow with the text of a big workbook (as excelize does beyond its
// chunk size).
type sharedStrings struct {
	mem  []string
	file *os.File
	offs []int64 // spilled: string i is at offs[i]:offs[i+1]
}

// sstSpillSize is the unpacked size of the shared strings part above which
// they go to a temporary file (a variable for the tests).
var sstSpillSize uint64 = 16 << 20

// errNoSharedString is a cell that refers to a string the table lacks.
var errNoSharedString = errors.New("the workbook's shared string table has no such entry")

// stringBlock is a reader's windows on a spilled table: a sheet refers to
// its strings nearly in the table's order (a writer adds a string where it
// first uses it), and to a few strings over and over (a supplier's code on
// every row), so one read serves many cells: the window missed replaces the
// one used least recently.
type stringBlock struct {
	win  [2]stringWindow
	used [2]int64
	tick int64
}

type stringWindow struct {
	at  int64 // the offset of b in the file
	b   []byte
	buf []byte
}

// stringBlockSize is how much of a spilled table a window reads at once.
const stringBlockSize = 64 << 10

// get returns string i; blk is the caller's windows on a spilled table (the
// workers of a sheet call get at once, each with its own).
func (ss *sharedStrings) get(i int, blk *stringBlock) (string, error) {
	switch {
	case ss == nil || i < 0:
		return "", errNoSharedString
	case ss.file == nil:
		if i >= len(ss.mem) {
			return "", errNoSharedString
		}
		return ss.mem[i], nil
	case i+1 >= len(ss.offs):
		return "", errNoSharedString
	}
	from, to := ss.offs[i], ss.offs[i+1]
	blk.tick++
	k := 0
	if blk.used[1] < blk.used[0] {
		k = 1
	}
	for j := range blk.win {
		if w := &blk.win[j]; w.b != nil && from >= w.at && to <= w.at+int64(len(w.b)) {
			k = j
			break
		}
	}
	w := &blk.win[k]
	blk.used[k] = blk.tick
	if w.b == nil || from < w.at || to > w.at+int64(len(w.b)) {
		size := max(stringBlockSize, to-from)
		if int64(cap(w.buf)) < size {
			w.buf = make([]byte, size)
		}
		n, err := ss.file.ReadAt(w.buf[:size], from)
		if int64(n) < to-from {
			return "", fmt.Errorf("reading the shared strings back from their temporary file: %w", err)
		}
		w.at, w.b = from, w.buf[:n]
	}
	return string(w.b[from-w.at : to-w.at]), nil
}

// close removes the temporary file, if any.
func (ss *sharedStrings) close() error {
	if ss == nil || ss.file == nil {
		return nil
	}
	err := ss.file.Close()
	ss.file = nil
	return err
}

// readSharedStrings reads the shared string table of a workbook (nil
// without one).
func readSharedStrings(zr *zip.Reader, name string) (_ *sharedStrings, err error) {
	var zf *zip.File
	for _, f := range zr.File {
		if f.Name == name {
			zf = f
		}
	}
	if name == "" || zf == nil {
		return nil, nil
	}
	rc, err := zf.Open()
	if err != nil {
		return nil, fmt.Errorf("opening the shared strings: %w", err)
	}
	defer rc.Close()
	ss := &sharedStrings{}
	defer func() {
		if err != nil {
			_ = ss.close()
		}
	}()
	var pos int64
	if zf.UncompressedSize64 > sstSpillSize {
		if ss.file, err = os.CreateTemp("", "filebridge-strings-*"); err != nil {
			return nil, fmt.Errorf("spilling the shared strings: %w", err)
		}
		// Unlinked at once: the file goes when it is closed, or when the
		// process ends.
		if err := os.Remove(ss.file.Name()); err != nil {
			return nil, fmt.Errorf("spilling the shared strings: %w", err)
		}
		ss.offs = []int64{0}
	}
	p := chunkParser{dec: xml.NewDecoder(rc)}
	var spill *bufio.Writer
	if ss.file != nil {
		spill = bufio.NewWriterSize(ss.file, 64<<10)
	}
	for {
		tok, err := p.dec.RawToken()
		if errors.Is(err, io.EOF) {
			if spill != nil {
				if err := spill.Flush(); err != nil {
					return nil, fmt.Errorf("spilling the shared strings: %w", err)
				}
			}
			return ss, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading the shared strings: %w", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != "si" {
			continue
		}
		si, err := p.richText()
		if err != nil {
			return nil, fmt.Errorf("reading the shared strings: %w", err)
		}
		if spill == nil {
			ss.mem = append(ss.mem, si)
			continue
		}
		n, err := spill.WriteString(si)
		if err != nil {
			return nil, fmt.Errorf("spilling the shared strings: %w", err)
		}
		pos += int64(n)
		ss.offs = append(ss.offs, pos)
	}
}
