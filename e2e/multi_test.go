package e2e

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx", to read the shared journal

	"filebridge/internal/folder/sftptest"
	"filebridge/internal/journal"
	"filebridge/internal/journal/pgtest"
)

// multiDrill is a set of `filebridge run` instances with one config: one
// PostgreSQL journal, one OpenSSH sshd inbox, one simulator.
type multiDrill struct {
	t      *testing.T
	cfg    string // config file every instance runs with
	inbox  string // the inbox folder on the server's disk
	sim    *sim
	db     *sql.DB // the shared journal, for the test's own queries
	url    string  // the shared journal's database
	lease  time.Duration
	poll   time.Duration
	starts int // instances started so far, for their names
}

// newMultiDrill starts PostgreSQL, sshd and the simulator (master data
// preloaded, so that orders never wait for it) and writes the config of
// the instances: journal lease and inbox poll short, so that a killed
// instance's files are taken over within seconds. more is appended to the
// config: the hook for the exports every instance schedules ([[outboxes]]
// tables), whose runs a drill can then count.
func newMultiDrill(t *testing.T, lease, poll time.Duration, more string) *multiDrill {
	t.Helper()
	pg := pgtest.Start(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "srv")
	inbox := mkdir(t, root, "in")
	sshd := sftptest.StartSSHD(t, root)
	key := filepath.Join(dir, "id_ed25519")
	mustWrite(t, key, string(sshd.ClientKey))
	s := startSim(t, "A", "--preload", "50", "--latency", "300ms")
	extra := fmt.Sprintf("private_key_file = %q\nknown_hosts = %q\npoll = %q\nsettle = \"200ms\"\nfile_concurrency = 2",
		key, sshd.KnownHostsFile, poll)
	cfg := runConfig(t, dir, s, "", inboxSpec{name: "erp", url: sshd.URL(inbox), extra: extra})
	data := readFile(t, cfg)
	data = strings.Replace(data, "[journal]\n", fmt.Sprintf("[journal]\nurl = %q\nlease = %q\n", pg.URL, lease), 1)
	mustWrite(t, cfg, data+more)
	db, err := sql.Open("pgx", pg.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return &multiDrill{t: t, cfg: cfg, inbox: inbox, sim: s, db: db, url: pg.URL, lease: lease, poll: poll}
}

// startInstance starts one more `filebridge run` with the drill's config.
// It is the hook for what else the instances are to run (exports: give
// the config its outboxes before the first start).
func (d *multiDrill) startInstance() *process {
	d.starts++
	return start(d.t, fmt.Sprintf("run #%d", d.starts), "run", "--config", d.cfg)
}

// heldBy lists the open files of the journal whose lease the process with
// this pid holds (an instance is named host-PID-random). It may run in
// another goroutine than the test's: a failed query is an error, and
// lists nothing.
func (d *multiDrill) heldBy(pid int) []int64 {
	rows, err := d.db.Query(`SELECT id FROM files WHERE state IN ('claimed', 'submitting') AND owner LIKE $1`,
		"%-"+strconv.Itoa(pid)+"-%")
	if err != nil {
		d.t.Errorf("reading the journal: %v", err)
		return nil
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			d.t.Errorf("reading the journal: %v", err)
			return nil
		}
		ids = append(ids, id)
	}
	return ids
}

// openCount counts the journal's open files among ids (all when nil); a
// failed query is an error, and counts none.
func (d *multiDrill) openCount(ids []int64) int {
	var n int
	q := `SELECT count(*) FROM files WHERE state IN ('claimed', 'submitting')`
	if ids != nil {
		parts := make([]string, len(ids))
		for i, id := range ids {
			parts[i] = strconv.FormatInt(id, 10)
		}
		q += " AND id IN (" + strings.Join(parts, ",") + ")"
	}
	if err := d.db.QueryRow(q).Scan(&n); err != nil {
		d.t.Errorf("reading the journal: %v", err)
		return 0
	}
	return n
}

