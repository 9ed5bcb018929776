package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// outputFormat is the --format of the journal commands.
type outputFormat string

const (
	formatTable outputFormat = "table"
	formatJSON  outputFormat = "json"
	formatCSV   outputFormat = "csv"
)

func parseFormat(s string) (outputFormat, error) {
	switch f := outputFormat(strings.ToLower(s)); f {
	case formatTable, formatJSON, formatCSV:
		return f, nil
	}
	return "", fmt.Errorf("--format %q: use table, json or csv", s)
}

// table is rows of text with a header, written as an aligned table or CSV;
// JSON is written from the records themselves.
type table struct {
	header []string
	rows   [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) write(w io.Writer, f outputFormat) error {
	if f == formatCSV {
		cw := csv.NewWriter(w)
		_ = cw.Write(t.header)
		_ = cw.WriteAll(t.rows) // flushes
		return cw.Error()
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(t.header, "\t"))
	for _, r := range t.rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// localTime shows a time in the operator's zone, "" for zero.
func localTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.In(time.Local).Format("2006-01-02 15:04:05")
}

// parseWhen reads --since: a duration back from now ("24h", "7d"), RFC 3339,
// or a local date or date-time.
func parseWhen(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n >= 0 && strconv.Itoa(n) == days {
			return now.AddDate(0, 0, -n), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if t, ok := parseTimeIn(s, time.Local); ok {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("--since %q: write a time back from now (24h, 7d), a date 2026-11-21, a local time 2026-11-21T02:00:00 or RFC 3339", s)
}

// parseTimeIn reads RFC 3339, or a date or date-time in loc.
func parseTimeIn(s string, loc *time.Location) (time.Time, bool) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, true
	}
	for _, layout := range []string{time.DateOnly, "2006-01-02T15:04:05", "2006-01-02 15:04"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
