package app

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"filebridge/internal/config"
	"filebridge/internal/inbox"
	"filebridge/internal/journal"
	"filebridge/internal/portalsim"
	"filebridge/internal/testkit"
)

// TestPruneInterval: the loop runs hourly for processed/ retention and
// default error_retention, as often as a shorter error_retention (once a
// second at most), and not at all with neither.
func TestPruneInterval(t *testing.T) {
	day := 24 * time.Hour
	tests := []struct {
		name      string
		retention config.Retention
		keep      []config.Keep
		want      time.Duration
	}{
		{"nothing to prune", 0, []config.Keep{0}, 0},
		{"processed retention", config.Retention(90 * day), []config.Keep{0}, pruneEvery},
		{"default error_retention", 0, []config.Keep{config.Keep(config.DefaultErrorRetention)}, pruneEvery},
		{"short error_retention", config.Retention(90 * day), []config.Keep{config.Keep(30 * day), config.Keep(5 * time.Second)}, 5 * time.Second},
		{"sub-second error_retention", 0, []config.Keep{config.Keep(time.Millisecond)}, time.Second},
		{"journal retention alone", 0, nil, pruneEvery},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &config.Config{}
			if tt.keep == nil {
				cfg.Journal.Retention = config.History(365 * day)
			}
			for _, k := range tt.keep {
				cfg.Inboxes = append(cfg.Inboxes, config.Inbox{Retention: tt.retention, ErrorRetention: k})
			}
			d := &Daemon{Config: cfg}
			if got := d.pruneInterval(); got != tt.want {
				t.Errorf("pruneInterval = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestPruneJournal runs the daemon's prune loop with journal.retention
// "365d" on an injected clock: at start nothing is old enough; past a
// year, a tick later, the finished file, the resolved failure and the
// export run go while the open failure stays, and the count is logged.
func TestPruneJournal(t *testing.T) {
	_, cfg, _ := yearRetention(t)
	clock, ahead := aheadClock()
	var logs bytes.Buffer // read once the loop has returned
	ctx := t.Context()
	d, err := Open(ctx, cfg, slog.New(slog.NewTextHandler(&logs, nil)), Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	if got := d.pruneInterval(); got != pruneEvery {
		t.Fatalf("pruneInterval = %s, want %s", got, pruneEvery)
	}

	j := d.Journal
	claim := func(name string, state journal.FileState) int64 {
		t.Helper()
		id, err := j.ClaimFile(ctx, journal.File{Inbox: "erp", Name: name, State: state})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	done := claim("ORDERS_1.csv", journal.FileDone)
	open := claim("ORDERS_2.csv", journal.FileFailed)
	resolved := claim("ORDERS_3.csv", journal.FileFailed)
	if _, err := j.Acknowledge(ctx, resolved, "ana", "entered by phone"); err != nil {
		t.Fatal(err)
	}
	run, err := j.StartRun(ctx, "erp-out", "stock")
	if err != nil {
		t.Fatal(err)
	}
	if err := j.FinishRun(ctx, journal.ExportRun{ID: run}); err != nil {
		t.Fatal(err)
	}
	kept := func() map[int64]bool {
		t.Helper()
		out := map[int64]bool{}
		for _, id := range []int64{done, open, resolved} {
			_, err := j.File(ctx, id)
			if err != nil && !errors.Is(err, journal.ErrNotFound) {
				t.Fatal(err)
			}
			out[id] = err == nil
		}
		return out
	}

	ticks := make(chan time.Time)
	lctx, stop := context.WithCancel(ctx)
	stopped := make(chan struct{})
	go func() { d.pruneLoop(lctx, ticks, pruneEvery); close(stopped) }()
	ticks <- time.Now() // taken once the pass at start has ended
	if got, want := kept(), map[int64]bool{done: true, open: true, resolved: true}; !reflect.DeepEqual(got, want) {
		t.Errorf("after the pass at start: kept %v, want %v", got, want)
	}
	ahead(400 * 24 * time.Hour)
	ticks <- time.Now() // prunes: a year has passed
	ticks <- time.Now() // taken once that pass has ended
	stop()
	<-stopped
	if got, want := kept(), map[int64]bool{done: false, open: true, resolved: false}; !reflect.DeepEqual(got, want) {
		t.Errorf("a year later: kept %v, want %v", got, want)
	}
	if runs, err := j.RecentRuns(ctx, "", "", 0); err != nil || len(runs) != 0 {
		t.Errorf("export runs a year later = %+v, %v; want none", runs, err)
	}
	// The pass at start prunes nothing; the passes after it (the clock
	// moves while one runs) prune the two files between them.
	var counts []int
	for line := range strings.Lines(logs.String()) {
		if strings.Contains(line, "pruned the journal's history") {
			_, after, _ := strings.Cut(line, " files=")
			n, _, _ := strings.Cut(after, " ")
			c, err := strconv.Atoi(n)
			if err != nil {
				t.Fatalf("no count of files in %q", line)
			}
			counts = append(counts, c)
		}
	}
	total := 0
	for _, c := range counts {
		total += c
	}
	if len(counts) < 3 || counts[0] != 0 || total != 2 {
		t.Errorf("files pruned as logged at each pass = %v, want 0 at start and 2 in all\n%s", counts, logs.String())
	}
}

// TestRedropAfterPrune: a file dropped again is a duplicate while its
// record is in the journal; once journal.retention pruned the record (a
// year later, the daemon restarted since) it is processed again, and each
// document the portal holds already is refused as taken, looked up by its
// key and counted as existing: none is created twice.
func TestRedropAfterPrune(t *testing.T) {
	sim, cfg, in := yearRetention(t, "max_retries = 0")
	clock, ahead := aheadClock()
	ctx := t.Context()
	var d *Daemon
	start := func() {
		t.Helper()
		var err error
		if d, err = Open(ctx, cfg, slog.New(slog.DiscardHandler), Options{Now: clock, Inbox: inbox.Options{SkipSettle: true}}); err != nil {
			t.Fatal(err)
		}
	}
	start()
	t.Cleanup(func() { _ = d.Close() })
	data, err := os.ReadFile(filepath.Join("..", "..", "samples", "A", "good", "SUPPLIERS_20260302.csv"))
	if err != nil {
		t.Fatal(err)
	}
	suppliers := strings.Count(string(data), "\n") - 1
	// drop puts the file into the inbox, runs a round and returns the
	// journal's record of it with its documents' results.
	drop := func() (journal.File, map[journal.Result]int) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(in, "SUPPLIERS.csv"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := d.RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
		fs, err := d.Journal.RecentFiles(ctx, "erp", 1)
		if err != nil || len(fs) != 1 {
			t.Fatalf("RecentFiles = %+v, %v", fs, err)
		}
		docs, err := d.Journal.Documents(ctx, fs[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		results := map[journal.Result]int{}
		for _, doc := range docs {
			results[doc.Result]++
		}
		return fs[0], results
	}

	tests := []struct {
		name    string
		prune   bool
		state   journal.FileState
		results map[journal.Result]int
	}{
		{"first drop", false, journal.FileDone, map[journal.Result]int{journal.ResultCreated: suppliers}},
		{"dropped again", false, journal.FileDuplicate, map[journal.Result]int{}},
		{"dropped again after the prune", true, journal.FileDone, map[journal.Result]int{journal.ResultExists: suppliers}},
	}
	for _, tt := range tests {
		if tt.prune {
			// A year later, a daemon started since (its portal client
			// remembers no create).
			if err := d.Close(); err != nil {
				t.Fatal(err)
			}
			start()
			ahead(400 * 24 * time.Hour)
			d.pruneJournal(ctx, pruneEvery)
			if fs, err := d.Journal.RecentFiles(ctx, "", 0); err != nil || len(fs) != 0 {
				t.Fatalf("%s: files left after the prune = %+v, %v; want none", tt.name, fs, err)
			}
		}
		f, results := drop()
		if f.State != tt.state || !reflect.DeepEqual(results, tt.results) {
			t.Errorf("%s: %s with documents %v (%s), want %s with %v", tt.name, f.State, results, f.Message, tt.state, tt.results)
		}
	}
	if n := sim.Count(portalsim.Connections, "SUP-NORDIC"); n != 1 {
		t.Errorf("SUP-NORDIC is %d times on the portal, want once", n)
	}
	if n := sim.Len(portalsim.Connections); n < suppliers {
		t.Errorf("%d connections on the portal, want at least the file's %d", n, suppliers)
	}
	// Each document of the last drop was sent once and refused as taken.
	if n := sim.RepeatedCreates(); n != suppliers {
		t.Errorf("repeatedCreates = %d, want %d (one refused create per document of the last drop)", n, suppliers)
	}
}

// yearRetention is a daemon config with one inbox "erp" (folder in under
// a new root) on a simulator, whose journal keeps a year of history.
func yearRetention(t *testing.T, portal ...string) (*portalsim.Sim, *config.Config, string) {
	t.Helper()
	sim, srv := testkit.Sim(t, portalsim.Options{Edition: portalsim.EditionA, Seed: 7})
	root := t.TempDir()
	in := filepath.Join(root, "in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := testkit.LoadConfig(t, root, srv.URL+"/api", portal, `
[[inboxes]]
name = "erp"
portal = "main"
url = "in"
`)
	cfg.Journal.Retention = config.History(365 * 24 * time.Hour)
	return sim, cfg, in
}
