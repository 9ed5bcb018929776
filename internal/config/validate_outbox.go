package config

import (
	"cmp"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robfig/cron/v3"

	"filebridge/internal/model"
)

// Placeholders of export file name templates.
var Placeholders = []string{"{date}", "{time}", "{datetime}", "{seq}", "{type}", "{outbox}"}

// validateOutbox checks an outbox and its exports.
func (c *Config) validateOutbox(p *problems, where string, out *Outbox) {
	edition := c.portalEdition(p, where, out.Portal)
	c.checkFolder(p, where, out.URL, &out.Folder, &out.SFTP)
	checkPositive(p, where, "operation_timeout", out.OperationTimeout, "default "+DefaultOperationTimeout.String())
	if len(out.Exports) == 0 {
		p.add(where, "no export: add at least one [[outboxes.exports]] with type and schedule")
	}
	targets := map[string]int{}
	for j := range out.Exports {
		e := &out.Exports[j]
		ew := fmt.Sprintf("%s: exports[%d]", where, j)
		if e.Type != "" {
			ew += fmt.Sprintf(" (%s)", e.Type)
		}
		validateExport(p, ew, edition, e)
		if e.Filename == "" || strings.Contains(e.Filename, "{type}") {
			continue
		}
		target := path.Join(e.Dir, e.Filename)
		if k, dup := targets[target]; dup {
			p.add(ew, "writes %q like exports[%d]: put {type} in filename or give each its own dir", target, k)
		} else {
			targets[target] = j
		}
	}
}

func validateExport(p *problems, where string, edition model.Edition, e *Export) {
	switch {
	case e.Type == "":
		p.add(where, "type is required: one of receipts, shipments, stock, movements, tracking, items (as the edition offers)")
	case edition != "":
		t, err := model.ParseExportType(edition, string(e.Type))
		if err != nil {
			p.add(where, "%v", err)
		} else {
			e.Type = t
		}
	}
	loc, err := loadZone(e.Timezone)
	if err != nil {
		p.add(where, "%v", err)
		loc = time.UTC
	} else {
		e.Location = loc
	}
	sched, err := parseSchedule(e.Schedule)
	if err != nil {
		p.add(where, "%v", err)
	} else if several, err := severalADayOf(e.Schedule, sched, loc); err != nil {
		p.add(where, "schedule %q: %v", e.Schedule, err)
	} else {
		e.RunsSeveralTimesADay = several
	}
	e.Format = strings.ToLower(strings.TrimSpace(e.Format))
	if e.Format == "" {
		e.Format = cmp.Or(formatOfExt[strings.ToLower(path.Ext(e.Filename))], FormatCSV)
	}
	if !slices.Contains(fileFormats, e.Format) {
		p.add(where, "format %q: use \"csv\", \"xlsx\", \"fixed\" (with a layout), \"x12\" or \"edifact\"", e.Format)
	}
	if e.Format == FormatEDIFACT {
		validateEDIFACTExport(p, where, e)
	}
	if e.Format == FormatX12 {
		validateX12Export(p, where, e)
	}
	if e.Filename == "" && e.Type != "" {
		ext := e.Format
		if ext == FormatFixed {
			ext = "txt" // what hosts name fixed-width files
		}
		e.Filename = strings.ToUpper(string(e.Type)) + "_{datetime}." + ext
	}
	p.check(where, checkFilename(e.Filename, e.Format, e.RunsSeveralTimesADay))
	if e.Dir != "" {
		if err := checkSubdir(e.Dir, "outbox"); err != nil {
			p.add(where, "dir: %v", err)
		}
	}
	if p.normDelimiterCharset(where, &e.Delimiter, &e.Charset, false) && e.BOM && e.Charset != CharsetUTF8 {
		p.add(where, "bom = true needs charset = \"utf-8\" (a byte order mark is a UTF-8 thing)")
	}
	if e.Decimal != "." && e.Decimal != "," {
		p.add(where, "decimal %q: use \".\" or \",\"", e.Decimal)
	} else if e.Decimal == e.Delimiter && e.Format == FormatCSV {
		p.add(where, "decimal and delimiter are both %q: choose another delimiter, e.g. \";\"", e.Decimal)
	}
	p.check(where, checkLayout(e.DateLayout))
	validateExportLayout(p, where, edition, e)
}

// ediExports are the exports an X12 set and an EDIFACT message carry.
var ediExports = []model.ExportType{model.ExportReceipts, model.ExportShipments, model.ExportStock, model.ExportMovements}

// formatOfExt is the format of an export whose filename has the extension
// and that names no format (csv for the others).
var formatOfExt = map[string]string{".xlsx": FormatXLSX, ".x12": FormatX12, ".edi": FormatEDIFACT}

// validateX12Export checks the envelope of an x12 export.
func validateX12Export(p *problems, where string, e *Export) {
	for _, party := range []struct{ key, val string }{{"x12.sender", e.X12.Sender}, {"x12.receiver", e.X12.Receiver}} {
		q, id, ok := strings.Cut(party.val, ":")
		if !ok || len(q) != 2 || id == "" || len(id) > 15 {
			p.add(where, "%s %q: write the ISA qualifier and id, e.g. \"ZZ:WAREHOUSE\" (id at most 15 characters)", party.key, party.val)
		}
	}
	if e.X12.Version != "004010" && e.X12.Version != "005010" {
		p.add(where, "x12.version %q: use \"004010\" or \"005010\"", e.X12.Version)
	}
	if !slices.Contains(ediExports, e.Type) {
		p.add(where, "format \"x12\": the %s export has no X12 transaction set (receipts 944, shipments 945, stock 846, movements 947)", e.Type)
	}
}

