package e2e

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"filebridge/internal/journal"
)

// TestGracefulShutdown sends SIGTERM to `filebridge run` while it submits
// a 300-order file to a simulator slowed down by --latency: it exits 0,
// every order whose create was sent has its final result in the journal
// (none is left "sending") and is on the portal, no order was started
// after the signal, and the file waits in processing/. The next run
// finishes it without creating any order twice.
func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	const orders = 300
	s, dir, inbox := simAndInbox(t, "A", "--preload", "50", "--latency", "100ms")
	cfg := runConfig(t, dir, s, "", inboxSpec{name: "erp", url: inbox, extra: `settle = "100ms"`})
	const name = "ORDERS_STOP_20260401.csv"
	writeAtomic(t, filepath.Join(inbox, name), ordersFile("A", "ST-", orders, 1, 50))

	p := start(t, "run", "run", "--config", cfg)
	waitFor(t, 60*time.Second, "20 orders on the portal", func() bool { return s.stats(t).Counts["sales_orders"] >= 20 })
	if code := p.stop(t, 25*time.Second); code != 0 {
		t.Fatalf("run exited with %d after SIGTERM, want 0", code)
	}
	onPortal := s.stats(t).Counts["sales_orders"]

	ctx := context.Background()
	j, err := journal.Open(ctx, filepath.Join(dir, "var", "filebridge.db"))
	if err != nil {
		t.Fatal(err)
	}
	open, err := j.OpenFiles(ctx, "erp")
	if err != nil || len(open) != 1 {
		_ = j.Close()
		t.Fatalf("open files in the journal: %+v, %v; want the file", open, err)
	}
	docs, err := j.Documents(ctx, open[0].ID)
	_ = j.Close()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[journal.Result]int{}
	for _, d := range docs {
		counts[d.Result]++
	}
	if counts[journal.ResultSending] != 0 {
		t.Errorf("%d order(s) left sending after SIGTERM: %v", counts[journal.ResultSending], counts)
	}
	if ok := counts[journal.ResultCreated] + counts[journal.ResultExists]; ok != onPortal || ok >= orders {
		t.Errorf("the journal has %d orders created, the portal %d, of %d: every create sent must be journaled, and the rest not sent", ok, onPortal, orders)
	}
	if open[0].State != journal.FileSubmitting || !has(files(t, filepath.Join(inbox, "processing")), name) {
		t.Errorf("file state %s, processing/ holds %q: want it submitting in processing/", open[0].State, files(t, filepath.Join(inbox, "processing")))
	}

	p = start(t, "run (again)", "run", "--config", cfg)
	allIn(t, 90*time.Second, filepath.Join(inbox, "processed"), []string{name})
	p.stopOK(t, "the second run")
	if got := s.onceEach(t, "sales_orders", "orderNumber"); len(got) != orders {
		t.Errorf("the portal holds %d orders, want %d", len(got), orders)
	}
}

// TestStopWhileStarting sends SIGTERM to `filebridge run` while it waits
// for its PostgreSQL journal to answer (a loopback listener that accepts
// and never speaks): the stop is what was asked for, so it exits 0 and
// says it stopped while starting, rather than exiting 3 with an error
// that sends the user to check the database. A service manager stopping
// a slow start sees a clean stop; a test stopping an instance it just
// started sees the same.
func TestStopWhileStarting(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	connected := make(chan struct{}, 1)
	go func() {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				_ = c.Close()
			}
		}()
		for {
			c, err := ln.Accept() // fails once the listener is closed
			if err != nil {
				return
			}
			conns = append(conns, c)
			select {
			case connected <- struct{}{}:
			default:
			}
		}
	}()

	s, dir, inbox := simAndInbox(t, "A")
	cfg := runConfig(t, dir, s, "", inboxSpec{name: "erp", url: inbox})
	data := readFile(t, cfg)
	url := fmt.Sprintf("postgres://filebridge@%s/filebridge?sslmode=disable", ln.Addr())
	data = strings.Replace(data, "[journal]\npath = ", fmt.Sprintf("[journal]\nurl = %q\n# path = ", url), 1)
	mustWrite(t, cfg, data)

	p := start(t, "run", "run", "--config", cfg)
	select {
	case <-connected:
	case <-p.done:
		t.Fatalf("run exited before connecting to the journal:\n%s", p.out.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("run did not connect to the journal within 30s:\n%s", p.out.String())
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		t.Fatalf("run did not stop within 20s of SIGTERM while starting:\n%s", p.out.String())
	}
	out := p.out.String()
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("run exited with %d after SIGTERM while starting, want 0:\n%s", code, out)
	}
	if !strings.Contains(out, `"msg":"filebridge stopped while starting"`) || strings.Contains(out, `"level":"ERROR"`) || strings.Contains(out, "filebridge: ") {
		t.Errorf("the output should say it stopped while starting, with no error:\n%s", out)
	}
}
