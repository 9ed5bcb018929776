package inbox

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strings"

	"filebridge/internal/config"
	"filebridge/internal/edi"
	"filebridge/internal/edi/x12"
	"filebridge/internal/formats"
	"filebridge/internal/journal"
	"filebridge/internal/model"
)

// x12Run is the X12 side of a file run: the interchange read once more
// for its envelope, and what the 997 acknowledgement says of each set.
type x12Run struct {
	data []byte           // the file
	ic   *x12.Interchange // nil when the ISA is unreadable; its sets without segments
	ack  *edi.InterchangeAck
	// envelopeErr is a malformed envelope: every set is rejected.
	envelopeErr error
	// failed holds, per row of a document that did not reach the portal,
	// its column (-1: none) and message.
	failed map[int]rowFailure
	// duplicate is the earlier file of the same interchange.
	duplicate bool
}

type rowFailure struct {
	column, msg string
}

// openX12 reads the interchange of an X12 file (nil for another format).
func (fr *fileRun) openX12() (*x12Run, error) {
	if f := fr.opts.Format; f != "" && f != config.FormatX12 {
		return nil, nil
	}
	head := make([]byte, min(fr.src.size, 512))
	if _, err := fr.src.ReadAt(head, 0); err != nil && err != io.EOF {
		return nil, fmt.Errorf("reading %s: %w", fr.row.Name, err)
	}
	if fr.opts.Format == "" && !x12.IsX12(head) {
		return nil, nil
	}
	data := make([]byte, fr.src.size)
	if _, err := fr.src.ReadAt(data, 0); err != nil && err != io.EOF {
		return nil, fmt.Errorf("reading %s: %w", fr.row.Name, err)
	}
	ic, ack, err := x12.ParseEnvelope(data)
	return &x12Run{data: data, ic: ic, ack: ack, envelopeErr: err, failed: map[int]rowFailure{}}, nil
}

// x12Route reports whether the file's route reads X12 (format "x12").
func (fr *fileRun) x12Route() bool { return fr.opts.Format == config.FormatX12 }

// senderKey names a partner in the journal: "ZZ:SHOPERP".
func senderKey(p edi.Party) string {
	return strings.TrimSpace(p.Qualifier) + ":" + strings.TrimSpace(p.ID)
}

// x12Duplicate checks whether the interchange was received before in
// another file: then it is not submitted, its 997 rejects it (TA1 code
// 025) and the file is filed as a duplicate.
func (fr *fileRun) x12Duplicate(ctx context.Context) (FileResult, bool, error) {
	x := fr.x12
	if x == nil || x.ic == nil || x.envelopeErr != nil {
		return FileResult{}, false, nil
	}
	seen, found, err := fr.in.j.SeenInterchange(ctx, senderKey(x.ic.Sender), x.ic.Control)
	if err != nil || !found || seen.FileID == fr.row.ID {
		x.data = nil // not kept while the file is read: writeAck reads it again
		return FileResult{}, false, err
	}
	orig, err := fr.in.j.File(ctx, seen.FileID)
	if err != nil {
		return FileResult{}, false, fmt.Errorf("looking up the first file of interchange %s: %w", x.ic.Control, err)
	}
	x.duplicate = true
	x.ack.Status = edi.Rejected
	x.ack.Error = edi.Errorf(edi.Location{}, edi.LevelInterchange, "025", "duplicate interchange control number")
	if err := fr.writeAck(ctx, 0); err != nil {
		return FileResult{}, false, err
	}
	why := fmt.Sprintf("X12 interchange %s of %s was received before: ", x.ic.Control, senderKey(x.ic.Sender))
	res, err := fr.duplicate(ctx, orig, why)
	return res, true, err
}

// noteFailed records the rows of a document that did not reach the portal
// for the 997 (see writeReports).
func (fr *fileRun) noteFailed(d formats.Doc, msg string) {
	if fr.x12 == nil {
		return
	}
	f := rowFailure{msg: msg}
	for _, is := range d.Issues {
		if !is.Warning {
			f.column, f.msg = is.Column, is.Message
			break
		}
	}
	for _, r := range d.Rows {
		if _, ok := fr.x12.failed[r]; !ok {
			fr.x12.failed[r] = f
		}
	}
}