func parseSchedule(spec string) (cron.Schedule, error) {
	s := strings.TrimSpace(spec)
	if s == "" {
		return nil, fmt.Errorf("schedule is required: a cron expression such as \"0 2 * * *\" (every day at 02:00)")
	}
	up := strings.ToUpper(s)
	if strings.HasPrefix(up, "TZ=") || strings.HasPrefix(up, "CRON_TZ=") {
		return nil, fmt.Errorf("schedule %q: remove the TZ= prefix and set timezone = \"...\" on the export instead", spec)
	}
	sched, err := cron.ParseStandard(s)
	if err != nil {
		return nil, fmt.Errorf("schedule %q is not a cron expression (%v): use five fields, minute hour day-of-month month day-of-week, e.g. \"0 2 * * *\" or \"*/15 * * * *\"", spec, err)
	}
	return sched, nil
}

// daysMemo holds severalADay's answer per schedule and zone. A year's walk
// costs about a millisecond, and an operator's thousand tenants share a
// handful of schedules: a load, and each reload, walks each pair once.
var daysMemo sync.Map // scheduleZone -> daysAnswer

type scheduleZone struct{ spec, zone string }

type daysAnswer struct {
	several bool
	err     error
}

// yearWalks counts severalADay's walks, for the test of the memo.
var yearWalks atomic.Int64

// severalADayOf is severalADay of spec (parsed as s) in loc, once per
// schedule and zone.
func severalADayOf(spec string, s cron.Schedule, loc *time.Location) (bool, error) {
	k := scheduleZone{strings.TrimSpace(spec), loc.String()}
	if a, ok := daysMemo.Load(k); ok {
		return a.(daysAnswer).several, a.(daysAnswer).err
	}
	several, err := severalADay(s, loc)
	daysMemo.Store(k, daysAnswer{several, err})
	return several, err
}

// severalADay reports whether a schedule can fire twice on one calendar day
// in loc, by walking its activations over a year (a schedule that fires
// twice on some day does so within any year). A schedule that never fires is
// an error.
func severalADay(s cron.Schedule, loc *time.Location) (bool, error) {
	yearWalks.Add(1)
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, loc).Add(-time.Second)
	end := start.AddDate(1, 0, 1)
	t := s.Next(start)
	if t.IsZero() {
		return false, fmt.Errorf("never fires (is the day of month valid for the month?)")
	}
	for i := 0; i < 1000 && t.Before(end); i++ {
		n := s.Next(t)
		if n.IsZero() {
			break
		}
		tl, nl := t.In(loc), n.In(loc)
		ty, tm, td := tl.Date()
		ny, nm, nd := nl.Date()
		// The same wall-clock time twice is the hour repeated when daylight
		// saving time ends, not a second run of a daily schedule.
		sameClock := tl.Hour() == nl.Hour() && tl.Minute() == nl.Minute()
		if ty == ny && tm == nm && td == nd && !sameClock {
			return true, nil
		}
		t = n
	}
	return false, nil
}

// checkFilename checks an export file name template.
func checkFilename(name, format string, severalADay bool) error {
	if name == "" {
		return nil // reported with the type
	}
	if strings.ContainsAny(name, `/\`) {
		return fmt.Errorf("filename %q: a file name only; put folders in dir", name)
	}
	rest, used := name, map[string]bool{}
	for {
		i := strings.IndexAny(rest, "{}")
		if i < 0 {
			break
		}
		if rest[i] == '}' {
			return fmt.Errorf("filename %q: \"}\" without \"{\"", name)
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			return fmt.Errorf("filename %q: \"{\" without \"}\"", name)
		}
		ph := rest[i : i+j+1]
		if !slices.Contains(Placeholders, ph) {
			return fmt.Errorf("filename %q: unknown placeholder %s: use %s", name, ph, strings.Join(Placeholders, " "))
		}
		used[ph] = true
		rest = rest[i+j+1:]
	}
	ext := strings.ToLower(path.Ext(name))
	if (ext == ".csv" && format == FormatXLSX) || (ext == ".xlsx" && format == FormatCSV) {
		return fmt.Errorf("filename %q ends in %s but format is %q: make them agree", name, ext, format)
	}
	if severalADay && !used["{time}"] && !used["{datetime}"] && !used["{seq}"] {
		return fmt.Errorf("filename %q would be the same for two runs on one day (the schedule runs more than once a day): add {time}, {datetime} or {seq}", name)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// validateEDIFACTExport checks the envelope of an edifact export.
func validateEDIFACTExport(p *problems, where string, e *Export) {
	for _, party := range []struct{ key, val string }{{"edifact.sender", e.EDIFACT.Sender}, {"edifact.receiver", e.EDIFACT.Receiver}} {
		id, q, _ := strings.Cut(party.val, ":")
		if id == "" || len(id) > 35 || len(q) > 4 || strings.Count(party.val, ":") > 1 {
			p.add(where, "%s %q: write the UNB identification and its qualifier, e.g. \"5798000000001:14\" (id at most 35 characters)", party.key, party.val)
		}
	}
	if e.EDIFACT.Release != "96A" && e.EDIFACT.Release != "01B" {
		p.add(where, "edifact.release %q: use \"96A\" or \"01B\"", e.EDIFACT.Release)
	}
	switch e.EDIFACT.Syntax {
	case "UNOA", "UNOB", "UNOC", "UNOW":
	default:
		p.add(where, "edifact.syntax %q: use UNOA, UNOB, UNOC (Latin-1) or UNOW (UTF-8)", e.EDIFACT.Syntax)
	}
	if !slices.Contains(ediExports, e.Type) {
		p.add(where, "format \"edifact\": the %s export has no EDIFACT message (receipts RECADV, shipments DESADV, stock and movements INVRPT)", e.Type)
	}
}
