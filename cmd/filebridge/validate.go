package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"filebridge/internal/config"
	"filebridge/internal/formats"
	"filebridge/internal/inbox"
	"filebridge/internal/model"
)

func init() { rootCmd.AddCommand(newValidateCmd()) }

// validateFlags are the options of `filebridge validate`.
type validateFlags struct {
	edition, docType     string
	configFile, inbox    string
	format               string
	delimiter, charset   string
	decimalComma         bool
	dateLayout, timezone string
	sheet                string
	headerRow            int
	maxSize              string
	online               bool
}

// newValidateCmd builds `filebridge validate`: decode and validate files
// exactly as the daemon would, without submitting anything.
func newValidateCmd() *cobra.Command {
	var fl validateFlags
	cmd := &cobra.Command{
		Use:   "validate [flags] FILE...",
		Short: "Check CSV/XLSX files against the API's rules without submitting anything",
		Long: `Read each file as the daemon would and report every problem: file, line (or sheet and
cell), column, value and what to fix. Nothing is sent to the portal.

The document type comes from --type, else from the route of --inbox whose match fits the
file name (with the route's reading options), else from the header row. Flags given on the
command line override the route's options.

With --online (needs --config and --inbox, and the portal's token) every code the file
refers to (SKUs, suppliers, warehouses, carriers, carrier services, ship-to connections)
is also looked up on the inbox's portal, with read-only requests, so that an unknown SKU
is found before the file is dropped.

Exit status: 0 when every file is valid (warnings allowed), 1 when a file has errors or
cannot be read (or, --online, names a code the portal lacks), 2 on a usage or
configuration error, 3 when --online cannot reach the portal.`,
		Example: `  filebridge validate --edition A SKU_2026.csv
  filebridge validate --config config.toml --inbox erp ORDERS_0316.xlsx
  filebridge validate --edition A --type skus --delimiter ';' --charset windows-1252 --decimal-comma ARTIKEL.csv
  filebridge validate --edition B --format json PURCHASE_ORDERS.csv
  filebridge validate --online --config config.toml --inbox erp RECEPTIONS_0316.csv`,
		Args:          cobra.MinimumNArgs(1),
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runValidate(cmd, fl, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&fl.edition, "edition", "", "API edition, A or B (default: the edition of --inbox's portal)")
	f.StringVar(&fl.docType, "type", "", "document type, e.g. skus, orders, purchase_orders (default: from the route, else the header row)")
	f.StringVar(&fl.configFile, "config", "", "configuration file, to read files with the options of an inbox's routes")
	f.StringVar(&fl.inbox, "inbox", "", "inbox of --config whose routes apply")
	f.StringVar(&fl.format, "format", "table", "output: table or json")
	f.StringVar(&fl.delimiter, "delimiter", "", `CSV delimiter: "," ";" "|" or "tab" (default: detected)`)
	f.StringVar(&fl.charset, "charset", "", "CSV charset: utf-8, windows-1252 or iso-8859-1 (default utf-8)")
	f.BoolVar(&fl.decimalComma, "decimal-comma", false, `numbers use a decimal comma ("12,5")`)
	f.StringVar(&fl.dateLayout, "date-layout", "", `extra Go layout of dates, e.g. "02.01.2006"`)
	f.StringVar(&fl.timezone, "timezone", "", "IANA zone of dates without an offset (default UTC)")
	f.StringVar(&fl.sheet, "sheet", "", "XLSX sheet to read (default: the only visible sheet, else the active one)")
	f.IntVar(&fl.headerRow, "header-row", 0, "line (CSV) or row (XLSX) of the header row, when a title is above it (default: the first non-empty row)")
	f.StringVar(&fl.maxSize, "max-size", "", `largest file read, e.g. "1GB" (default: the inbox's max_file_size, else 100MB)`)
	f.BoolVar(&fl.online, "online", false, "also look every code (SKUs, suppliers, warehouses, carriers, connections) up on the portal of --inbox, read-only")
	return cmd
}

// fileSetup says how to read one file.
type fileSetup struct {
	opts formats.Options
	// route is the matching route's glob, "" without one.
	route string
	// onDoc, when set, sees every decoded document (--online).
	onDoc func(formats.Doc)
}

// setup resolves the flags into a function giving each file's options.
type setup struct {
	edition model.Edition
	inbox   *config.Inbox
	flags   validateFlags
	changed func(string) bool
	loc     *time.Location
	delim   rune
	maxSize int64
}

func runValidate(cmd *cobra.Command, fl validateFlags, args []string) error {
	if fl.format != "table" && fl.format != "json" {
		return withCode(exitUsage, fmt.Errorf("--format %q: use table or json", fl.format))
	}
	s, err := newSetup(fl, cmd.Flags().Changed)
	if err != nil {
		return withCode(exitUsage, err)
	}
	var online *onlineCheck
	if fl.online {
		if fl.configFile == "" {
			return withCode(exitUsage, errors.New("--online looks codes up on the portal of an inbox: give --config and --inbox too"))
		}
		if online, err = newOnlineCheck(fl.configFile, fl.inbox); err != nil {
			return withCode(exitUsage, err)
		}
		defer online.Close()
	}
	reports := make([]fileReport, 0, len(args))
	for _, path := range args {
		if err := cmd.Context().Err(); err != nil {
			return err
		}
		fs := s.forFile(path)
		if online != nil {
			fs.onDoc = online.collect
		}
		rep := validateFile(cmd.Context(), path, fs, newProgress(cmd.ErrOrStderr()))
		retryAsWindows1252(cmd.Context(), path, fs, &rep)
		if online != nil && rep.Err == nil {
			issues, err := online.resolve(cmd.Context())
			if err != nil {
				return withCode(exportExitCode(err), err)
			}
			for i := range issues {
				issues[i].File = rep.Name
			}
			rep.Unresolved = len(issues)
			rep.Issues = append(rep.Issues, issues...)
			sortIssues(rep.Issues)
		}
		withCLIHints(rep.Issues)
		reports = append(reports, rep)
	}
	out := cmd.OutOrStdout()
	if fl.format == "json" {
		err = writeJSON(out, reports)
	} else {
		err = writeTable(out, reports)
	}
	if err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	bad := 0
	for _, r := range reports {
		if !r.ok() {
			bad++
		}
	}
	if bad > 0 {
		return withCode(exitInvalid, fmt.Errorf("%d of %d %s invalid", bad, len(reports), plural(len(reports), "file", "files")))
	}
	return nil
}

// newSetup checks the flags, loads the configuration when asked, and fixes
// the edition.
func newSetup(fl validateFlags, changed func(string) bool) (*setup, error) {
	s := &setup{flags: fl, changed: changed}
	if (fl.configFile == "") != (fl.inbox == "") {
		return nil, errors.New("--config and --inbox go together: give both to use an inbox's routes, or neither")
	}
	if fl.edition != "" {
		e, err := model.ParseEdition(fl.edition)
		if err != nil {
			return nil, fmt.Errorf("--edition: %w", err)
		}
		s.edition = e
	}
	if fl.configFile != "" {
		in, e, err := loadInbox(fl.configFile, fl.inbox)
		if err != nil {
			return nil, err
		}
		if s.edition != "" && s.edition != e {
			return nil, fmt.Errorf("--edition %s contradicts inbox %q, whose portal is edition %s: drop --edition", s.edition, fl.inbox, e)
		}
		s.inbox, s.edition = in, e
	}
	if s.edition == "" {
		return nil, errors.New("the API edition is unknown: give --edition A or B, or --config and --inbox")
	}
	if fl.docType != "" {
		if _, err := model.LookupDocType(s.edition, fl.docType); err != nil {
			return nil, fmt.Errorf("--type: %w", err)
		}
	}
	if fl.delimiter != "" {
		d, err := parseDelimiter(fl.delimiter)
		if err != nil {
			return nil, err
		}
		s.delim = d
	}
	if fl.headerRow < 0 {
		return nil, fmt.Errorf("--header-row %d: give the line (CSV) or row (XLSX) of the header row", fl.headerRow)
	}
	if fl.maxSize != "" {
		n, err := config.ParseByteSize(fl.maxSize)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("--max-size %q: give a size such as \"500MB\" or \"1GB\"", fl.maxSize)
		}
		s.maxSize = int64(n)
	}
	if fl.charset != "" {
		cs, err := config.NormCharset(fl.charset)
		if err != nil {
			return nil, fmt.Errorf("--%w", err)
		}
		s.flags.charset = cs
	}
	if fl.timezone != "" {
		loc, err := time.LoadLocation(fl.timezone)
		if err != nil {
			return nil, fmt.Errorf("--timezone %q is not an IANA time zone (e.g. Europe/Paris): %w", fl.timezone, err)
		}
		s.loc = loc
	}
	return s, nil
}

