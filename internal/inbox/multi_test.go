package inbox_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"filebridge/internal/app"
	"filebridge/internal/folder/sftptest"
	"filebridge/internal/inbox"
	"filebridge/internal/journal"
	"filebridge/internal/journal/pgtest"
	"filebridge/internal/portal"
)

// instance is one filebridge instance of a shared-journal test: its own
// journal handle (instance name, lease) and Inbox on the env's config,
// portal and folder.
type instance struct {
	j  *journal.DB
	in *inbox.Inbox
}

// sharedInstances opens n instances on one fresh PostgreSQL journal, all
// on the clock c, with the lease given.
func (e *env) sharedInstances(n int, c *clock, lease time.Duration) []instance {
	e.t.Helper()
	url := pgtest.Start(e.t).URL
	out := make([]instance, n)
	for i := range out {
		out[i] = e.sharedInstance(url, fmt.Sprintf("inst-%c", 'a'+i), c, lease, e.client)
	}
	return out
}

// sharedInstance opens one instance on the PostgreSQL journal at url, on
// its clock and with its portal client.
func (e *env) sharedInstance(url, name string, c *clock, lease time.Duration, client *portal.Client) instance {
	e.t.Helper()
	db, err := journal.OpenWith(context.Background(), journal.Options{URL: url, Instance: name, Lease: lease, Now: c.Now})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = db.Close() })
	in, err := inbox.New(e.cfg.Inboxes[0], inbox.Deps{
		Journal: db, Portal: client, Logger: testLogger(e.t).With("instance", name),
		Concurrency: e.workers, Options: e.options, Folder: e.folder(),
	})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = in.Close() })
	return instance{j: db, in: in}
}

// runAll runs one round on every instance at once, and returns how many
// rounds there were and how many files each instance processed.
func runAll(t *testing.T, insts []instance) []int {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, len(insts))
	res := make([]inbox.RoundResult, len(insts))
	for i, x := range insts {
		wg.Go(func() { res[i], errs[i] = x.in.RunOnce(context.Background()) })
	}
	wg.Wait()
	files := make([]int, len(insts))
	for i, err := range errs {
		if err != nil {
			t.Fatalf("instance %s: RunOnce: %v", insts[i].j.Instance(), err)
		}
		files[i] = len(res[i].Files)
	}
	return files
}

// skuFile is a file of one SKU.
func skuFile(i int) string { return skuHeader + skuRow(i, "SUP-A") }

// checkOnce checks that the portal has the n SKUs, none created twice,
// and that the journal has no open file.
func checkOnce(t *testing.T, e *env, j *journal.DB, n int) {
	t.Helper()
	st := e.sim.Stats()
	if st.Counts["variants"] != n || st.RepeatedCreates != 0 {
		t.Errorf("portal has %d variants (want %d), repeated creates %d (want 0)", st.Counts["variants"], n, st.RepeatedCreates)
	}
	open, err := j.OpenFiles(context.Background(), "")
	if err != nil || len(open) != 0 {
		t.Errorf("open files in the journal: %+v, %v", open, err)
	}
}

// TestSharedJournalEachFileOnce: three instances on one PostgreSQL journal
// run their rounds at the same time over one inbox (a shared local folder
// and an SFTP server): each file is claimed by exactly one of them, every
// document is created once, and every file ends in processed/ exactly
// once.
func TestSharedJournalEachFileOnce(t *testing.T) {
	for _, tc := range []struct {
		name string
		sftp bool
	}{{"local", false}, {"sftp", true}} {
		t.Run(tc.name, func(t *testing.T) {
			o := envOpts{workers: 2, inbox: "file_concurrency = 4"}
			var srv *sftptest.Server
			if tc.sftp {
				srv = sftptest.NewServer(t)
				o.sftp = srv
			}
			e := newEnv(t, o)
			c := &clock{t: fixedNow}
			insts := e.sharedInstances(3, c, 30*time.Second)
			put := func(name, content string) {
				if srv != nil {
					sftptest.WriteFile(t, srv.Client(t), "/in/"+name, []byte(content))
					return
				}
				e.drop(name, content)
			}
			put("SUPPLIERS.csv", suppliersA)
			if _, err := insts[0].in.RunOnce(context.Background()); err != nil {
				t.Fatal(err)
			}
			const n = 24
			for i := 1; i <= n; i++ {
				put(fmt.Sprintf("SKU-%02d.csv", i), skuFile(i))
			}
			// Each round of an instance claims only the files it can
			// start (file_concurrency 4): 24 files take at least two
			// rounds of three instances, and every instance gets some.
			perInstance := make([]int, len(insts))
			total, rounds := 0, 0
			for ; total < n && rounds < 20; rounds++ {
				for i, k := range runAll(t, insts) {
					perInstance[i] += k
					total += k
				}
			}
			for i, k := range perInstance {
				if k == 0 || k > 4*rounds {
					t.Errorf("instance %d processed %d files in %d rounds, want 1 to 4 a round: %v", i, k, rounds, perInstance)
				}
			}
			checkOnce(t, e, insts[0].j, n)
			var done []string
			if srv != nil {
				done = remoteFiles(t, srv, "/in/"+processed)
				if left := remoteFiles(t, srv, "/in/processing"); len(left) != 0 {
					t.Errorf("left in processing/: %v", left)
				}
			} else {
				for _, p := range e.ls(processed) {
					done = append(done, filepath.Base(p))
				}
				if left := e.ls("processing"); len(left) != 0 {
					t.Errorf("left in processing/: %v", left)
				}
			}
			files := 0
			for _, name := range done {
				if strings.HasSuffix(name, ".csv") && !strings.Contains(name, "report") {
					files++
				}
			}
			if files != n+1 {
				t.Errorf("%d files in processed/, want %d: %v", files, n+1, done)
			}
		})
	}
}

