package inbox

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path"
	"strconv"

	"filebridge/internal/config"
	"filebridge/internal/edi/edifact"
	"filebridge/internal/formats"
	"filebridge/internal/journal"
)

// edifactRun is the EDIFACT side of a file run: the interchange's header
// read once more, and the rows of the documents that did not reach the
// portal, which its CONTRL rejects.
type edifactRun struct {
	ic     *edifact.Interchange
	failed []formats.Refusal
	// duplicate is the earlier file of the same interchange.
	duplicate bool
}

// isEDIFACTFile reports whether the run's file is an EDIFACT interchange
// (by the route's format, or by its first bytes).
func (fr *fileRun) isEDIFACTFile() (bool, error) {
	switch fr.opts.Format {
	case config.FormatEDIFACT:
		return true, nil
	case "":
	default:
		return false, nil
	}
	head := make([]byte, min(fr.src.size, 16))
	if _, err := fr.src.ReadAt(head, 0); err != nil && err != io.EOF {
		return false, fmt.Errorf("reading %s: %w", fr.row.Name, err)
	}
	return edifact.IsEDIFACT(head), nil
}

// openEDIFACT reads the envelope of an EDIFACT file (nil for another format).
func (fr *fileRun) openEDIFACT() (*edifactRun, error) {
	if ok, err := fr.isEDIFACTFile(); !ok || err != nil {
		return nil, err
	}
	ic, err := edifact.Read(io.NewSectionReader(fr.src, 0, fr.src.size), nil)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", fr.row.Name, err)
	}
	return &edifactRun{ic: ic}, nil
}

// edifactSender names the sender of an interchange in the journal:
// "14:5412345000013".
func edifactSender(h edifact.Header) string { return h.Sender.Qual + ":" + h.Sender.ID }

// edifactDuplicate checks whether the interchange was received before in
// another file: then nothing is submitted, its CONTRL rejects it (UCI
// code 26, duplicate detected) and the file is filed as a duplicate.
func (fr *fileRun) edifactDuplicate(ctx context.Context) (FileResult, bool, error) {
	x := fr.edifact
	if x == nil || x.ic.Rejected() {
		return FileResult{}, false, nil
	}
	h := x.ic.Header
	seen, found, err := fr.in.j.SeenInterchange(ctx, edifactSender(h), h.Ref)
	if err != nil || !found || seen.FileID == fr.row.ID {
		return FileResult{}, false, err
	}
	orig, err := fr.in.j.File(ctx, seen.FileID)
	if err != nil {
		return FileResult{}, false, fmt.Errorf("looking up the first file of interchange %s: %w", h.Ref, err)
	}
	x.duplicate = true
	x.ic.Errors = append(x.ic.Errors, &edifact.Error{Level: edifact.LevelInterchange, Pos: 1, Tag: "UNB", Elem: 5, Code: edifact.CodeDuplicate,
		Msg: "interchange " + h.Ref + " was received before"})
	if err := fr.writeEDIFACTAck(ctx, 0); err != nil {
		return FileResult{}, false, err
	}
	why := fmt.Sprintf("EDIFACT interchange %s of %s was received before: ", h.Ref, edifactSender(h))
	res, err := fr.duplicate(ctx, orig, why)
	return res, true, err
}

// noteFailedEDIFACT records the rows of a document that did not reach the
// portal for the CONTRL (see writeReports).
func (fr *fileRun) noteFailedEDIFACT(d formats.Doc, msg string) {
	if fr.edifact == nil {
		return
	}
	col := ""
	for _, is := range d.Issues {
		if !is.Warning {
			col, msg = is.Column, is.Message
			break
		}
	}
	for _, r := range d.Rows {
		fr.edifact.failed = append(fr.edifact.failed, formats.Refusal{Row: r, Column: col, Msg: msg})
	}
}

// writeEDIFACTAck writes the CONTRL of an EDIFACT file into the route's
// ack folder, its control reference the journal's next for the partner,
// and records the interchange as received when ok documents of it are in
// the portal.
func (fr *fileRun) writeEDIFACTAck(ctx context.Context, ok int) error {
	x := fr.edifact
	if x == nil {
		return nil
	}
	in := fr.in
	h := x.ic.Header
	if h.Sender.ID == "" {
		fr.log.Warn("no CONTRL written: the UNB is unreadable, so it names no partner to acknowledge to")
		return nil
	}
	refused := x.failed
	if len(fr.problems) > 0 || fileErrors(fr.sum) > 0 {
		refused = append(refused, formats.Refusal{Msg: "the file has errors"}) // every message rejected
	}
	partner := edifactSender(h)
	ctl, err := in.j.NextControl(ctx, edifact.CounterKey(h.Sender))
	if err != nil {
		return err
	}
	ref := strconv.FormatInt(ctl, 10)
	ack, err := formats.EDIFACTAckOf(fr.src, fr.src.size, fr.opts, x.ic, refused, ref, in.now())
	if err != nil {
		return fmt.Errorf("writing the CONTRL of %s: %w", fr.row.Name, err)
	}
	dir := config.DefaultAckDir
	if fr.route != nil {
		dir = fr.route.AckDir
	}
	name := path.Join(dir, fmt.Sprintf("CONTRL_%s_%s.edi", safeName(h.Sender.ID), ref))
	if err := fr.createFile(ctx, name, func(w io.Writer) error { _, err := io.Copy(w, bytes.NewReader(ack.Data)); return err }); err != nil {
		return fmt.Errorf("writing the CONTRL of %s: %w", fr.row.Name, err)
	}
	fr.log.Info("CONTRL written", "path", name, "partner", partner, "control", ref, "verdict", ack.Verdict)
	if ok > 0 && !x.duplicate && !x.ic.Rejected() {
		return in.j.RecordInterchange(ctx, journal.Interchange{Sender: partner, Control: h.Ref, FileID: fr.row.ID, Inbox: in.cfg.Name, Name: fr.row.Name})
	}
	return nil
}