// spread is the minimum, median and maximum of ds, for the log.
func spread(ds []time.Duration) string {
	if len(ds) == 0 {
		return "none"
	}
	ds = slices.Sorted(slices.Values(ds))
	r := func(d time.Duration) time.Duration { return d.Round(10 * time.Millisecond) }
	return fmt.Sprintf("min %s, median %s, max %s", r(ds[0]), r(ds[len(ds)/2]), r(ds[len(ds)-1]))
}

// TestMultiInstanceDrill runs 3 instances of `filebridge run` on one
// PostgreSQL journal and one OpenSSH sshd inbox of order files (one order
// each), kills one with SIGKILL at random (seeded) moments and restarts
// it, until every file is through. Every order then exists exactly once
// on the simulator (no create refused as a repeat), every file is in
// processed/, none in the inbox root or processing/, and the journal has
// no open file. For each kill of an instance holding files, the failover
// times (the kill until its files are taken over by another instance, and
// until they are finished) are measured and logged; the takeover must come
// within the lease plus a poll (and some slack). The lease is 3s and the poll 1s; the
// simulator answers after 300ms, so that kills land in files being
// submitted. Every instance also schedules a stock export every 2 s: each
// tick from the first to the last has one record and ran once
// (checkTicks), whichever instances were killed meanwhile.
//
// 500 files (about 40s on 2 cores); E2E_DRILL_FILES sets another size,
// E2E_DRILL_SEED the seed of the kills (logged).
func TestMultiInstanceDrill(t *testing.T) {
	nFiles := 500
	if v := os.Getenv("E2E_DRILL_FILES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("E2E_DRILL_FILES=%q: want a number of files", v)
		}
		nFiles = n
	}
	const instances = 3
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("E2E_DRILL_SEED"); v != "" {
		seed, _ = strconv.ParseUint(v, 10, 64)
	}
	t.Logf("drill seed %d (E2E_DRILL_SEED=%d repeats it)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 13))
	begin := time.Now()

	// Every instance schedules a stock export every exportEvery into one
	// local outbox; each tick must run on exactly one of them.
	out := filepath.Join(t.TempDir(), "out")
	d := newMultiDrill(t, 3*time.Second, time.Second, fmt.Sprintf(
		"\n[[outboxes]]\nname = \"out\"\nportal = \"main\"\nurl = %q\n\n  [[outboxes.exports]]\n  type = \"stock\"\n  schedule = \"@every %s\"\n  filename = \"{type}_{seq}.csv\"\n",
		out, exportEvery))
	names := make([]string, nFiles)
	for i := range names {
		names[i] = fmt.Sprintf("ORDERS_MULTI_%04d.csv", i)
		writeAtomic(t, filepath.Join(d.inbox, names[i]), ordersFile("A", fmt.Sprintf("MI%04d-", i), 1, 1, 50))
	}
	procs := make([]*process, instances)
	for i := range procs {
		procs[i] = d.startInstance()
	}
	// The kills below read the journal: wait for the first instance to
	// have made its tables (slow on a loaded machine).
	waitFor(t, 60*time.Second, "the journal's tables", func() bool {
		var made bool
		return d.db.QueryRow(`SELECT to_regclass('files') IS NOT NULL`).Scan(&made) == nil && made
	})

	// Kill an instance every 0.5-2 s, restart it at once, and
	// time the takeover of the files it held.
	type failover struct {
		files           int
		taken, finished time.Duration // after the kill
	}
	var (
		mu        sync.Mutex
		failovers []failover
		measuring sync.WaitGroup
	)
	processed := filepath.Join(d.inbox, "processed")
	through := func() bool {
		done := baseNames(files(t, processed))
		for _, n := range names {
			if !slices.Contains(done, n) {
				return false
			}
		}
		return true
	}
	deadline := time.Now().Add(150 * time.Second)
	kills := 0
	for !through() && time.Now().Before(deadline) {
		time.Sleep(time.Duration(500+rng.IntN(1500)) * time.Millisecond)
		if through() {
			break
		}
		k := rng.IntN(instances)
		p := procs[k]
		p.kill()
		killed := time.Now()
		kills++
		pid := p.cmd.Process.Pid
		held := d.heldBy(pid)
		procs[k] = d.startInstance()
		if len(held) == 0 {
			continue
		}
		measuring.Go(func() {
			f := failover{files: len(held)}
			for f.finished == 0 {
				if time.Since(killed) > 60*time.Second {
					return // the final checks report it
				}
				time.Sleep(50 * time.Millisecond)
				if f.taken == 0 && len(d.heldBy(pid)) == 0 {
					f.taken = time.Since(killed)
				}
				if f.taken != 0 && d.openCount(held) == 0 {
					f.finished = time.Since(killed)
				}
			}
			mu.Lock()
			failovers = append(failovers, f)
			mu.Unlock()
		})
	}
	waitFor(t, 90*time.Second, "every file in processed/", through)
	measuring.Wait()

	if n := d.openCount(nil); n != 0 {
		t.Errorf("the journal has %d open file(s), want 0", n)
	}
	var left []string
	for _, f := range files(t, d.inbox) {
		if !strings.HasPrefix(f, "processed/") && !strings.HasPrefix(f, "error/") {
			left = append(left, f)
		}
	}
	if len(left) > 0 {
		t.Errorf("files not in processed/ or error/: %q", left)
	}
	d.sim.ordersOnce(d.t, nFiles)

	for i, p := range procs {
		p.stopOK(t, fmt.Sprintf("instance %d", i))
	}
	jdb, err := journal.Open(t.Context(), d.url)
	if err != nil {
		t.Fatal(err)
	}
	defer jdb.Close()
	checkTicks(t, jdb, "stock", files(t, out), false)

	var taken, finished []time.Duration
	held := 0
	for _, f := range failovers {
		taken, finished = append(taken, f.taken), append(finished, f.finished)
		held += f.files
	}
	t.Logf("failover, lease %s, poll %s, over %d kills of instances holding files (%d files): kill to the files taken over by another instance: %s; kill to the files finished: %s",
		d.lease, d.poll, len(failovers), held, spread(taken), spread(finished))
	// Finishing may take longer: the instance that took a file over may be
	// killed in turn.
	if limit := d.lease + d.poll + 5*time.Second; len(taken) > 0 && slices.Max(taken) > limit {
		t.Errorf("a takeover took %s, want within the lease plus a poll (%s) and %s of slack", slices.Max(taken), d.lease+d.poll, 5*time.Second)
	}
	t.Logf("drill: %d instances, %d files of one order, %d kills, %s in all", instances, nFiles, kills, time.Since(begin).Round(time.Second))
}