// remoteFiles lists the names of the files of a folder of the SFTP server.
func remoteFiles(t *testing.T, srv *sftptest.Server, dir string) []string {
	t.Helper()
	infos, err := srv.Client(t).ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, fi := range infos {
		if !fi.IsDir() {
			out = append(out, fi.Name())
		}
	}
	return out
}

// lease is the lease of the instances of twoInstances.
const lease = 30 * time.Second

// twoInstances is an env with instances a and b on one PostgreSQL journal
// and one clock, and the suppliers on the portal.
func twoInstances(t *testing.T) (*env, *clock, instance, instance) {
	t.Helper()
	e := newEnv(t, envOpts{workers: 1})
	c := &clock{t: fixedNow}
	insts := e.sharedInstances(2, c, lease)
	e.drop("SUPPLIERS.csv", suppliersA)
	if _, err := insts[0].in.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	return e, c, insts[0], insts[1]
}

// TestSharedJournalTakeOver: instance A dies in the middle of a file (one
// SKU created on the portal whose answer it never recorded, one sending
// that never arrived, the rest pending). B leaves the file alone while A's
// lease runs, takes it over once it ran out, looks the SKUs being sent up
// before sending them, and finishes the file: each SKU created once. A,
// should it come back, finds nothing of its own.
func TestSharedJournalTakeOver(t *testing.T) {
	ctx := context.Background()
	e, c, a, b := twoInstances(t)

	id, err := a.j.ClaimExclusive(ctx, e.skuInProcessing(6))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.j.AddDocuments(ctx, id, skuDocs(6)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.client.CreateItem(ctx, item(1, "SUP-A")); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"SKU-1", "SKU-2"} {
		if err := a.j.StartAttempt(ctx, id, k); err != nil {
			t.Fatal(err)
		}
	}

	steps := []struct {
		name     string
		after    time.Duration // clock advance before B's round
		variants int           // on the portal after it
		open     bool          // the file is still open after it
	}{
		{"A's lease runs: B leaves the file alone", lease - time.Second, 1, true},
		{"A's lease ran out: B takes the file over and finishes it", 2 * time.Second, 6, false},
	}
	for _, st := range steps {
		c.Add(st.after)
		if _, err := b.in.RunOnce(ctx); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		f, err := b.j.File(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.sim.Stats().Counts["variants"]; got != st.variants || f.State.Open() != st.open {
			t.Errorf("%s: %d variants, file %s; want %d variants, open %v", st.name, got, f.State, st.variants, st.open)
		}
	}
	if held, err := a.j.Holds(ctx, id); err != nil || held {
		t.Errorf("A still holds the file taken over: %v, %v", held, err)
	}
	if _, err := a.in.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	checkOnce(t, e, a.j, 6)
	if !e.exists(processed + "/SKU.csv") {
		t.Errorf("SKU.csv not in processed/: %v", e.ls(""))
	}
}

// TestSharedJournalStray: a file in processing/ without a journal row is
// another instance's claim between its rename and its journal row, or a
// crash's leftover. An instance records it only once it saw it so for
// longer than the lease; meanwhile the renaming instance's row wins.
func TestSharedJournalStray(t *testing.T) {
	ctx := context.Background()
	e, c, a, b := twoInstances(t)
	// A renamed STRAY.csv and LATE.csv but has not written their rows yet.
	for _, name := range []string{"STRAY.csv", "LATE.csv"} {
		i := map[string]int{"STRAY.csv": 1, "LATE.csv": 2}[name]
		e.drop("processing/"+name, skuFile(i))
	}
	for _, adv := range []time.Duration{0, lease / 2, lease / 2} {
		c.Add(adv)
		if _, err := b.in.RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
		if n := e.sim.Stats().Counts["variants"]; n != 0 || len(e.ls("processing")) != 2 {
			t.Fatalf("after %s: B took a file of processing/ seen without a row for no longer than the lease: %d variants, processing/ %v",
				adv, n, e.ls("processing"))
		}
	}
	// A writes the row of LATE.csv now: B must leave that one alone.
	late, err := a.j.ClaimExclusive(ctx, journal.File{Inbox: "erp", Name: "LATE.csv", Path: "processing/LATE.csv", DocType: "skus"})
	if err != nil {
		t.Fatal(err)
	}
	c.Add(time.Second)
	if _, err := b.in.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if !e.exists(processed+"/STRAY.csv") || !e.exists("processing/LATE.csv") {
		t.Errorf("want STRAY.csv processed by B and LATE.csv left to A: %v", e.ls(""))
	}
	if held, err := a.j.Holds(ctx, late); err != nil || !held {
		t.Errorf("A lost LATE.csv: %v, %v", held, err)
	}
	if _, err := a.in.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	checkOnce(t, e, a.j, 2)
}

// hookTransport runs hook (once) before the first request it is asked for.
type hookTransport struct {
	base http.RoundTripper
	once sync.Once
	when func(*http.Request) bool
	hook func()
}

func (h *hookTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if h.when(r) {
		h.once.Do(h.hook)
	}
	return h.base.RoundTrip(r)
}

// TestSharedJournalLostLease: instance A could not renew its lease (its
// clock, as seen by the journal, stood still while B's ran past it) and B
// takes A's file over while A sends its first document. A's create goes
// through and is journaled, but A sends nothing more, does not move the
// file and leaves the journal row to B; B finishes the file without
// creating any document twice.
func TestSharedJournalLostLease(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, envOpts{workers: 1})
	url := pgtest.Start(t).URL
	ca, cb := &clock{t: fixedNow}, &clock{t: fixedNow}
	b := e.sharedInstance(url, "inst-b", cb, lease, e.client)
	tookOver := false
	hook := &hookTransport{
		when: func(r *http.Request) bool {
			return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/variants")
		},
		hook: func() {
			cb.Add(lease + time.Second)
			open, err := b.j.OpenFiles(ctx, "erp")
			if err != nil || len(open) != 1 {
				t.Errorf("open files when A sends: %+v, %v", open, err)
				return
			}
			tookOver, err = b.j.TakeOver(ctx, open[0].ID)
			if err != nil {
				t.Error(err)
			}
		},
	}
	clientA, err := app.NewPortal(e.cfg.Portal("main"), app.PortalOptions{Transport: func(_ string, base http.RoundTripper) http.RoundTripper {
		hook.base = base
		return hook
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(clientA.Close)
	a := e.sharedInstance(url, "inst-a", ca, lease, clientA)

	e.drop("SUPPLIERS.csv", suppliersA)
	if _, err := b.in.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	e.drop("SKU.csv", skuRows(3))
	res, err := a.in.RunOnce(ctx)
	if err != nil {
		t.Fatalf("A's round: %v", err)
	}
	if !tookOver {
		t.Fatal("B could not take the file over")
	}
	if r := result(t, res, "SKU.csv"); !strings.Contains(r.Message, "taken over by another instance") {
		t.Errorf("A's result: %+v, want it taken over", r)
	}
	if n := e.sim.Stats().Counts["variants"]; n != 1 || !e.exists("processing/SKU.csv") {
		t.Errorf("after A lost the file: %d variants (want 1, the one A sent before), processing/ %v", n, e.ls("processing"))
	}
	ls, err := b.j.Leases(ctx, "erp")
	if err != nil || len(ls) != 1 || ls[0].Owner != "inst-b" {
		t.Fatalf("leases after A stopped: %+v, %v; want the file held by inst-b", ls, err)
	}
	if _, err := b.in.RunOnce(ctx); err != nil {
		t.Fatalf("B's round: %v", err)
	}
	checkOnce(t, e, b.j, 3)
	if !e.exists(processed + "/SKU.csv") {
		t.Errorf("SKU.csv not in processed/: %v", e.ls(""))
	}
}

// TestSharedJournalTemps: at start an instance on a shared journal removes
// only the temporary files nobody touched for minutes (a kill's
// leftovers), not those another instance is writing now.
func TestSharedJournalTemps(t *testing.T) {
	e := newEnv(t, envOpts{})
	c := &clock{t: fixedNow}
	temps := []struct {
		name string
		age  time.Duration
		kept bool
	}{
		{".A.csv.0123456789ab.part", time.Hour, false},
		{".B.csv.0123456789ac.part", time.Second, true},
	}
	for _, tt := range temps {
		e.drop("processing/"+tt.name, "x")
		p := filepath.Join(e.dir, "processing", tt.name)
		at := fixedNow.Add(-tt.age) // ages on the instance's clock
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	x := e.sharedInstances(1, c, 30*time.Second)[0]
	if _, err := x.in.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, tt := range temps {
		if got := e.exists("processing/" + tt.name); got != tt.kept {
			t.Errorf("%s (touched %s ago): kept %v, want %v", tt.name, tt.age, got, tt.kept)
		}
	}
}
