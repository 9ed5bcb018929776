package config

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"filebridge/internal/model"
	"filebridge/internal/suggest"
)

// validateInbox checks an inbox and its routes.
func (c *Config) validateInbox(p *problems, where string, in *Inbox) {
	edition := c.portalEdition(p, where, in.Portal)
	c.checkFolder(p, where, in.URL, &in.Folder, &in.SFTP)
	checkPositive(p, where, "poll", in.Poll, `e.g. "15s"`)
	checkPositive(p, where, "operation_timeout", in.OperationTimeout, "default "+DefaultOperationTimeout.String())
	checkPositive(p, where, "retry_backoff", in.RetryBackoff, "default "+DefaultRetryBackoff.String())
	if in.RetryBackoff.Duration > 0 && in.RetryBackoffMax.Duration < in.RetryBackoff.Duration {
		p.add(where, "retry_backoff_max (%s) must not be less than retry_backoff (%s)", in.RetryBackoffMax, in.RetryBackoff)
	}
	switch in.Unmatched = strings.ToLower(in.Unmatched); in.Unmatched {
	case UnmatchedLeave, UnmatchedError:
	default:
		p.add(where, "unmatched %q: use %q (leave the file in place) or %q (move it to error/)", in.Unmatched, UnmatchedLeave, UnmatchedError)
	}
	for _, g := range in.Exclude {
		if _, err := path.Match(g, ""); err != nil || strings.ContainsAny(g, `/\`) {
			p.add(where, "exclude %q is not a valid glob on the file name (use * ? [abc], no folders)", g)
		}
	}
	if in.FileConcurrency < 1 {
		p.add(where, "file_concurrency must be at least 1 (default %d)", DefaultFileConcurrency)
	}
	if in.MaxFileSize <= 0 {
		p.add(where, "max_file_size must be more than 0 (e.g. \"100MB\")")
	}
	dirs := map[string]string{}
	for _, d := range []struct{ key, val string }{
		{"processing_dir", in.ProcessingDir}, {"processed_dir", in.ProcessedDir}, {"error_dir", in.ErrorDir},
	} {
		if err := checkSubdir(d.val, "inbox"); err != nil {
			p.add(where, "%s: %v", d.key, err)
			continue
		}
		if other, dup := dirs[d.val]; dup {
			p.add(where, "%s and %s are both %q: give each its own folder", other, d.key, d.val)
		}
		dirs[d.val] = d.key
	}
	for j := range in.Routes {
		validateRoute(p, fmt.Sprintf("%s: routes[%d]", where, j), edition, &in.Routes[j])
	}
}

// portalEdition checks a portal reference and returns the portal's edition
// ("" when it cannot be known, which skips the edition-dependent checks).
func (c *Config) portalEdition(p *problems, where, name string) model.Edition {
	if name == "" {
		p.add(where, "portal is required: name one of the [portals.NAME] tables (%s)", strings.Join(c.PortalNames(), ", "))
		return ""
	}
	pt := c.Portals[name]
	if pt == nil {
		p.add(where, "portal %q is not defined: add [portals.%s] or use one of: %s", name, name, strings.Join(c.PortalNames(), ", "))
		return ""
	}
	if e, err := model.ParseEdition(string(pt.Edition)); err == nil {
		return e
	}
	return ""
}

func validateRoute(p *problems, where string, edition model.Edition, r *Route) {
	r.Match = strings.TrimSpace(r.Match)
	switch {
	case r.Match == "":
		p.add(where, "match is required: a glob on the file name such as \"SKU_*.csv\"")
	case strings.ContainsAny(r.Match, `/\`):
		p.add(where, "match %q: the glob applies to the file name only, without folders", r.Match)
	default:
		if _, err := path.Match(r.Match, ""); err != nil {
			p.add(where, "match %q is not a valid glob (use * ? [abc]; close every \"[\")", r.Match)
		}
	}
	if r.Type != "" && edition != "" {
		dt, err := model.LookupDocType(edition, r.Type)
		if err != nil {
			p.add(where, "type: %v", err)
		} else {
			r.Type, r.DocType = dt.Name, dt
		}
	}
	r.Policy = strings.ToLower(r.Policy)
	if r.Policy != PolicyReject && r.Policy != PolicyPartial {
		p.add(where, "policy %q: use %q or %q", r.Policy, PolicyReject, PolicyPartial)
	}
	r.Format = strings.ToLower(strings.TrimSpace(r.Format))
	if r.Format != "" && !slices.Contains(fileFormats, r.Format) {
		p.add(where, "format %q: use \"csv\", \"xlsx\", \"fixed\" (with a layout), \"x12\", \"edifact\", or leave it out to go by the file's content and extension", r.Format)
	}
	if err := checkSubdir(r.AckDir, "inbox"); err != nil {
		p.add(where, "ack_dir: %v", err)
	}
	if r.Sheet != "" && r.Format == FormatCSV {
		p.add(where, "sheet is set but format is \"csv\": sheets exist only in xlsx files")
	}
	p.normDelimiterCharset(where, &r.Delimiter, &r.Charset, true)
	if r.Decimal != "." && r.Decimal != "," {
		p.add(where, "decimal %q: use \".\" or \",\"", r.Decimal)
	}
	p.check(where, checkLayout(r.DateLayout))
	if loc, err := loadZone(r.Timezone); err != nil {
		p.add(where, "%v", err)
	} else {
		r.Location = loc
	}
	validateRouteLayout(p, where, edition, r)
	switch {
	case r.Format == FormatFixed: // the layout names the columns
	case r.Header && len(r.Positions) > 0:
		p.add(where, "positions is used only with header = false: set header = false to read columns by position, or map foreign headers in [inboxes.routes.columns]")
	case !r.Header && len(r.Positions) == 0:
		p.add(where, "header = false needs positions: the column names in file order, e.g. positions = [\"sku\", \"name\", \"ean\"]")
	case !r.Header && r.Type == "":
		p.add(where, "header = false needs a type: without a header row the document type cannot be detected")
	}
	switch {
	case r.HeaderRow < 0:
		p.add(where, "header_row %d: give the line (CSV) or row (XLSX) number of the header row, e.g. 3 when a title and a blank line come first", r.HeaderRow)
	case r.HeaderRow > 0 && !r.Header:
		p.add(where, "header_row is set but header = false: a file read by positions has no header row")
	}
	for _, k := range sortedKeys(r.Columns) {
		v := r.Columns[k]
		if strings.TrimSpace(k) == "" || strings.TrimSpace(v) == "" {
			p.add(where, "columns: %q = %q: both the foreign header and our column name are needed", k, v)
		} else if msg := unknownColumn(edition, r.DocType, v); msg != "" {
			p.add(where, "columns: %q = %q: %s", k, v, msg)
		}
	}
	for k := range r.Defaults {
		if strings.TrimSpace(k) == "" {
			p.add(where, "defaults: a constant needs a column name")
		}
	}
	for i, name := range r.Positions {
		if strings.TrimSpace(name) == "" || r.Header {
			continue
		}
		if msg := unknownColumn(edition, r.DocType, name); msg != "" {
			p.add(where, "positions[%d]: %s", i, msg)
		}
	}
	validateValues(p, where, edition, r)
}

// validateValues checks a route's value maps: each names a column of the
// route's type (when the type is known) and maps non-empty values.
func validateValues(p *problems, where string, edition model.Edition, r *Route) {
	spec := r.spec(edition)
	for _, col := range sortedKeys(r.Values) {
		if strings.TrimSpace(col) == "" {
			p.add(where, "values: a value map needs a column name, e.g. [inboxes.routes.values] orderType = { STANDARD = \"\" }")
			continue
		}
		if len(spec.Fields) > 0 && !slices.ContainsFunc(spec.Fields, func(f model.Field) bool {
			return model.NormalizeHeader(f.Name) == model.NormalizeHeader(col)
		}) {
			p.add(where, "values: %q is not a column of %s files (edition %s): map the values of one of its columns (see docs/columns.md)", col, r.DocType.Name, edition)
		}
		for _, from := range sortedKeys(r.Values[col]) {
			if strings.TrimSpace(from) == "" {
				p.add(where, "values.%s: an empty cell cannot be mapped here: give empty cells a value with [inboxes.routes.defaults]", col)
			}
		}
	}
}

// spec is the field table of the route's type in edition (zero when
// either is unknown).
func (r *Route) spec(edition model.Edition) model.Spec {
	var spec model.Spec
	if r.DocType.Name != "" && edition != "" {
		spec, _ = model.SpecFor(edition, r.DocType.Kind)
	}
	return spec
}

// normDelimiterCharset normalises the delimiter and the charset of a route
// (detect: "" means detect the delimiter) or an export. A value it cannot
// use is reported at where and left as it was; charsetOK says whether the
// charset was normalised.
func (p *problems) normDelimiterCharset(where string, delimiter, charset *string, detect bool) (charsetOK bool) {
	if d, err := normDelimiter(*delimiter, detect); err != nil {
		p.add(where, "%v", err)
	} else {
		*delimiter = d
	}
	cs, err := NormCharset(*charset)
	if err != nil {
		p.add(where, "%v", err)
		return false
	}
	*charset = cs
	return true
}

// normDelimiter accepts "," ";" "|" and tab (written "\t" or "tab"); ""
// means detect, when detect is allowed.
func normDelimiter(d string, detect bool) (string, error) {
	switch strings.ToLower(d) {
	case ",", ";", "|":
		return d, nil
	case "\t", "tab", `\t`:
		return "\t", nil
	case "":
		if detect {
			return "", nil
		}
	}
	return "", fmt.Errorf("delimiter %q: use \",\", \";\", \"|\" or \"tab\"", d)
}

// checkLayout checks that a date layout uses Go's reference date, the usual
// mistake being "dd.mm.yyyy".
func checkLayout(l string) error {
	if l == "" {
		return nil
	}
	// Any time other than the reference one shows whether l has elements.
	probe := time.Date(2027, 11, 23, 17, 48, 39, 0, time.UTC)
	s := probe.Format(l)
	if s == l {
		return fmt.Errorf("date_layout %q is not a Go layout: write the date 2006-01-02 15:04:05 the way the file does, e.g. \"02.01.2006\" for 31.12.2026", l)
	}
	if _, err := time.Parse(l, s); err != nil {
		return fmt.Errorf("date_layout %q cannot read back the dates it writes: %v", l, err)
	}
	return nil
}

// loadZone loads an IANA time zone ("" is UTC).
func loadZone(name string) (*time.Location, error) {
	if name == "" || name == "UTC" {
		return time.UTC, nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil || strings.EqualFold(name, "local") {
		return nil, fmt.Errorf("timezone %q is not an IANA time zone: use a name such as \"Europe/Paris\" or \"UTC\"", name)
	}
	return loc, nil
}

// unknownColumn says why name is not a column of the document type dt
// (zero: of any type of the edition), with the nearest column; "" when it
// is one, or when the edition is unknown.
func unknownColumn(e model.Edition, dt model.DocType, name string) string {
	types := model.DocTypes(e)
	if dt.Name != "" {
		types = []model.DocType{dt}
	}
	norm := model.NormalizeHeader(name)
	near, nearD := "", 3
	for _, t := range types {
		spec, _ := model.SpecFor(e, t.Kind)
		for _, f := range spec.Fields {
			n := model.NormalizeHeader(f.Name)
			if n == norm {
				return ""
			}
			if d := suggest.Distance(norm, n); d < nearD {
				near, nearD = f.Name, d
			}
		}
	}
	if len(types) == 0 {
		return ""
	}
	msg := fmt.Sprintf("%q is not a column of any document type of edition %s", name, e)
	if dt.Name != "" {
		msg = fmt.Sprintf("%q is not a column of %s (edition %s)", name, dt.Name, e)
	}
	if near != "" {
		return msg + fmt.Sprintf("; did you mean %q?", near)
	}
	return msg + ": map the header to a column the templates show"
}
