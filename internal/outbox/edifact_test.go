package outbox

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"filebridge/internal/edi/edifact"
	"filebridge/internal/formats/export"
)

// TestRunEDIFACTNumbered: each edifact receipts run writes one
// interchange of RECADV messages whose control reference is the next of
// the receiver's counter in the journal, 1 then 2, recorded on the run
// that wrote it; a run with nothing to write takes none; the job's
// envelope stays unnumbered.
func TestRunEDIFACTNumbered(t *testing.T) {
	h := newHarness(t)
	job := receiptJob()
	job.Filename = "RECADV_{seq}.edi"
	job.File = export.Options{Format: export.EDIFACT, EDIFACT: &edifact.Envelope{Release: "96A", Header: edifact.Header{
		Sender: edifact.Party{ID: "5798000000001", Qual: "14"}, Recipient: edifact.Party{ID: "5412345000013", Qual: "14"}}}}
	for i, want := range []string{"1", "2"} {
		if res, err := h.runner.Run(t.Context(), job); err != nil || res.File != "" {
			t.Fatalf("a run with nothing to export: %+v, %v", res, err)
		}
		h.now = h.now.Add(2 * 60e9)
		h.src.put(inbound("PO-"+want, h.now, 2))
		res, err := h.runner.Run(t.Context(), job)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(h.dir, res.File))
		if err != nil {
			t.Fatal(err)
		}
		var msgs []string
		ic, err := edifact.Read(bytes.NewReader(data), func(m *edifact.Message) error { msgs = append(msgs, m.ID.Type); return nil })
		if err != nil || ic.Rejected() {
			t.Fatalf("run %d: %v %v\n%s", i, err, ic.Errors, data)
		}
		if ic.Header.Ref != want || ic.Header.Sender.ID != "5798000000001" || ic.Header.Recipient.ID != "5412345000013" || len(msgs) != 1 || msgs[0] != "RECADV" {
			t.Errorf("run %d: interchange %s from %s to %s with %q, want %s", i, ic.Header.Ref, ic.Header.Sender.ID, ic.Header.Recipient.ID, msgs, want)
		}
		if job.File.EDIFACT.Header.Ref != "" {
			t.Fatalf("the job's envelope was numbered: %s", job.File.EDIFACT.Header.Ref)
		}
		runs, err := h.db.RecentRuns(t.Context(), "erp", "receipts", 1)
		if err != nil || len(runs) != 1 || runs[0].EDIControl != int64(i+1) || runs[0].FileName != res.File {
			t.Errorf("run %d recorded as %+v (%v), want control reference %d on the run that wrote %s", i, runs, err, i+1, res.File)
		}
		h.now = h.now.Add(2 * 60e9)
	}
}