// TestMultiInstanceCleanStop: an instance stopped with SIGTERM in the
// middle of a file hands the file back when its work in flight is done,
// so that another instance resumes it at its next poll, well before the
// 30s lease would have run out; every order is created once.
func TestMultiInstanceCleanStop(t *testing.T) {
	const lease = 30 * time.Second
	d := newMultiDrill(t, lease, time.Second, "")
	const orders = 150
	writeAtomic(t, filepath.Join(d.inbox, "ORDERS_STOP.csv"), ordersFile("A", "ST-", orders, 1, 50))
	first := d.startInstance()
	waitFor(t, 30*time.Second, "the first instance submitting the file", func() bool {
		var n int
		err := d.db.QueryRow(`SELECT count(*) FROM documents WHERE result = 'created'`).Scan(&n)
		return err == nil && n > 0
	})
	if code := first.stop(t, 25*time.Second); code != 0 {
		t.Fatalf("the first instance exited with %d after SIGTERM", code)
	}
	if d.openCount(nil) != 1 {
		t.Fatalf("the file is not left open in the journal by the stop (it finished within the grace period?): raise the orders")
	}
	stopped := time.Now()
	second := d.startInstance()
	waitFor(t, lease/2, "the second instance finishing the file", func() bool { return d.openCount(nil) == 0 })
	took := time.Since(stopped)
	t.Logf("a file handed back at a clean stop was taken over and finished %s after the stop (lease %s)", took.Round(10*time.Millisecond), lease)
	if code := second.stop(t, 25*time.Second); code != 0 {
		t.Errorf("the second instance exited with %d after SIGTERM", code)
	}
	d.sim.ordersOnce(d.t, orders)
}
