package inbox

import (
	"context"
	"fmt"
	"io"
	"path"

	"filebridge/internal/config"
	"filebridge/internal/formats"
	"filebridge/internal/journal"
)

// ediDuplicate checks whether the interchange of an X12 or EDIFACT file
// was received before in another file: then nothing of it is submitted,
// its acknowledgement rejects it (X12 TA1 code 025, EDIFACT UCI code 26)
// and the file is filed as a duplicate.
func (fr *fileRun) ediDuplicate(ctx context.Context) (FileResult, bool, error) {
	x := fr.edi
	if x == nil || !x.Sound() {
		return FileResult{}, false, nil
	}
	seen, found, err := fr.in.j.SeenInterchange(ctx, x.Sender(), x.Control())
	if err != nil || !found || seen.FileID == fr.row.ID {
		return FileResult{}, false, err
	}
	orig, err := fr.in.j.File(ctx, seen.FileID)
	if err != nil {
		return FileResult{}, false, fmt.Errorf("looking up the first file of interchange %s: %w", x.Control(), err)
	}
	x.Duplicate()
	if err := fr.writeAck(ctx, 0); err != nil {
		return FileResult{}, false, err
	}
	why := fmt.Sprintf("%s interchange %s of %s was received before: ", x.Standard(), x.Control(), x.Sender())
	res, err := fr.duplicate(ctx, orig, why)
	return res, true, err
}

// noteFailed records the rows of a document that did not reach the portal
// for the acknowledgement of an EDI file (see writeReports).
func (fr *fileRun) noteFailed(d formats.Doc, msg string) {
	if fr.edi == nil {
		return
	}
	col := ""
	if is, ok := firstError(d.Issues); ok {
		col, msg = is.Column, is.Message
	}
	for _, r := range d.Rows {
		fr.refused = append(fr.refused, formats.Refusal{Row: r, Column: col, Msg: msg})
	}
}

// writeAck writes the acknowledgement of an EDI file (997 or CONTRL) into
// the route's ack folder, numbered from the journal's counter of the
// partner, and records the interchange as received when ok documents of it
// are in the portal.
func (fr *fileRun) writeAck(ctx context.Context, ok int) error {
	x, in := fr.edi, fr.in
	if x == nil {
		return nil
	}
	if why := x.Unaddressed(); why != "" {
		fr.log.Warn(fmt.Sprintf("no %s written: %s, so it names no partner to acknowledge to", x.AckName(), why))
		return nil
	}
	ctl, err := in.j.NextControl(ctx, x.CounterKey())
	if err != nil {
		return err
	}
	ack, err := x.Ack(fr.src, fr.src.size, fr.refused, fr.fileErr(), ctl, in.now())
	if err != nil {
		return err
	}
	dir := config.DefaultAckDir
	if fr.route != nil {
		dir = fr.route.AckDir
	}
	name := path.Join(dir, ack.Name)
	if err := fr.createFile(ctx, name, func(w io.Writer) error { _, err := w.Write(ack.Data); return err }); err != nil {
		return fmt.Errorf("writing the %s of %s: %w", x.AckName(), fr.row.Name, err)
	}
	fr.log.Info(x.AckName()+" written", "path", name, "partner", x.Sender(), "control", ack.Control, "verdict", ack.Verdict)
	if ok > 0 && x.Sound() {
		return in.j.RecordInterchange(ctx, journal.Interchange{Sender: x.Sender(), Control: x.Control(), FileID: fr.row.ID, Inbox: in.cfg.Name, Name: fr.row.Name})
	}
	return nil
}
