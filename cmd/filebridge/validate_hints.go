package main

import (
	"context"
	"io"
	"regexp"
	"strings"

	"filebridge/internal/formats"
)

// cliHints rewrites the route keys a message names into the flags of
// `filebridge validate` (reports written by the daemon keep the route keys).
var cliHints = strings.NewReplacer(
	`set charset = "windows-1252" on the route`, `add --charset windows-1252 (charset = "windows-1252" on the route)`,
	`set charset = "utf-8" on the route`, `add --charset utf-8 (charset = "utf-8" on the route)`,
	`(or set decimal = "," on the route)`, `(or add --decimal-comma; decimal = "," on the route)`,
	`set date_layout on the route`, `add --date-layout (date_layout on the route)`,
)

// headerRowHint is the route key the header-row message names.
var headerRowHint = regexp.MustCompile(`set header_row = (\d+) on the route`)

func withCLIHints(is []formats.Issue) {
	for i := range is {
		is[i].Message = cliHints.Replace(is[i].Message)
		is[i].Message = headerRowHint.ReplaceAllString(is[i].Message, "add --header-row $1 (header_row = $1 on the route)")
	}
}

// utf8Problem is the start of the message of a CSV that is not UTF-8.
const utf8Problem = "the file is not valid UTF-8"

// retryAsWindows1252 handles a CSV that is not valid UTF-8 while no charset
// was asked for: it decodes the file again as Windows-1252 so that one
// round of validate reports the charset and everything else (decimal
// commas, bad values) together. The report keeps the charset error; it
// returns false when the second reading is no better.
func retryAsWindows1252(ctx context.Context, path string, fs fileSetup, rep *fileReport) bool {
	if fs.opts.Charset != "" && fs.opts.Charset != "utf-8" && fs.opts.Charset != "utf8" {
		return false
	}
	var charsetIssue *formats.Issue
	for i, is := range rep.Summary.FileIssues {
		if strings.HasPrefix(is.Message, utf8Problem) {
			charsetIssue = &rep.Summary.FileIssues[i]
		}
	}
	if charsetIssue == nil {
		return false
	}
	again := fs
	again.opts.Charset = "windows-1252"
	second := validateFile(ctx, path, again, newProgress(io.Discard))
	if second.Err != nil {
		return false
	}
	for _, is := range second.Summary.FileIssues {
		if strings.HasPrefix(is.Message, "the file holds a NUL byte") {
			return false
		}
	}
	ci := *charsetIssue
	ci.Message = strings.Replace(ci.Message, "it was probably saved in a Windows charset; ",
		"it reads as Windows-1252, and the other problems below were found reading it so; ", 1)
	second.Summary.FileIssues = append([]formats.Issue{ci}, second.Summary.FileIssues...)
	second.Issues = append([]formats.Issue{ci}, second.Issues...)
	*rep = second
	return true
}
