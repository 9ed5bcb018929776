package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"filebridge/internal/formats"
)

// fileReport is the outcome of validating one file.
type fileReport struct {
	Path, Name string
	Route      string // glob of the inbox route used, "" without one
	Summary    formats.Summary
	Issues     []formats.Issue // file issues first, then by row
	Err        error           // the file could not be read at all
	Unresolved int             // --online: codes the portal does not know
}

// ok reports whether the file is valid (warnings allowed).
func (r fileReport) ok() bool { return r.Err == nil && r.Summary.Valid() && r.Unresolved == 0 }

func (r fileReport) counts() (errs, warns int) {
	for _, i := range r.Issues {
		if i.Warning {
			warns++
		} else {
			errs++
		}
	}
	return errs, warns
}

// sortIssues puts file-level issues first, then rows in file order; issues
// of one row keep the order they were found in (the column order).
func sortIssues(is []formats.Issue) {
	sort.SliceStable(is, func(a, b int) bool { return is[a].Row < is[b].Row })
}

// verdict is the one-line summary of a file.
func (r fileReport) verdict() string {
	if r.Err != nil {
		return fmt.Sprintf("%s: cannot be read: %v", r.Name, r.Err)
	}
	s := r.Summary
	var b strings.Builder
	b.WriteString(r.Name)
	switch {
	case s.Type.Name != "" && s.Sheet != "":
		fmt.Fprintf(&b, " (%s, sheet %q)", s.Type.Name, s.Sheet)
	case s.Type.Name != "":
		fmt.Fprintf(&b, " (%s)", s.Type.Name)
	case s.Sheet != "":
		fmt.Fprintf(&b, " (sheet %q)", s.Sheet)
	}
	fileErrs := 0
	for _, i := range s.FileIssues {
		if !i.Warning {
			fileErrs++
		}
	}
	if fileErrs > 0 {
		fmt.Fprintf(&b, ": %d %s, file invalid (%d file %s), %d of %d %s invalid: nothing of this file can be submitted",
			s.Rows, plural(s.Rows, "row", "rows"), fileErrs, plural(fileErrs, "error", "errors"),
			s.InvalidDocs, s.Docs, plural(s.Docs, "document", "documents"))
	} else {
		fmt.Fprintf(&b, ": %d %s, %d %s valid, %d invalid", s.Rows, plural(s.Rows, "row", "rows"),
			s.Docs-s.InvalidDocs, plural(s.Docs-s.InvalidDocs, "document", "documents"), s.InvalidDocs)
	}
	if r.Unresolved > 0 {
		fmt.Fprintf(&b, "; %d %s not on the portal", r.Unresolved, plural(r.Unresolved, "code", "codes"))
	}
	if _, warns := r.counts(); warns > 0 {
		fmt.Fprintf(&b, "; %d %s", warns, plural(warns, "warning", "warnings"))
	}
	return b.String()
}

// where locates an issue for the table: "line 12", "Sheet1!C7", "row 7" or
// "file".
func where(i formats.Issue) string {
	switch {
	case i.Cell != "" && i.Sheet != "":
		return i.Sheet + "!" + i.Cell
	case i.Cell != "":
		return i.Cell
	case i.Sheet != "" && i.Row > 0:
		return i.Sheet + " row " + strconv.Itoa(i.Row)
	case i.Row > 0:
		return "line " + strconv.Itoa(i.Row)
	}
	return "file"
}

// shown renders a cell value for the table: quoted (so that blanks show),
// clipped, on one line.
func shown(v string) string {
	if v == "" {
		return ""
	}
	if r := []rune(v); len(r) > 40 {
		v = string(r[:40]) + "…"
	}
	return strconv.Quote(v)
}

// writeTable prints, per file, its issues as a table and its verdict.
func writeTable(w io.Writer, reports []fileReport) error {
	for n, r := range reports {
		if n > 0 {
			if _, err := fmt.Fprintln(w); err != nil {
				return err
			}
		}
		if len(r.Issues) > 0 {
			fmt.Fprintln(w, r.Name)
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "  WHERE\tCOLUMN\tVALUE\tPROBLEM")
			for _, i := range r.Issues {
				msg := strings.Join(strings.Fields(i.Message), " ")
				if i.Warning {
					msg = "warning: " + msg
				}
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", where(i), i.Column, shown(i.Value), msg)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
		}
		if _, err := fmt.Fprintln(w, r.verdict()); err != nil {
			return err
		}
	}
	return nil
}

// jsonIssue and jsonFile are the --format json output.
type jsonIssue struct {
	Row     int    `json:"row,omitempty"`
	Sheet   string `json:"sheet,omitempty"`
	Cell    string `json:"cell,omitempty"`
	Column  string `json:"column,omitempty"`
	Value   string `json:"value,omitempty"`
	Message string `json:"message"`
	Warning bool   `json:"warning,omitempty"`
}

type jsonFile struct {
	File         string      `json:"file"`
	Path         string      `json:"path"`
	Route        string      `json:"route,omitempty"`
	Type         string      `json:"type,omitempty"`
	Sheet        string      `json:"sheet,omitempty"`
	Valid        bool        `json:"valid"`
	Error        string      `json:"error,omitempty"`
	Rows         int         `json:"rows"`
	Documents    int         `json:"documents"`
	ValidDocs    int         `json:"valid_documents"`
	InvalidDocs  int         `json:"invalid_documents"`
	Errors       int         `json:"errors"`
	Warnings     int         `json:"warnings"`
	Issues       []jsonIssue `json:"issues"`
	Verdict      string      `json:"verdict"`
	FileRejected bool        `json:"file_rejected,omitempty"`
}

// writeJSON prints one JSON object: {"valid": bool, "files": [...]}.
func writeJSON(w io.Writer, reports []fileReport) error {
	out := struct {
		Valid bool       `json:"valid"`
		Files []jsonFile `json:"files"`
	}{Valid: true, Files: make([]jsonFile, 0, len(reports))}
	for _, r := range reports {
		errs, warns := r.counts()
		jf := jsonFile{
			File: r.Name, Path: r.Path, Route: r.Route, Type: r.Summary.Type.Name, Sheet: r.Summary.Sheet, Valid: r.ok(),
			Rows: r.Summary.Rows, Documents: r.Summary.Docs, ValidDocs: r.Summary.Docs - r.Summary.InvalidDocs,
			InvalidDocs: r.Summary.InvalidDocs, Errors: errs, Warnings: warns, Issues: make([]jsonIssue, 0, len(r.Issues)),
			Verdict: r.verdict(),
		}
		if r.Err != nil {
			jf.Error = r.Err.Error()
		}
		for _, i := range r.Summary.FileIssues {
			if !i.Warning {
				jf.FileRejected = true
			}
		}
		for _, i := range r.Issues {
			jf.Issues = append(jf.Issues, jsonIssue{Row: i.Row, Sheet: i.Sheet, Cell: i.Cell, Column: i.Column,
				Value: i.Value, Message: i.Message, Warning: i.Warning})
		}
		out.Valid = out.Valid && jf.Valid
		out.Files = append(out.Files, jf)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
