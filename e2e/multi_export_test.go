package e2e

import (
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"filebridge/internal/journal"
	"filebridge/internal/journal/pgtest"
)

// exportEvery is the schedule of the exports of TestExportsOncePerTick.
const exportEvery = 2 * time.Second

// TestExportsOncePerTick runs three `filebridge run` instances with one
// config on one PostgreSQL journal, a shared local outbox and two exports
// every 2 s (stock: a file each tick; movements: a cursor over the
// simulator's stock movements, made while the test runs). The instance
// that ran the last tick is killed with SIGKILL and restarted, several
// times. At the end every tick from the first to the last has exactly one
// record in the journal, ran once (one export run per finished tick, one
// stock file each), and every stock movement of the simulator is in
// exactly one movements file.
func TestExportsOncePerTick(t *testing.T) {
	t.Parallel()
	d := newExportDrill(t, "e2e_exports", 0, exportEvery, "stock", "movements")
	db := d.db
	// The warehouse moves on all along: new stock movements to export.
	stopMoving := moveWarehouse(t, d.s)
	defer stopMoving()
	d.start(t, "n1", "n2", "n3")
	// lastDone is the newest finished stock tick.
	lastDone := func() journal.ExportRun {
		ticks, err := db.Ticks(t.Context(), "out", "stock", 5)
		if err != nil {
			t.Fatal(err)
		}
		for _, tk := range ticks {
			if tk.State == journal.RunDone {
				return tk
			}
		}
		return journal.ExportRun{}
	}
	waitFor(t, 20*time.Second, "a first stock export", func() bool { return !lastDone().Tick.IsZero() })

	// Kill the instance that ran the last tick, several times; each time
	// the next tick must run on another instance.
	var failovers []time.Duration
	for range 5 {
		victim := lastDone()
		time.Sleep(rand.N(exportEvery)) // at a random moment of the period
		killed := time.Now()
		d.procs[victim.Owner].kill()
		var next journal.ExportRun
		waitFor(t, 10*time.Second, "a tick after "+victim.Owner+" was killed", func() bool {
			next = lastDone()
			return next.Tick.After(victim.Tick) && next.FinishedAt.After(killed)
		})
		if next.Owner == victim.Owner {
			t.Fatalf("tick %s ran on %s, killed before it", next.Tick, victim.Owner)
		}
		failovers = append(failovers, next.FinishedAt.Sub(killed))
		d.start(t, victim.Owner)
	}
	t.Logf("after SIGKILL of the instance that ran the last tick, the next export finished on another instance after %v (ticks every %s)", failovers, exportEvery)

	// Stop moving the warehouse; two more ticks export what is left.
	stopMoving()
	produced := d.finish(t, 15*time.Second, 20*time.Second)
	for _, export := range []string{"stock", "movements"} {
		checkTicks(t, db, export, produced, false)
	}
	checkMovements(t, d.s, d.out, produced)
}

// exportDrill is instances of `filebridge run` sharing one config, its
// journal in a PostgreSQL cluster of the test's, exporting into the outbox
// "out" from a simulator (Edition B, 4 SKUs).
type exportDrill struct {
	cluster  *pgtest.Cluster
	s        *sim
	out, cfg string
	db       *journal.DB
	procs    map[string]*process
}

// newExportDrill starts the cluster (its database named database), the
// simulator (answering after latency when not 0), and writes the config
// of the export types, each every period; the test's own connection to
// the journal is db.
func newExportDrill(t *testing.T, database string, latency, every time.Duration, types ...string) *exportDrill {
	t.Helper()
	d := &exportDrill{cluster: pgtest.Start(t), procs: map[string]*process{}}
	url := d.cluster.Database(t, database)
	d.s = startSim(t, "B", "--preload", "4")
	if latency > 0 {
		d.s.setLatency(t, latency)
	}
	dir := t.TempDir()
	d.out = filepath.Join(dir, "out")
	d.cfg = sharedConfig(t, dir, d.s, url, d.out, every, types...)
	db, err := journal.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	d.db = db
	return d
}

// start starts `filebridge run` under each instance name.
func (d *exportDrill) start(t *testing.T, names ...string) {
	for _, n := range names {
		d.procs[n] = startEnv(t, "run "+n, []string{"FILEBRIDGE_INSTANCE=" + n}, "run", "--config", d.cfg)
	}
}

// finish waits (up to wait) for two movements ticks done after the
// warehouse stopped moving, stops every instance, each of which must exit
// 0 within stop, and returns the files in the outbox.
func (d *exportDrill) finish(t *testing.T, wait, stop time.Duration) []string {
	t.Helper()
	settled := time.Now()
	waitFor(t, wait, "two ticks after the warehouse stopped", func() bool {
		// The test's own queries fail while PostgreSQL restarts: asked again.
		ticks, err := d.db.Ticks(t.Context(), "out", "movements", 5)
		if err != nil {
			return false
		}
		n := 0
		for _, tk := range ticks {
			if tk.State == journal.RunDone && tk.Tick.After(settled) {
				n++
			}
		}
		return n >= 2
	})
	for n, p := range d.procs {
		if code := p.stop(t, stop); code != 0 {
			t.Errorf("instance %s exited with %d after SIGTERM", n, code)
		}
	}
	return files(t, d.out)
}

