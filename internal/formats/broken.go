package formats

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
)

// A record encoding/csv cannot parse (a quote left open, text after a
// closing quote) may span several physical lines: a quote never closed
// runs to the end of the file. The lines are one broken record, named by
// their range in its message, and its raw lines are read again from the
// file for NAME.rejected.csv, so that no line of the file goes
// unaccounted for.

// rawLineCap bounds the text of a broken record's first line kept as the
// value of its issue.
const rawLineCap = 200

// brokenRecord turns a parse error of encoding/csv into a rowError
// naming the record's lines, with its raw text when the source keeps it.
func (s *csvSource) brokenRecord(pe *csv.ParseError, rec []string) error {
	start, end := pe.StartLine, max(pe.Line, pe.StartLine)
	from, err := s.seekLine(start)
	if err != nil {
		return err
	}
	lastFrom, err := s.seekLine(end)
	if err != nil {
		return err
	}
	to, err := s.seekLine(end + 1)
	if err != nil {
		return err
	}
	atEOF, err := s.quoteOpenAtEnd(pe, lastFrom, to)
	if err != nil {
		return err
	}
	n := min(to-from, rawLineCap)
	if s.keepRaw {
		n = to - from
	}
	buf := make([]byte, n)
	if _, err := s.raw.ReadAt(buf, from); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("reading lines %d-%d again: %w", start, end, err)
	}
	if from == 0 {
		buf = bytes.TrimPrefix(buf, []byte("\xEF\xBB\xBF"))
	}
	if s.eol == '\r' {
		buf = bytes.ReplaceAll(buf, []byte{'\r'}, []byte{'\n'})
	}
	first, _, _ := bytes.Cut(buf, []byte{'\n'})
	re := &rowError{row: start, last: end, cells: rec, msg: brokenMessage(pe, len(rec)+1, atEOF),
		value: s.text(bytes.TrimRight(first, "\r"))}
	if s.keepRaw {
		re.raw = s.text(bytes.TrimSuffix(bytes.TrimSuffix(buf, []byte{'\n'}), []byte{'\r'}))
	}
	return re
}

// quoteOpenAtEnd tells the two errors encoding/csv names ErrQuote apart:
// a quote still open at the end of the file (its column is past the end
// of the last line, from..to in the file) and text after a closing quote.
func (s *csvSource) quoteOpenAtEnd(pe *csv.ParseError, from, to int64) (bool, error) {
	if !errors.Is(pe.Err, csv.ErrQuote) || to < s.size {
		return false, nil
	}
	if to-from > readSize {
		return true, nil // a line that long: taken as open to the end
	}
	buf := make([]byte, to-from)
	if _, err := s.raw.ReadAt(buf, from); err != nil && !errors.Is(err, io.EOF) {
		return false, fmt.Errorf("reading line %d again: %w", pe.Line, err)
	}
	if from == 0 {
		buf = bytes.TrimPrefix(buf, []byte("\xEF\xBB\xBF"))
	}
	last := s.text(bytes.TrimRight(buf, "\r\n"))
	return pe.Column > len(last), nil
}

// text decodes raw bytes of the file in its charset.
func (s *csvSource) text(b []byte) string {
	if s.watch != nil {
		return s.watch.decode(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// seekLine moves the source's raw-line cursor forward to the start of
// line n and returns its offset (the size of the file when it has fewer
// lines). Broken records come in line order: the file is scanned once.
func (s *csvSource) seekLine(n int) (int64, error) {
	if s.curLine == 0 {
		s.curLine = 1
	}
	var buf []byte
	for s.curLine < n && s.curOff < s.size {
		if buf == nil {
			buf = make([]byte, 32<<10)
		}
		k, err := s.raw.ReadAt(buf[:min(int64(len(buf)), s.size-s.curOff)], s.curOff)
		if k == 0 {
			if err == nil || errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return 0, fmt.Errorf("reading line %d again: %w", n, err)
		}
		chunk := buf[:k]
		for s.curLine < n {
			i := bytes.IndexByte(chunk, s.eol)
			if i < 0 {
				s.curOff += int64(len(chunk))
				break
			}
			s.curOff += int64(i + 1)
			s.curLine++
			chunk = chunk[i+1:]
		}
	}
	return s.curOff, nil
}

// brokenMessage explains a CSV syntax error to the clerk; field is the
// 1-based column of the value the error is in. A record of several lines
// is named by their range ("lines 5–9 are one broken record").
func brokenMessage(pe *csv.ParseError, field int, atEOF bool) string {
	start, end := pe.StartLine, max(pe.Line, pe.StartLine)
	const fix = "a quote inside a quoted value is written twice (\"\"), as in \"Monitor 24\"\"\" for Monitor 24\""
	span := ""
	if end > start {
		span = fmt.Sprintf("lines %d–%d are one broken record, none of them is submitted: ", start, end)
	}
	switch {
	case errors.Is(pe.Err, csv.ErrBareQuote):
		return fmt.Sprintf("%sa quote \" appears inside the unquoted value of column %d (line %d, byte %d): put the whole value in quotes and write the quotes inside it twice (\"\")", span, field, pe.Line, pe.Column)
	case errors.Is(pe.Err, csv.ErrQuote) && atEOF && end > start:
		return fmt.Sprintf("%sa quote opened in line %d, column %d is never closed, so the lines after it were read as part of that value: close the quote; %s", span, start, field, fix)
	case errors.Is(pe.Err, csv.ErrQuote) && atEOF:
		return fmt.Sprintf("a quote opened in column %d is never closed: close the quote; %s", field, fix)
	case errors.Is(pe.Err, csv.ErrQuote) && end > start:
		return fmt.Sprintf("%sa quote opened in line %d, column %d is not closed properly (in line %d text follows a closing quote): check the quotes; %s", span, start, field, end, fix)
	case errors.Is(pe.Err, csv.ErrQuote):
		return fmt.Sprintf("the quoted value of column %d is not closed properly (text follows its closing quote): check the quotes; %s", field, fix)
	}
	return span + pe.Err.Error()
}
