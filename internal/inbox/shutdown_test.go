package inbox_test

import (
	"context"
	"testing"
	"time"

	"filebridge/internal/journal"
	"filebridge/internal/portal"
	"filebridge/internal/portalsim"
)

// TestGracefulStop cancels Run in the middle of a file submitted to a
// slow portal. With a grace period long enough, every document whose
// create was sent has its final result in the journal (none is left
// "sending") and exists on the portal, no document is started after the
// cancel, and the file waits in processing/ (state submitting). With a
// grace period shorter than a request, Run still returns at once and the
// cancelled documents stay "sending". Either way the next round finishes
// the file and every supplier exists exactly once.
func TestGracefulStop(t *testing.T) {
	const n = 60
	tests := []struct {
		name    string
		latency time.Duration
		grace   time.Duration
		expired bool // the grace period ends before the requests in flight
	}{
		{"requests in flight finish", 150 * time.Millisecond, 10 * time.Second, false},
		{"grace period expired", 3 * time.Second, 100 * time.Millisecond, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOpts{workers: 4, sim: portalsim.Options{Latency: tt.latency}})
			e.drop("SUPPLIERS.csv", suppliersFile("SUP-", n))
			e.options.Grace = tt.grace
			in := e.newInbox(e.client, nil)

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- in.Run(ctx) }()
			bg := context.Background()
			var fileID int64
			waitFor(t, func() bool {
				open, err := e.j.OpenFiles(bg, "erp")
				if err != nil || len(open) != 1 {
					return false
				}
				fileID = open[0].ID
				docs, err := e.j.Documents(bg, fileID)
				return err == nil && countResults(docs)[journal.ResultSending] > 0 &&
					(tt.expired || e.sim.Len(portalsim.Connections) >= 4)
			})
			cancel()
			stopped := time.Now()
			waitReturn(t, done, 10*time.Second)
			if tt.expired && time.Since(stopped) > tt.latency {
				t.Errorf("Run returned %s after the cancel, after the requests in flight; the grace period was %s", time.Since(stopped), tt.grace)
			}

			docs, err := e.j.Documents(bg, fileID)
			if err != nil {
				t.Fatal(err)
			}
			counts := countResults(docs)
			ok := counts[journal.ResultCreated] + counts[journal.ResultExists]
			switch {
			case tt.expired && counts[journal.ResultSending] == 0:
				t.Errorf("no document left sending after the grace period expired: %v", counts)
			case !tt.expired && counts[journal.ResultSending] != 0:
				t.Errorf("%d document(s) left sending after a graceful stop: %v", counts[journal.ResultSending], counts)
			}
			if !tt.expired && ok != e.sim.Len(portalsim.Connections) {
				t.Errorf("the journal has %d documents created, the portal %d: every create sent must be journaled", ok, e.sim.Len(portalsim.Connections))
			}
			if ok+counts[journal.ResultSending] >= n {
				t.Errorf("every document was sent although Run was cancelled mid-file: %v", counts)
			}
			if !e.exists("processing/SUPPLIERS.csv") {
				t.Errorf("the file is not waiting in processing/: %v", e.ls("."))
			}
			row, err := e.j.File(bg, fileID)
			if err != nil || row.State != journal.FileSubmitting {
				t.Errorf("file state %q (%v), want %q", row.State, err, journal.FileSubmitting)
			}

			// The next start finishes the file without creating anything twice.
			e.sim.SetFaults(0, 0, 0, 0)
			rr, err := e.newInbox(e.client, nil).RunOnce(bg)
			if err != nil {
				t.Fatalf("resuming: %v", err)
			}
			if r := result(t, rr, "SUPPLIERS.csv"); r.State != journal.FileDone || r.DocsOK != n {
				t.Fatalf("resumed file: state %s, %d ok: %s", r.State, r.DocsOK, r.Message)
			}
			e.onceEach(portal.Connections, "SUP-", n)
		})
	}
}

// countResults counts documents by result.
func countResults(docs []journal.Document) map[journal.Result]int {
	m := map[journal.Result]int{}
	for _, d := range docs {
		m[d.Result]++
	}
	return m
}