// moveWarehouse moves the simulator's warehouse every 200ms (new stock
// movements to export) until the returned stop is called (more than once
// is fine).
func moveWarehouse(t *testing.T, s *sim) (stop func()) {
	stopTicks := make(chan struct{})
	var ticking sync.WaitGroup
	ticking.Go(func() {
		for {
			select {
			case <-stopTicks:
				return
			case <-time.After(200 * time.Millisecond):
				if resp, err := http.Post(s.URL+"/_sim/tick", "application/json", nil); err == nil {
					_ = resp.Body.Close()
				}
			}
		}
	})
	var once sync.Once
	return func() {
		once.Do(func() { close(stopTicks) })
		ticking.Wait()
	}
}

// sharedConfig writes the run config of the other tests with its journal
// in the PostgreSQL database url, no inbox, and the outbox "out" (folder
// out) with the export types, each every period.
func sharedConfig(t *testing.T, dir string, s *sim, url, out string, every time.Duration, types ...string) string {
	t.Helper()
	cfg := runConfig(t, dir, s, "")
	text := readFile(t, cfg)
	sqlite := fmt.Sprintf("path = %q\n", filepath.Join(dir, "var", "filebridge.db"))
	if !strings.Contains(text, sqlite) {
		t.Fatalf("the run config has no journal path %s", sqlite)
	}
	text = strings.Replace(text, sqlite, fmt.Sprintf("url = %q\n", url), 1)
	text += fmt.Sprintf("\n[[outboxes]]\nname = \"out\"\nportal = \"main\"\nurl = %q\n", out)
	for _, typ := range types {
		text += fmt.Sprintf("\n  [[outboxes.exports]]\n  type = %q\n  schedule = \"@every %s\"\n  filename = \"{type}_{seq}.csv\"\n", typ, every)
	}
	mustWrite(t, cfg, text)
	return cfg
}

