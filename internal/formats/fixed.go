package formats

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"filebridge/internal/fixedwidth"
)

// fixedSource reads the lines of a fixed-width file and cuts them by the
// route's layout (see fixedwidth.Cutter). The file has no header row: the
// layout names the columns.
type fixedSource struct {
	raw   io.ReaderAt
	size  int64
	start textStart // how its text is read (see openText)
	// layout and comma make the cutter of each pass.
	layout fixedwidth.Layout
	comma  bool
	r      *bufio.Reader
	cut    *fixedwidth.Cutter
	utf8   bool // the text is not transcoded: it must be valid UTF-8
	// watch sees the bytes of a file read in a single-byte charset (a
	// UTF-8 file there would shift every column after an accented letter).
	watch *charsetWatch
	line  int
}

// withLayout makes the options of a fixed-width file read like a file
// without header row whose positions are the layout's column names.
func (o Options) withLayout() Options {
	if isFixed(o.Format) {
		o.NoHeader = true
		o.Positions = o.Layout.Names()
		o.HeaderRow = 0
	}
	return o
}

func isFixed(format string) bool {
	return strings.EqualFold(strings.TrimSpace(format), fixedwidth.Format)
}

func openFixed(r io.ReaderAt, size int64, opts Options) (*fixedSource, error) {
	if len(opts.Layout.Fields) == 0 {
		return nil, errors.New("a fixed-width file needs the layout of the route")
	}
	t, err := openText(r, size, opts, "the file is UTF-16 text: have the host write it in UTF-8 or a single-byte charset (set charset on the route)")
	switch {
	case err != nil:
		return nil, err
	case bytes.HasPrefix(t.head, []byte("PK\x03\x04")), bytes.HasPrefix(t.head, oleMagic[:4]):
		return nil, &fileProblem{msg: "this is a workbook (or another binary file), not a fixed-width text file: check the route's match and format"}
	}
	s := &fixedSource{raw: r, size: size, start: t.textStart, layout: opts.Layout, comma: opts.DecimalComma, utf8: t.watch == nil}
	s.read(t.in, t.watch)
	return s, nil
}

// read cuts the lines of in, the file's text from its start: a new
// cutter, which knows no header record yet.
func (s *fixedSource) read(in io.Reader, watch *charsetWatch) {
	s.r, s.watch, s.line = bufio.NewReader(in), watch, 0
	s.cut = fixedwidth.NewCutter(s.layout, s.comma)
}

// rewind reads the file again from its first line, in the charset found
// when it was opened.
func (s *fixedSource) rewind() error {
	s.read(s.start.reader(s.raw, s.size))
	return nil
}

// next cuts the next line that makes a row.
func (s *fixedSource) next() (int, []string, error) {
	for {
		line, err := s.r.ReadString('\n')
		if line == "" && err != nil {
			if errors.Is(err, io.EOF) {
				if s.watch != nil {
					if p := s.watch.problem(); p != nil {
						p.col = -1
						return 0, nil, p
					}
				}
				return 0, nil, io.EOF
			}
			return 0, nil, fmt.Errorf("reading line %d: %w", s.line+1, err)
		}
		s.line++
		line = strings.TrimSuffix(line, "\n")
		if strings.IndexByte(line, 0) >= 0 {
			return 0, nil, &fileProblem{row: s.line, msg: fmt.Sprintf("the file holds a NUL byte on line %d: it is not a text file; have the host write it again", s.line)}
		}
		if s.utf8 && !utf8.ValidString(line) {
			return 0, nil, &fileProblem{row: s.line, msg: fmt.Sprintf("the file is not valid UTF-8 on line %d: it was probably written in a single-byte charset; set charset = \"windows-1252\" or \"iso-8859-1\" on the route", s.line)}
		}
		cells, row, problem := s.cut.Cut(line)
		if !row {
			continue
		}
		if problem != "" {
			re := &rowError{row: s.line, cells: cells, msg: problem, reported: slices.Clone(s.cut.Reported)}
			if s.cut.Broken {
				// Like a broken CSV record: said once, the line kept as is.
				re.last, re.value, re.raw = s.line, line, line
			}
			return s.line, cells, re
		}
		return s.line, cells, nil
	}
}

func (s *fixedSource) cell(int, int) string { return "" }
func (s *fixedSource) sheet() string        { return "" }
func (s *fixedSource) close() error         { return nil }