// writeAck writes the 997 (with a TA1 when the ISA asks for one or the
// interchange is refused) into the route's ack folder, numbered from the
// journal's counter of the partner, and records the interchange as
// received when ok documents of it are in the portal.
func (fr *fileRun) writeAck(ctx context.Context, ok int) error {
	x := fr.x12
	if x == nil {
		return nil
	}
	in := fr.in
	fileErr := len(fr.problems) > 0 || fileErrors(fr.sum) > 0
	if x.envelopeErr == nil && !x.duplicate && x.ic != nil {
		// The file was let go after the duplicate check: read it again.
		again, err := fr.openX12()
		if err != nil {
			return err
		}
		if again == nil || again.envelopeErr != nil {
			return fmt.Errorf("reading %s again for its 997: the interchange changed", fr.row.Name)
		}
		x.data, x.ic, x.ack = again.data, again.ic, again.ack
		fr.ackSets(fileErr)
	}
	env, pre, sets, addressed := x12.AckEnvelope(x.ack, x.ic != nil && x.ic.AckRequested)
	if !addressed {
		fr.log.Warn("no 997 written: the ISA header is unreadable, so it names no partner to acknowledge to")
		return nil
	}
	partner := senderKey(x.ack.Sender)
	ctl, err := in.j.NextControl(ctx, "x12:"+partner)
	if err != nil {
		return err
	}
	env.Control, env.Time, env.Test = ctl%1_000_000_000, in.now(), x.ic != nil && x.ic.Test
	var buf bytes.Buffer
	if err := x12.Write(&buf, env, pre, sets); err != nil {
		return fmt.Errorf("writing the 997 of %s: %w", fr.row.Name, err)
	}
	dir := config.DefaultAckDir
	if fr.route != nil {
		dir = fr.route.AckDir
	}
	name := path.Join(dir, fmt.Sprintf("997_%s_%09d.x12", safeName(x.ack.Sender.ID), env.Control))
	if err := fr.createFile(ctx, name, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
		return fmt.Errorf("writing the 997 of %s: %w", fr.row.Name, err)
	}
	fr.log.Info("997 written", "path", name, "partner", partner, "control", env.Control, "verdict", ackVerdict(x.ack))
	if ok > 0 && x.ic != nil && !x.duplicate {
		return in.j.RecordInterchange(ctx, journal.Interchange{Sender: partner, Control: x.ic.Control, FileID: fr.row.ID, Inbox: in.cfg.Name, Name: fr.row.Name})
	}
	return nil
}

// ackSets sets the verdict of each set from the file's results: a set is
// rejected when a document with a row in it did not reach the portal (the
// first such value named by AK3/AK4), or when the file has errors.
func (fr *fileRun) ackSets(fileErr bool) {
	x := fr.x12
	rows := slices.Sorted(maps.Keys(x.failed))
	for gi, g := range x.ic.Groups {
		ga := &x.ack.Groups[gi]
		for si := range g.Sets {
			set, sa := &g.Sets[si], &ga.Sets[si]
			for _, r := range rows {
				if r < set.Start || r >= set.Start+set.Count {
					continue
				}
				sa.Add(edi.Rejected, fr.setError(set, r, x.failed[r]))
				break
			}
			if fileErr {
				sa.Status = edi.Rejected
			}
		}
		ga.Status = edi.Accepted
		ga.Finish()
	}
}

// setError names the failure of row in set for the 997.
func (fr *fileRun) setError(set *x12.Set, row int, f rowFailure) *edi.Error {
	tab := x12.Tables[set.ID]
	if tab != nil && f.column != "" {
		dt, err := model.LookupDocType(fr.opts.Edition, tab.DocType)
		if err == nil {
			cols := x12.Columns(tab, fr.opts.Edition, dt.Kind)
			if col := slices.Index(cols, f.column); col >= 0 && fr.x12.ic.ReadSet(fr.x12.data, set) == nil {
				loc, val, ok := x12.Locate(set, tab, cols, row, col)
				set.Segments = nil
				if ok && loc.Elem > 0 {
					code := "7" // invalid code value
					if val == "" {
						code = "1" // mandatory element missing
					}
					return &edi.Error{Location: loc, Level: edi.LevelElement, Code: code, Msg: f.msg}
				}
			}
		}
	}
	return edi.Errorf(edi.Location{}, edi.LevelSet, "5", "%s", f.msg)
}

func ackVerdict(ack *edi.InterchangeAck) string {
	if ack.Error != nil {
		return "interchange rejected: " + ack.Error.Msg
	}
	var parts []string
	for _, g := range ack.Groups {
		parts = append(parts, fmt.Sprintf("group %s %s, %d of %d sets accepted", g.Control, g.Status, g.Accepted, g.Received))
	}
	return strings.Join(parts, "; ")
}

// safeName keeps the letters, digits, '-' and '_' of a partner id for a
// file name.
func safeName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return -1
	}, s)
	if s == "" {
		return "partner"
	}
	return s
}