// TestExportRedoneAfterKill kills the instance running an export in the
// middle of the run (the portal answers after 1.5 s) with SIGKILL: one
// other instance redoes that tick, without waiting for the lease (the
// killed instance's lock is gone with its connection), at its next look
// for abandoned runs (every 10 s); the tick ends done, at attempt 2, with
// one file and one successful run.
func TestExportRedoneAfterKill(t *testing.T) {
	t.Parallel()
	d := newExportDrill(t, "e2e_redo", 1500*time.Millisecond, 20*time.Second, "stock")
	db, out := d.db, d.out
	d.start(t, "n1", "n2", "n3")
	var tick journal.ExportRun
	waitFor(t, 30*time.Second, "a stock export running", func() bool {
		var ok bool
		var err error
		tick, ok, err = db.LastTick(t.Context(), "out", "stock")
		if err != nil {
			t.Fatal(err)
		}
		return ok && tick.State == journal.RunRunning
	})
	d.procs[tick.Owner].kill()
	killed := time.Now()
	var redone journal.ExportRun
	waitFor(t, 20*time.Second, "the tick redone by another instance", func() bool {
		ticks, err := db.Ticks(t.Context(), "out", "stock", 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, tk := range ticks {
			if tk.Tick.Equal(tick.Tick) {
				redone = tk
			}
		}
		return redone.State == journal.RunDone
	})
	took := redone.FinishedAt.Sub(killed)
	t.Logf("killed %s during the run of tick %s; %s redid it, done %v after the kill (the run itself waits 1.5 s for the portal)",
		tick.Owner, tick.Tick, redone.Owner, took)
	if redone.Owner == tick.Owner || redone.Attempts != 2 || redone.FileName == "" {
		t.Errorf("redone tick = %+v; want done by another instance at attempt 2, with a file", redone)
	}
	if got := files(t, out); len(got) != 1 || got[0] != redone.FileName {
		t.Errorf("outbox holds %v, want only %s", got, redone.FileName)
	}
	runs, err := db.RecentRuns(t.Context(), "out", "stock", 0)
	if err != nil {
		t.Fatal(err)
	}
	var ok int
	for _, r := range runs {
		if !r.Running() && r.Error == "" {
			ok++
		}
	}
	if ok != 1 {
		t.Errorf("%d successful runs of the tick, want 1: %+v", ok, runs)
	}
}

// checkTicks: one record per tick from the first to the last; each
// finished tick ran once (one successful export run per done tick, with
// its file in the outbox; every stock tick has one); a tick whose instance
// was killed during the run was redone or, once a later tick ran,
// recorded as interrupted.
//
// With failedOK, a failed tick anywhere is fine (a journal that restarted
// during the run): its rows are exported by the next one.
func checkTicks(t *testing.T, db *journal.DB, export string, produced []string, failedOK bool) {
	t.Helper()
	ticks, err := db.Ticks(t.Context(), "out", export, 0)
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(ticks) // oldest first
	states := map[journal.RunState]int{}
	owners := map[string]int{}
	retries := 0
	for i, tk := range ticks {
		states[tk.State]++
		owners[tk.Owner]++
		retries += tk.Attempts - 1
		if i > 0 && !tk.Tick.Equal(ticks[i-1].Tick.Add(exportEvery)) {
			t.Errorf("%s: no tick between %s and %s: a scheduled time did not run", export, ticks[i-1].Tick, tk.Tick)
		}
		switch {
		case tk.State == journal.RunRunning,
			tk.State == journal.RunFailed && i < len(ticks)-1 && !failedOK: // the last one may be cut by the SIGTERM
			t.Errorf("%s: tick %s is %s (%s) on %s", export, tk.Tick, tk.State, tk.Message(), tk.Owner)
		case tk.FileName != "" && !slices.Contains(produced, tk.FileName):
			t.Errorf("%s: tick %s wrote %s, which is not in the outbox", export, tk.Tick, tk.FileName)
		case export == "stock" && tk.State == journal.RunDone && tk.FileName == "":
			t.Errorf("stock: tick %s wrote no file", tk.Tick)
		}
	}
	if len(ticks) < 8 {
		t.Errorf("%s: %d ticks, want at least 8", export, len(ticks))
	}
	// One history: every run of the export is the record of its tick (a
	// redo is the same record, attempted again); a run without a tick
	// would have run beside the schedule.
	runs, err := db.RecentRuns(t.Context(), "out", export, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if r.Tick.IsZero() {
			t.Errorf("%s: run %d (%s, %s) has no tick", export, r.ID, r.State, r.FileName)
		}
	}
	if len(runs) != len(ticks) {
		t.Errorf("%s: %d runs in the history for %d ticks", export, len(runs), len(ticks))
	}
	done := states[journal.RunDone]
	var files int
	for _, p := range produced {
		if strings.HasPrefix(p, export+"_") {
			files++
		}
	}
	// A run killed after its file was in place and before its tick was
	// recorded is redone (or its rows exported by the next tick): its
	// snapshot is written again, at most one more file per redone or
	// interrupted tick.
	if interrupted := states[journal.RunInterrupted]; export == "stock" && (files < done || files > done+retries+interrupted) {
		t.Errorf("stock: %d files for %d finished ticks, %d redone and %d interrupted", files, done, retries, interrupted)
	}
	t.Logf("%s: %d ticks %v, by instance %v, %d redone, %d files", export, len(ticks), states, owners, retries, files)
}

// checkMovements: every stock movement of the simulator is in exactly one
// row of the movements files.
func checkMovements(t *testing.T, s *sim, out string, produced []string) {
	t.Helper()
	var body struct {
		Members []struct {
			MovedAt  string `json:"movedAt"`
			Quantity int    `json:"quantity"`
			From     string `json:"fromPosition"`
			To       string `json:"toPosition"`
			Variant  struct {
				SKU string `json:"sku"`
			} `json:"variant"`
		} `json:"hydra:member"`
	}
	s.getJSON(t, s.Base+"/stock_movements?itemsPerPage=10000", &body, true)
	want := map[string]int{}
	for _, m := range body.Members {
		at, err := parseMovedAt(m.MovedAt)
		if err != nil {
			t.Fatal(err)
		}
		want[movementKey(at, m.Variant.SKU, m.From, m.To, fmt.Sprint(m.Quantity))]++
	}
	got := map[string]int{}
	for _, p := range produced {
		if !strings.HasPrefix(p, "movements_") {
			continue
		}
		fh, err := os.Open(filepath.Join(out, p))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(fh).ReadAll()
		_ = fh.Close()
		if err != nil || len(recs) < 2 {
			t.Fatalf("%s: %d records, %v", p, len(recs), err)
		}
		col := map[string]int{}
		for i, h := range recs[0] {
			col[h] = i
		}
		for _, r := range recs[1:] {
			at, err := parseMovedAt(r[col["movedAt"]])
			if err != nil {
				t.Fatalf("%s: movedAt %q: %v", p, r[col["movedAt"]], err)
			}
			got[movementKey(at, r[col["sku"]], r[col["fromPosition"]], r[col["toPosition"]], r[col["quantity"]])]++
		}
	}
	if len(want) == 0 {
		t.Fatal("the simulator made no stock movement")
	}
	missing, twice := 0, 0
	for k, n := range want {
		switch g := got[k]; {
		case g < n:
			missing += n - g
		case g > n:
			twice += g - n
		}
	}
	for k, g := range got {
		if want[k] == 0 {
			twice += g
		}
	}
	if missing > 0 || twice > 0 {
		t.Errorf("movements: %d of %d not exported, %d exported more than once", missing, len(body.Members), twice)
	}
	t.Logf("movements: %d exported exactly once", len(body.Members))
}

func movementKey(at time.Time, sku, from, to, qty string) string {
	return strings.Join([]string{at.UTC().Format(time.RFC3339), sku, from, to, qty}, "|")
}

// parseMovedAt reads a movement's time as the simulator lists it or the
// export writes it.
func parseMovedAt(s string) (time.Time, error) {
	var err error
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05-07:00:00", time.DateTime} {
		var t time.Time
		if t, err = time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, err
}
