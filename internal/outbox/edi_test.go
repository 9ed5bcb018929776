package outbox

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"filebridge/internal/edi"
	"filebridge/internal/edi/edifact"
	"filebridge/internal/edi/x12"
	"filebridge/internal/formats/export"
)

// TestRunEDINumbered: each x12 or edifact receipts run writes one
// interchange (of 944 sets, of RECADV messages) whose control number is
// the next of the receiver's counter in the journal, 1 then 2, recorded on
// the run that wrote it; a run with nothing to write takes none; the job's
// envelope stays unnumbered.
func TestRunEDINumbered(t *testing.T) {
	for _, tc := range []struct {
		name     string
		filename string
		file     func() export.Options
		want     []string
		// check reads the file, or says what is wrong with it.
		check func(data []byte, want string) error
		// numbered is the control number of the job's own envelope.
		numbered func(export.Options) string
	}{{
		name:     "x12",
		filename: "944_{seq}.x12",
		file: func() export.Options {
			return export.Options{Format: export.X12, X12: &x12.Envelope{
				Sender: edi.Party{Qualifier: "ZZ", ID: "WAREHOUSE"}, Receiver: edi.Party{Qualifier: "ZZ", ID: "SHOPERP"}}}
		},
		want: []string{"000000001", "000000002"},
		check: func(data []byte, want string) error {
			ic, _, err := x12.Parse(data)
			if err != nil {
				return err
			}
			if ic.Control != want || ic.Sender.ID != "WAREHOUSE" || ic.Receiver.ID != "SHOPERP" {
				return fmt.Errorf("interchange %s from %s to %s, want %s", ic.Control, ic.Sender.ID, ic.Receiver.ID, want)
			}
			return nil
		},
		numbered: func(o export.Options) string {
			if o.X12.Control == 0 {
				return ""
			}
			return fmt.Sprint(o.X12.Control)
		},
	}, {
		name:     "edifact",
		filename: "RECADV_{seq}.edi",
		file: func() export.Options {
			return export.Options{Format: export.EDIFACT, EDIFACT: &edifact.Envelope{Release: "96A", Header: edifact.Header{
				Sender: edifact.Party{ID: "5798000000001", Qual: "14"}, Recipient: edifact.Party{ID: "5412345000013", Qual: "14"}}}}
		},
		want: []string{"1", "2"},
		check: func(data []byte, want string) error {
			var msgs []string
			ic, err := edifact.Read(bytes.NewReader(data), func(m *edifact.Message) error { msgs = append(msgs, m.ID.Type); return nil })
			if err != nil || ic.Rejected() {
				return fmt.Errorf("%v %v", err, ic.Errors)
			}
			if ic.Header.Ref != want || ic.Header.Sender.ID != "5798000000001" || ic.Header.Recipient.ID != "5412345000013" || len(msgs) != 1 || msgs[0] != "RECADV" {
				return fmt.Errorf("interchange %s from %s to %s with %q, want %s", ic.Header.Ref, ic.Header.Sender.ID, ic.Header.Recipient.ID, msgs, want)
			}
			return nil
		},
		numbered: func(o export.Options) string { return o.EDIFACT.Header.Ref },
	}} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			job := receiptJob()
			job.Filename = tc.filename
			job.File = tc.file()
			for i, want := range tc.want {
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
				if err := tc.check(data, want); err != nil {
					t.Errorf("run %d: %v\n%s", i, err, data)
				}
				if n := tc.numbered(job.File); n != "" {
					t.Fatalf("the job's envelope was numbered: %s", n)
				}
				runs, err := h.db.RecentRuns(t.Context(), "erp", "receipts", 1)
				if err != nil || len(runs) != 1 || runs[0].EDIControl != int64(i+1) || runs[0].FileName != res.File {
					t.Errorf("run %d recorded as %+v (%v), want control number %d on the run that wrote %s", i, runs, err, i+1, res.File)
				}
				h.now = h.now.Add(2 * 60e9)
			}
		})
	}
}
