package inbox_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"filebridge/internal/inbox"
	"filebridge/internal/journal"
	"filebridge/internal/portal"
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
	if err := os.MkdirAll(filepath.Join(e.dir, "processing"), 0o755); err != nil {
		t.Fatal(err)
	}
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

// TestRunSettle: with the poll an hour away, Run takes a file written in
// pieces only once two looks settle apart agree: never while the pieces
// come (each write restarts the wait), never sooner than settle after
// the last one, and from the file-system events alone.
func TestRunSettle(t *testing.T) {
	const settle = 500 * time.Millisecond
	e := newEnv(t, envOpts{settle: true, inbox: fmt.Sprintf("settle = %q\npoll = \"1h\"", settle)})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.in.Run(ctx) }()
	defer func() {
		cancel()
		<-done
	}()
	waitFor(t, func() bool { return e.exists("processing") }) // the first round ran

	const name = "SUPPLIERS_SLOW.csv"
	f, err := os.Create(filepath.Join(e.dir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := []string{"code,name,relationship\n"}
	for i := 1; i <= 8; i++ {
		rows = append(rows, fmt.Sprintf("SUP-S%d,Slow supplier %d,Manufacturer\n", i, i))
	}
	last := time.Now()
	for i, r := range rows {
		time.Sleep(settle / 10)
		if !e.exists(name) {
			if quiet := time.Since(last); quiet < settle {
				t.Fatalf("%s was claimed %s after its last write, before piece %d of %d: it was still being written", name, quiet, i+1, len(rows))
			}
			t.Skipf("the test itself stalled for more than the settle of %s between two writes", settle)
		}
		if _, err := f.WriteString(r); err != nil {
			t.Fatal(err)
		}
		last = time.Now()
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for e.exists(name) {
		time.Sleep(time.Millisecond)
		if time.Since(last) > 10*time.Second {
			t.Fatalf("%s not claimed within 10s", name)
		}
	}
	if quiet := time.Since(last); quiet < settle {
		t.Errorf("%s claimed %s after its last write, before the settle of %s", name, quiet, settle)
	}
	waitFor(t, func() bool { return e.exists(processed + "/" + name) })
	if n := e.sim.Len(portal.Connections); n != 8 {
		t.Errorf("%d suppliers on the portal, want 8", n)
	}
}
