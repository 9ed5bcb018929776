package inbox_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"filebridge/internal/folder"
	"filebridge/internal/inbox"
	"filebridge/internal/journal"
	"filebridge/internal/portalsim"
)

// TestRun: Run resumes processing/ at start, then picks a dropped file up
// from its file-system event (the poll is an hour) once it has settled,
// and stops cleanly when its context ends. Metrics count the files.
func TestRun(t *testing.T) {
	e := newEnv(t, envOpts{settle: true, inbox: "settle = \"150ms\"\npoll = \"1h\""})
	reg := prometheus.NewRegistry()
	in, err := inbox.New(e.cfg.Inboxes[0], inbox.Deps{Journal: e.j, Portal: e.client, Logger: testLogger(t),
		Health: e.health, Metrics: inbox.NewMetrics(reg), Options: inbox.Options{Now: e.clock.Now}})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	e.drop("processing/SUPPLIERS_0.csv", suppliersA)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- in.Run(ctx) }()
	waitFor(t, func() bool { return e.exists(processed + "/SUPPLIERS_0.csv") })
	e.drop("SUPPLIERS_1.csv", "code,name,relationship\nSUP-Z,Supplier Z,Manufacturer\n")
	waitFor(t, func() bool { return e.exists(processed + "/SUPPLIERS_1.csv") })
	cancel()
	waitReturn(t, done, 5*time.Second)
	states, err := e.j.FileStates(context.Background(), "erp")
	if err != nil || states[journal.FileDone] != 2 {
		t.Errorf("journal states %v %v", states, err)
	}
	if got := counter(t, reg, "filebridge_inbox_files_total", "done"); got != 2 {
		t.Errorf("files_total{result=done} = %v, want 2", got)
	}
	if got := counter(t, reg, "filebridge_inbox_documents_total", "created"); got != 3 {
		t.Errorf("documents_total{result=created} = %v, want 3", got)
	}
}

// waitFor polls cond for up to 10 s (a correctness deadline, not a
// performance one).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitReturn waits for Run to return on done, without an error, within
// the time given since the cancel.
func waitReturn(t *testing.T, done <-chan error, within time.Duration) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(within):
		t.Fatalf("Run did not return within %s of the cancel", within)
	}
}

// counter reads a counter of the registry by its result label.
func counter(t *testing.T, reg *prometheus.Registry, name, result string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "result" && l.GetValue() == result {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// gatedFolder is an inbox folder whose listings of the root wait until
// the test takes them from listed: the rounds look at the inbox only when
// the test lets them. A round's listing of processing/ gives a token to
// rounds (when there is room).
type gatedFolder struct {
	folder.Folder
	listed chan struct{}
	rounds chan struct{}
}

func (g gatedFolder) List(ctx context.Context, dir string) ([]folder.Entry, error) {
	if dir == "processing" {
		select {
		case g.rounds <- struct{}{}:
		default:
		}
	}
	if dir == "." {
		select {
		case g.listed <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return g.Folder.List(ctx, dir)
}

// TestRunSettle: with the poll an hour away and the inbox's clock moved
// only by the test, Run takes a file written in pieces only once two
// looks settle apart agree: never while the pieces come (each write
// restarts the wait; they span four times settle), not a moment before
// settle after the last one, and at settle, from the file-system events
// alone.
func TestRunSettle(t *testing.T) {
	const settle = 50 * time.Millisecond
	e := newEnv(t, envOpts{settle: true, stopped: true, inbox: fmt.Sprintf("settle = %q\npoll = \"1h\"", settle)})
	listed, rounds := make(chan struct{}), make(chan struct{}, 2)
	in := e.newInbox(e.client, func(ctx context.Context) (folder.Folder, error) {
		f, err := folder.Open(ctx, e.folder())
		if err != nil {
			return nil, err
		}
		return gatedFolder{f, listed, rounds}, nil
	})
	// look lets n listings of the root go, one after the other (once the
	// second of two has started, the round of the first is over); false
	// when one does not come within 10s.
	look := func(n int) bool {
		for range n {
			select {
			case <-listed:
			case <-time.After(10 * time.Second):
				return false
			}
		}
		return true
	}
	const name = "SUPPLIERS_SLOW.csv"
	// waiting lets a round look at the file and checks it is still in the
	// inbox. A round that claims it lists no more: the next is a poll away.
	waiting := func(when string) {
		t.Helper()
		if listed := look(2); !e.exists(name) {
			t.Fatalf("%s was claimed %s", name, when)
		} else if !listed {
			t.Fatal("Run did not list its folder within 10s")
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- in.Run(ctx) }()
	defer func() {
		cancel()
		<-done
	}()
	// The first open lists the root and processing/ (temporary files
	// removed); the first round takes that listing of the root and lists
	// processing/ again, once the watcher runs.
	if !look(1) {
		t.Fatal("Run did not list its folder within 10s")
	}
	for range 2 {
		select {
		case <-rounds:
		case <-time.After(10 * time.Second):
			t.Fatal("Run's first round did not start within 10s")
		}
	}
	f, err := os.Create(filepath.Join(e.dir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := []string{"code,name,relationship\n"}
	for i := 1; i <= 8; i++ {
		rows = append(rows, fmt.Sprintf("SUP-S%d,Slow supplier %d,Manufacturer\n", i, i))
	}
	for i, r := range rows {
		if i > 0 {
			e.clock.Add(settle / 2)
		}
		if _, err := f.WriteString(r); err != nil {
			t.Fatal(err)
		}
		waiting(fmt.Sprintf("after piece %d of %d: it was still being written", i+1, len(rows)))
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	e.clock.Add(settle - time.Millisecond)
	waiting(fmt.Sprintf("%s after its last write, before the settle of %s", settle-time.Millisecond, settle))
	e.clock.Add(time.Millisecond)
	go func() { // the rounds go on freely: the next claims the file
		for {
			select {
			case <-listed:
			case <-ctx.Done():
				return
			}
		}
	}()
	waitFor(t, func() bool { return e.exists(processed + "/" + name) })
	if n := e.sim.Len(portalsim.Connections); n != 8 {
		t.Errorf("%d suppliers on the portal, want 8", n)
	}
}
