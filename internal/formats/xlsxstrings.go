package formats

import (
	"archive/zip"
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
	buf  []byte
}

// sstSpillSize is the unpacked size of the shared strings part above which
// they go to a temporary file (a variable for the tests).
var sstSpillSize uint64 = 16 << 20

// errNoSharedString is a cell that refers to a string the table lacks.
var errNoSharedString = errors.New("the workbook's shared string table has no such entry")

func (ss *sharedStrings) get(i int) (string, error) {
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
	n := ss.offs[i+1] - ss.offs[i]
	if int64(cap(ss.buf)) < n {
		ss.buf = make([]byte, n)
	}
	b := ss.buf[:n]
	if _, err := ss.file.ReadAt(b, ss.offs[i]); err != nil {
		return "", fmt.Errorf("reading the shared strings back from their temporary file: %w", err)
	}
	return string(b), nil
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

// xmlRichText is a shared string: plain text or runs (phonetic runs are
// not part of the text).
type xmlRichText struct {
	T *string `xml:"t"`
	R []struct {
		T string `xml:"t"`
	} `xml:"r"`
}

func (x *xmlRichText) String() string {
	s := ""
	if x.T != nil {
		s = *x.T
	}
	for _, r := range x.R {
		s += r.T
	}
	return unescapeBSTR(s)
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
	dec := xml.NewDecoder(rc)
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return ss, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading the shared strings: %w", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != "si" {
			continue
		}
		var si xmlRichText
		if err := dec.DecodeElement(&si, &se); err != nil {
			return nil, fmt.Errorf("reading the shared strings: %w", err)
		}
		if ss.file == nil {
			ss.mem = append(ss.mem, si.String())
			continue
		}
		n, err := io.WriteString(ss.file, si.String())
		if err != nil {
			return nil, fmt.Errorf("spilling the shared strings: %w", err)
		}
		pos += int64(n)
		ss.offs = append(ss.offs, pos)
	}
}