// loadInbox reads the configuration (without resolving secrets: validating
// needs no token) and returns the named inbox with its portal's edition.
func loadInbox(file, name string) (*config.Inbox, model.Edition, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, "", fmt.Errorf("reading config: %w", err)
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, "", fmt.Errorf("locating config %s: %w", file, err)
	}
	cfg, err := config.Decode(data, filepath.Dir(abs))
	if err != nil {
		return nil, "", fmt.Errorf("config %s: %w", file, err)
	}
	in := cfg.Inbox(name)
	if in == nil {
		return nil, "", fmt.Errorf("--inbox %q is not in %s: use one of %s", name, file, strings.Join(inboxNames(cfg), ", "))
	}
	return in, cfg.Portal(in.Portal).Edition, nil
}

func parseDelimiter(s string) (rune, error) {
	switch strings.ToLower(s) {
	case ",", ";", "|":
		return rune(s[0]), nil
	case "tab", "\t", `\t`:
		return '\t', nil
	}
	return 0, fmt.Errorf(`--delimiter %q: use "," ";" "|" or "tab"`, s)
}

// forFile returns the options of one file: the daemon's (with its route's
// when an inbox is given; see inbox.FormatOptions), then the command-line
// flags over them.
func (s *setup) forFile(path string) fileSetup {
	var fs fileSetup
	if s.inbox == nil {
		fs.opts = inbox.FormatOptions(s.edition, nil, 0)
	} else {
		r := s.inbox.Route(filepath.Base(path))
		if r != nil {
			fs.route = r.Match
		}
		fs.opts = inbox.FormatOptions(s.edition, r, int64(s.inbox.MaxFileSize))
	}
	o := &fs.opts
	fl := s.flags
	o.Type = cmp.Or(fl.docType, o.Type)
	o.Delimiter = cmp.Or(s.delim, o.Delimiter)
	o.Charset = cmp.Or(fl.charset, o.Charset)
	if s.changed("decimal-comma") {
		o.DecimalComma = fl.decimalComma
	}
	o.DateLayout = cmp.Or(fl.dateLayout, o.DateLayout)
	o.Location = cmp.Or(s.loc, o.Location)
	o.HeaderRow = cmp.Or(fl.headerRow, o.HeaderRow) // newSetup refused one below 0
	o.Sheet = cmp.Or(fl.sheet, o.Sheet)
	o.MaxSize = cmp.Or(s.maxSize, o.MaxSize)
	return fs
}

// validateFile decodes one file and collects its issues.
func validateFile(ctx context.Context, path string, fs fileSetup, pr *progress) fileReport {
	rep := fileReport{Path: path, Name: filepath.Base(path), Route: fs.route}
	f, err := os.Open(path)
	if err != nil {
		rep.Err = fmt.Errorf("opening file: %w", err)
		return rep
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		rep.Err = fmt.Errorf("reading file: %w", err)
		return rep
	}
	if st.IsDir() {
		rep.Err = errors.New("this is a folder, not a file")
		return rep
	}
	r := pr.track(rep.Name, f, st.Size())
	sum, err := formats.Decode(ctx, r, st.Size(), rep.Name, fs.opts, func(d formats.Doc) error {
		rep.Issues = append(rep.Issues, d.Issues...)
		if fs.onDoc != nil {
			fs.onDoc(d)
		}
		return nil
	})
	pr.done()
	rep.Summary = sum
	if err != nil {
		rep.Err = err
	}
	rep.Issues = append(append([]formats.Issue(nil), sum.FileIssues...), rep.Issues...)
	sortIssues(rep.Issues)
	return rep
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

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
