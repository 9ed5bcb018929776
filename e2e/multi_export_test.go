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
	cluster := pgtest.Start(t)
	url := cluster.Database(t, "e2e_exports")
	s := startSim(t, "B", "--preload", "4")
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	// The run config of the other tests, its journal in PostgreSQL, no
	// inbox, one outbox.
	cfg := runConfig(t, dir, s, "")
	text := readFile(t, cfg)
	sqlite := fmt.Sprintf("path = %q\n", filepath.Join(dir, "var", "filebridge.db"))
	if !strings.Contains(text, sqlite) {
		t.Fatalf("the run config has no journal path %s", sqlite)
	}
	text = strings.Replace(text, sqlite, fmt.Sprintf("url = %q\n", url), 1)
	text += fmt.Sprintf("\n[[outboxes]]\nname = \"out\"\nportal = \"main\"\nurl = %q\n", out)
	for _, typ := range []string{"stock", "movements"} {
		text += fmt.Sprintf("\n  [[outboxes.exports]]\n  type = %q\n  schedule = \"@every %s\"\n  filename = \"{type}_{seq}.csv\"\n", typ, exportEvery)
	}
	mustWrite(t, cfg, text)

	db, err := journal.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	// The warehouse moves on all along: new stock movements to export.
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
	defer func() {
		select {
		case <-stopTicks:
		default:
			close(stopTicks)
		}
		ticking.Wait()
	}()

	names := []string{"n1", "n2", "n3"}
	procs := map[string]*process{}
	run := func(name string) {
		procs[name] = startEnv(t, "run "+name, []string{"FILEBRIDGE_INSTANCE=" + name}, "run", "--config", cfg)
	}
	for _, n := range names {
		run(n)
	}
	// lastDone is the newest finished stock tick.
	lastDone := func() journal.Tick {
		ticks, err := db.Ticks(t.Context(), "out", "stock", 5)
		if err != nil {
			t.Fatal(err)
		}
		for _, tk := range ticks {
			if tk.State == journal.TickDone {
				return tk
			}
		}
		return journal.Tick{}
	}
	waitFor(t, 20*time.Second, "a first stock export", func() bool { return !lastDone().At.IsZero() })

	// Kill the instance that ran the last tick, several times; each time
	// the next tick must run on another instance.
	var failovers []time.Duration
	for range 5 {
		victim := lastDone()
		time.Sleep(rand.N(exportEvery)) // at a random moment of the period
		killed := time.Now()
		procs[victim.Owner].kill()
		var next journal.Tick
		waitFor(t, 10*time.Second, "a tick after "+victim.Owner+" was killed", func() bool {
			next = lastDone()
			return next.At.After(victim.At) && next.FinishedAt.After(killed)
		})
		if next.Owner == victim.Owner {
			t.Fatalf("tick %s ran on %s, killed before it", next.At, victim.Owner)
		}
		failovers = append(failovers, next.FinishedAt.Sub(killed))
		run(victim.Owner)
	}
	t.Logf("after SIGKILL of the instance that ran the last tick, the next export finished on another instance after %v (ticks every %s)", failovers, exportEvery)

	// Stop moving the warehouse; two more ticks export what is left.
	close(stopTicks)
	ticking.Wait()
	settled := time.Now()
	waitFor(t, 15*time.Second, "two ticks after the warehouse stopped", func() bool {
		ticks, err := db.Ticks(t.Context(), "out", "movements", 5)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, tk := range ticks {
			if tk.State == journal.TickDone && tk.At.After(settled) {
				n++
			}
		}
		return n >= 2
	})
	for _, n := range names {
		if code := procs[n].stop(t, 20*time.Second); code != 0 {
			t.Errorf("instance %s exited with %d after SIGTERM", n, code)
		}
	}

	produced := files(t, out)
	for _, export := range []string{"stock", "movements"} {
		checkTicks(t, db, export, produced)
	}
	checkMovements(t, s, out, produced)
}

// checkTicks: one record per tick from the first to the last, none
// running or failed, one export run per finished tick (none ran twice),
// and the file of each tick in the outbox (every tick of stock has one).
func checkTicks(t *testing.T, db *journal.DB, export string, produced []string) {
	t.Helper()
	ticks, err := db.Ticks(t.Context(), "out", export, 0)
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(ticks) // oldest first
	states := map[journal.TickState]int{}
	owners := map[string]int{}
	runs := 0
	for i, tk := range ticks {
		states[tk.State]++
		owners[tk.Owner]++
		runs += tk.Attempts
		if tk.State == journal.TickSkipped {
			runs--
		}
		if i > 0 && !tk.At.Equal(ticks[i-1].At.Add(exportEvery)) {
			t.Errorf("%s: no tick between %s and %s: a scheduled time did not run", export, ticks[i-1].At, tk.At)
		}
		switch {
		case tk.State == journal.TickRunning || tk.State == journal.TickFailed:
			t.Errorf("%s: tick %s is %s (%s) on %s", export, tk.At, tk.State, tk.Message, tk.Owner)
		case tk.File != "" && !slices.Contains(produced, tk.File):
			t.Errorf("%s: tick %s wrote %s, which is not in the outbox", export, tk.At, tk.File)
		case export == "stock" && tk.State == journal.TickDone && tk.File == "":
			t.Errorf("stock: tick %s wrote no file", tk.At)
		}
	}
	if len(ticks) < 8 {
		t.Errorf("%s: %d ticks, want at least 8", export, len(ticks))
	}
	done, err := db.RecentRuns(t.Context(), "out", export, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != runs {
		t.Errorf("%s: %d export runs for %d runs of %d ticks: a tick ran twice, or a run had no tick", export, len(done), runs, len(ticks))
	}
	var files int
	for _, p := range produced {
		if strings.HasPrefix(p, export+"_") {
			files++
		}
	}
	if export == "stock" && files != states[journal.TickDone] {
		t.Errorf("stock: %d files for %d finished ticks", files, states[journal.TickDone])
	}
	t.Logf("%s: %d ticks %v, by instance %v, %d files", export, len(ticks), states, owners, files)
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
