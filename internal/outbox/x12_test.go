package outbox

import (
	"os"
	"path/filepath"
	"testing"

	"filebridge/internal/edi"
	"filebridge/internal/edi/x12"
	"filebridge/internal/formats/export"
)

// TestRunX12Numbered: each x12 receipts run writes one interchange of 944
// sets numbered from the journal's counter of the receiver, 1 then 2, each
// number recorded on the run that wrote it; a run with nothing to write
// takes none.
func TestRunX12Numbered(t *testing.T) {
	h := newHarness(t)
	job := receiptJob()
	job.Filename = "944_{seq}.x12"
	job.File = export.Options{Format: export.X12, X12: &x12.Envelope{
		Sender: edi.Party{Qualifier: "ZZ", ID: "WAREHOUSE"}, Receiver: edi.Party{Qualifier: "ZZ", ID: "SHOPERP"}}}
	for i, want := range []string{"000000001", "000000002"} {
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
		ic, _, err := x12.Parse(data)
		if err != nil {
			t.Fatalf("run %d: %v\n%s", i, err, data)
		}
		if ic.Control != want || ic.Sender.ID != "WAREHOUSE" || ic.Receiver.ID != "SHOPERP" {
			t.Errorf("run %d: interchange %s from %s to %s, want %s", i, ic.Control, ic.Sender.ID, ic.Receiver.ID, want)
		}
		if job.File.X12.Control != 0 {
			t.Fatalf("the job's envelope was numbered: %d", job.File.X12.Control)
		}
		runs, err := h.db.RecentRuns(t.Context(), "erp", "receipts", 1)
		if err != nil || len(runs) != 1 || runs[0].EDIControl != int64(i+1) || runs[0].FileName != res.File {
			t.Errorf("run %d recorded as %+v (%v), want control number %d on the run that wrote %s", i, runs, err, i+1, res.File)
		}
		h.now = h.now.Add(2 * 60e9)
	}
}
