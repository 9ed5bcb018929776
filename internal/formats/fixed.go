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
	r    *bufio.Reader
	cut  *fixedwidth.Cutter
	utf8 bool // the text is not transcoded: it must be valid UTF-8
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
	s := &fixedSource{cut: fixedwidth.NewCutter(opts.Layout, opts.DecimalComma), r: bufio.NewReader(t.in), watch: t.watch, utf8: t.watch == nil}
	return s, nil
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
