package outbox

import (
	"context"
	"errors"
	"iter"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"filebridge/internal/folder"
	"filebridge/internal/folderurl"
	"filebridge/internal/formats/export"
	"filebridge/internal/journal"
	"filebridge/internal/model"
)

// fakeSource serves receipts and stock from memory, honouring the
// inclusive "after" filter like the portal. Documents can be changed
// between runs; fail makes the listing fail after that many documents.
type fakeSource struct {
	mu       sync.Mutex
	inbounds []model.Inbound
	stock    []model.Stock
	fail     int // 0: never
	// timeless lists documents without their updatedAt (still filtered on
	// it), as the documents show receptions and purchase orders.
	timeless bool
	// ignoreAfter lists every document whatever the "after" filter, as a
	// portal that does not honour updatedAt[after] on a list.
	ignoreAfter bool
}

func (f *fakeSource) put(in model.Inbound) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.inbounds {
		if f.inbounds[i].OrderNumber == in.OrderNumber {
			f.inbounds[i] = in
			return
		}
	}
	f.inbounds = append(f.inbounds, in)
}

func (f *fakeSource) Receipts(_ context.Context, after time.Time) iter.Seq2[model.Inbound, error] {
	f.mu.Lock()
	docs, fail, timeless := slices.Clone(f.inbounds), f.fail, f.timeless
	if f.ignoreAfter {
		after = time.Time{}
	}
	f.mu.Unlock()
	return func(yield func(model.Inbound, error) bool) {
		n := 0
		for _, in := range docs {
			if in.UpdatedAt.Before(after) {
				continue
			}
			if n++; fail > 0 && n > fail {
				yield(model.Inbound{}, errors.New("connection reset"))
				return
			}
			if timeless {
				in.UpdatedAt = time.Time{}
			}
			if !yield(in, nil) {
				return
			}
		}
	}
}

func (f *fakeSource) Stock(context.Context) iter.Seq2[model.Stock, error] {
	return func(yield func(model.Stock, error) bool) {
		for _, s := range f.stock {
			if !yield(s, nil) {
				return
			}
		}
	}
}

func (f *fakeSource) Shipments(context.Context, time.Time) iter.Seq2[model.Shipment, error] {
	return fail[model.Shipment](errors.New("not in the fake"))
}
func (f *fakeSource) Movements(context.Context, time.Time) iter.Seq2[model.Movement, error] {
	return fail[model.Movement](errors.New("not in the fake"))
}
func (f *fakeSource) Tracking(context.Context, time.Time) iter.Seq2[model.TrackingEvent, error] {
	return fail[model.TrackingEvent](errors.New("not in the fake"))
}
func (f *fakeSource) Items(context.Context, time.Time) iter.Seq2[model.Item, error] {
	return fail[model.Item](errors.New("not in the fake"))
}

// failingJournal makes SaveCursor fail while failSave is set: the crash
// between the file's rename and the cursor commit.
type failingJournal struct {
	*journal.DB
	failSave bool
}

func (j *failingJournal) SaveCursor(ctx context.Context, c journal.Cursor) error {
	if j.failSave {
		return errors.New("disk I/O error (injected)")
	}
	return j.DB.SaveCursor(ctx, c)
}

type harness struct {
	t      *testing.T
	src    *fakeSource
	dir    string
	db     *journal.DB
	jr     *failingJournal
	runner *Runner
	now    time.Time
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	ctx := t.Context()
	h := &harness{t: t, src: &fakeSource{}, dir: t.TempDir(), now: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)}
	db, err := journal.Open(ctx, filepath.Join(t.TempDir(), "j.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f, err := folder.Open(ctx, folder.Options{Location: folderurl.Local(h.dir)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	h.db, h.jr = db, &failingJournal{DB: db}
	h.runner = &Runner{Source: h.src, Folder: f, Journal: h.jr, Now: func() time.Time { return h.now },
		Logger: slog.New(slog.DiscardHandler)}
	return h
}

func receiptJob() Job {
	return Job{Outbox: "erp", Edition: model.EditionB, Type: model.ExportReceipts, Filename: "REC_{seq}.csv"}
}

func inbound(n string, ts time.Time, lines int) model.Inbound {
	in := model.Inbound{OrderNumber: n, Status: model.Status{Code: 80}, UpdatedAt: ts}
	for i := 1; i <= lines; i++ {
		in.Lines = append(in.Lines, model.InboundLine{Position: i, SKU: "SKU" + n, Quantity: 2, QuantityReceived: 2})
	}
	return in
}

// run runs the job and returns the order numbers of the rows written.
func (h *harness) run(job Job) (Result, []string) {
	h.t.Helper()
	h.now = h.now.Add(time.Minute)
	res, err := h.runner.Run(h.t.Context(), job)
	if err != nil {
		h.t.Fatalf("run: %v", err)
	}
	return res, h.orderNumbers(res.File)
}

func (h *harness) orderNumbers(name string) []string {
	h.t.Helper()
	if name == "" {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(h.dir, name))
	if err != nil {
		h.t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n")[1:] {
		out = append(out, strings.SplitN(line, ",", 2)[0])
	}
	return out
}

func TestRunExportsOnlyWhatChanged(t *testing.T) {
	h := newHarness(t)
	t1 := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	h.src.put(inbound("A", t1, 2))
	h.src.put(inbound("B", t1, 1))
	res, got := h.run(receiptJob())
	if want := []string{"A", "A", "B"}; !slices.Equal(got, want) || res.Rows != 3 || res.File != "REC_000001.csv" {
		t.Fatalf("first run: %+v rows %v, want REC_000001.csv with %v", res, got, want)
	}
	// Nothing new: nothing written, no sequence number spent.
	if res, got := h.run(receiptJob()); res.File != "" || got != nil {
		t.Fatalf("second run wrote %+v", res)
	}
	// C arrives at the cursor's instant, B changes later: both exported.
	h.src.put(inbound("C", t1, 1))
	h.src.put(inbound("B", t1.Add(time.Second), 1))
	if res, got := h.run(receiptJob()); !slices.Equal(got, []string{"B", "C"}) || res.File != "REC_000002.csv" {
		t.Fatalf("third run: %+v %v, want B and C in REC_000002.csv", res, got)
	}
	c, ok, err := h.db.Cursor(t.Context(), "erp", "receipts")
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	// Default overlap: a minute (plus the run, instant here) before the
	// newest updatedAt (B's); every state since is kept with its time, B's
	// older state is dropped.
	if !c.At.Equal(t1.Add(time.Second-time.Minute)) ||
		!slices.Equal(c.Keys, []string{"A@2026-11-20T08:00:00Z", "B@2026-11-20T08:00:01Z", "C@2026-11-20T08:00:00Z"}) {
		t.Errorf("cursor = %s %v", c.At, c.Keys)
	}
	runs, err := h.db.RecentRuns(t.Context(), "erp", "receipts", 0)
	if err != nil || len(runs) != 3 || runs[0].FileName != "REC_000002.csv" || runs[0].Rows != 2 || runs[1].FileName != "" {
		t.Errorf("runs recorded: %+v %v", runs, err)
	}
}

// TestRunWithoutTimestamps follows documents that carry no updatedAt (the
// documents list none on receptions and orders): the cursor is the time of
// the query less the overlap, a document listed again unchanged is not
// exported again, one whose status changed (75 then 80) is.
func TestRunWithoutTimestamps(t *testing.T) {
	h := newHarness(t)
	h.src.timeless = true
	t0 := h.now
	partial := inbound("A", t0.Add(30*time.Second), 1)
	partial.Status.Code, partial.Lines[0].QuantityReceived = 75, 1
	h.src.put(partial)
	h.src.put(inbound("B", t0.Add(30*time.Second), 1))
	steps := []struct {
		change func()
		want   []string
	}{
		{nil, []string{"A", "B"}},
		{nil, nil}, // both listed again (within the overlap), unchanged
		{func() { h.src.put(inbound("A", t0.Add(2*time.Minute+10*time.Second), 1)) }, []string{"A"}},
		{nil, nil},
		{nil, nil}, // the cursor has passed every document
	}
	for i, st := range steps {
		if st.change != nil {
			st.change()
		}
		if _, got := h.run(receiptJob()); !slices.Equal(got, st.want) {
			t.Fatalf("run %d exported %v, want %v", i+1, got, st.want)
		}
	}
	c, _, err := h.db.Cursor(t.Context(), "erp", "receipts")
	if err != nil {
		t.Fatal(err)
	}
	// Run 4 listed A at 09:04: the cursor is a minute before, with A's key.
	if !c.At.Equal(t0.Add(3*time.Minute)) || len(c.Keys) != 1 || !strings.HasPrefix(c.Keys[0], "A#") {
		t.Errorf("cursor = %s %v", c.At, c.Keys)
	}
}

// TestRunFilterIgnored: a portal that ignores the "after" filter lists
// every document every run; each row is still exported once, and again
// only when it changed, with or without timestamps on the documents (the
// items export on a portal ignoring updatedAt[after] on variants
// alternated between every variant and none).
func TestRunFilterIgnored(t *testing.T) {
	for _, timeless := range []bool{true, false} {
		t.Run(map[bool]string{true: "without timestamps", false: "with timestamps"}[timeless], func(t *testing.T) {
			h := newHarness(t)
			h.src.timeless, h.src.ignoreAfter = timeless, true
			t0 := h.now
			h.src.put(inbound("A", t0.Add(-time.Hour), 1))
			h.src.put(inbound("B", t0.Add(-time.Hour), 1))
			steps := []struct {
				change func()
				want   []string
			}{
				{nil, []string{"A", "B"}},
				{nil, nil},
				{nil, nil},
				{func() {
					changed := inbound("B", h.now.Add(30*time.Second), 2)
					h.src.put(changed)
				}, []string{"B", "B"}},
				{nil, nil},
				{nil, nil},
				{nil, nil},
			}
			for i, st := range steps {
				if st.change != nil {
					st.change()
				}
				if _, got := h.run(receiptJob()); !slices.Equal(got, st.want) {
					t.Fatalf("run %d exported %v, want %v", i+1, got, st.want)
				}
				h.now = h.now.Add(time.Hour) // runs far apart: more than the overlap
			}
		})
	}
}

func TestRunWithoutOverlapKeepsOnlyTheLastInstant(t *testing.T) {
	h := newHarness(t)
	h.runner.OverlapMargin = -1
	t1 := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	h.src.put(inbound("A", t1, 1))
	h.src.put(inbound("B", t1.Add(time.Second), 1))
	h.src.put(inbound("C", t1.Add(time.Second), 1))
	h.run(receiptJob())
	c, _, err := h.db.Cursor(t.Context(), "erp", "receipts")
	if err != nil {
		t.Fatal(err)
	}
	if !c.At.Equal(t1.Add(time.Second)) || !slices.Equal(c.Keys, []string{"B", "C"}) {
		t.Errorf("cursor = %s %v, want the greatest updatedAt and the keys at it", c.At, c.Keys)
	}
}

// A document committed late carries an updatedAt older than one already
// exported: the overlap still picks it up.
func TestRunLateCommitWithinOverlap(t *testing.T) {
	h := newHarness(t)
	t1 := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	h.src.put(inbound("A", t1.Add(30*time.Second), 1))
	h.run(receiptJob())
	h.src.put(inbound("LATE", t1.Add(10*time.Second), 1))
	if _, got := h.run(receiptJob()); !slices.Equal(got, []string{"LATE"}) {
		t.Errorf("second run exported %v, want [LATE]", got)
	}
}

func TestRunCrashBeforeCursorCommit(t *testing.T) {
	h := newHarness(t)
	t1 := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	h.src.put(inbound("A", t1, 1))
	h.run(receiptJob())
	h.src.put(inbound("B", t1.Add(time.Hour), 2))
	h.src.put(inbound("C", t1.Add(time.Hour), 1))

	h.jr.failSave = true
	h.now = h.now.Add(time.Minute)
	res, err := h.runner.Run(t.Context(), receiptJob())
	if err == nil || !strings.Contains(err.Error(), "exported again") {
		t.Fatalf("run with a failing cursor save: err = %v", err)
	}
	// The file is in place all the same.
	if got := h.orderNumbers("REC_000002.csv"); !slices.Equal(got, []string{"B", "B", "C"}) {
		t.Fatalf("file of the crashed run: %v (result %+v)", got, res)
	}
	h.jr.failSave = false
	res, got := h.run(receiptJob())
	if !slices.Equal(got, []string{"B", "B", "C"}) || res.File != "REC_000003.csv" {
		t.Fatalf("run after the crash: %+v %v, want B, B, C again", res, got)
	}
	if res, _ := h.run(receiptJob()); res.File != "" {
		t.Fatalf("third run wrote %s", res.File)
	}
	runs, _ := h.db.RecentRuns(t.Context(), "erp", "receipts", 0)
	if len(runs) != 4 || runs[2].Error == "" {
		t.Errorf("the failed run is not recorded with its error: %+v", runs)
	}
}

func TestRunListingFailsMidway(t *testing.T) {
	h := newHarness(t)
	t1 := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	for _, n := range []string{"A", "B", "C"} {
		h.src.put(inbound(n, t1, 1))
	}
	h.src.fail = 2
	if _, err := h.runner.Run(t.Context(), receiptJob()); err == nil || !strings.Contains(err.Error(), "connection reset") {
		t.Fatalf("err = %v", err)
	}
	if entries, _ := os.ReadDir(h.dir); len(entries) != 0 {
		t.Fatalf("files left behind: %v", entries)
	}
	if _, ok, _ := h.db.Cursor(t.Context(), "erp", "receipts"); ok {
		t.Fatal("cursor saved after a failed run")
	}
	h.src.fail = 0
	if _, got := h.run(receiptJob()); !slices.Equal(got, []string{"A", "B", "C"}) {
		t.Fatalf("retry exported %v", got)
	}
}

func TestRunSinceLeavesCursorAlone(t *testing.T) {
	h := newHarness(t)
	t1 := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	h.src.put(inbound("A", t1, 1))
	h.src.put(inbound("B", t1.Add(time.Hour), 1))
	h.run(receiptJob())
	before, _, _ := h.db.Cursor(t.Context(), "erp", "receipts")
	res, err := h.runner.RunSince(t.Context(), receiptJob(), t1.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if got := h.orderNumbers(res.File); !slices.Equal(got, []string{"B"}) {
		t.Errorf("since run exported %v, want [B]", got)
	}
	after, _, _ := h.db.Cursor(t.Context(), "erp", "receipts")
	if !after.At.Equal(before.At) || !slices.Equal(after.Keys, before.Keys) || !after.UpdatedAt.Equal(before.UpdatedAt) {
		t.Errorf("cursor moved: %+v -> %+v", before, after)
	}
}

func TestRunEmpty(t *testing.T) {
	h := newHarness(t)
	job := receiptJob()
	if res, _ := h.run(job); res.File != "" {
		t.Fatalf("wrote %s with no rows", res.File)
	}
	job.WriteEmpty = true
	job.Filename = "EMPTY_{date}_{type}_{outbox}.csv"
	res, _ := h.run(job)
	data, err := os.ReadFile(filepath.Join(h.dir, res.File))
	if err != nil {
		t.Fatal(err)
	}
	s, err := export.For(model.ExportReceipts, model.EditionB)
	if err != nil {
		t.Fatal(err)
	}
	if res.File != "EMPTY_20261121_receipts_erp.csv" || res.Rows != 0 || string(data) != strings.Join(s.Header(), ",")+"\n" {
		t.Errorf("write_empty: %+v %q", res, data)
	}
}

func TestRunNameCollisionNeverOverwrites(t *testing.T) {
	h := newHarness(t)
	h.src.stock = []model.Stock{{SKU: "S1", Available: 3}}
	job := Job{Outbox: "erp", Edition: model.EditionA, Type: model.ExportStock, Filename: "STOCK_{date}.csv", Dir: "stock/daily"}
	paris, _ := time.LoadLocation("Europe/Paris")
	job.Location = paris
	h.now = time.Date(2026, 11, 21, 23, 30, 0, 0, time.UTC) // already the 22nd in Paris
	first, err := h.runner.Run(t.Context(), job)
	if err != nil {
		t.Fatal(err)
	}
	second, err := h.runner.Run(t.Context(), job)
	if err != nil {
		t.Fatal(err)
	}
	if first.File != "stock/daily/STOCK_20261122.csv" || second.File != "stock/daily/STOCK_20261122.1.csv" {
		t.Errorf("files %q and %q", first.File, second.File)
	}
	if _, ok, _ := h.db.Cursor(t.Context(), "erp", "stock"); ok {
		t.Error("the stock snapshot saved a cursor")
	}
}

// TestRunStoppedAtStart: a run whose context ended as it began (a stop
// right at a tick) is still recorded, and recorded as ended with the
// stop's error: never a run left "running" in the journal.
func TestRunStoppedAtStart(t *testing.T) {
	h := newHarness(t)
	h.src.put(inbound("A", time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC), 1))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := h.runner.Run(ctx, receiptJob()); !errors.Is(err, context.Canceled) {
		t.Fatalf("run under an ended context: %v, want context.Canceled", err)
	}
	runs, err := h.db.RecentRuns(t.Context(), "erp", "receipts", 0)
	if err != nil || len(runs) != 1 || runs[0].Running() || runs[0].Error == "" {
		t.Fatalf("runs recorded: %+v %v; want one, ended with the stop's error", runs, err)
	}
	if entries, _ := os.ReadDir(h.dir); len(entries) != 0 {
		t.Errorf("files left behind: %v", entries)
	}
}

// TestRunLostTickWritesNothing: a run of a tick this instance no longer
// holds (its lease ran out: another instance may run the tick now) puts
// no file in place and leaves the cursor where it was; a run of a tick it
// holds writes and moves on.
func TestRunLostTickWritesNothing(t *testing.T) {
	h := newHarness(t)
	ctx := t.Context()
	h.src.put(inbound("A", time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC), 1))
	lost, won, err := h.db.ClaimTick(ctx, "erp", "receipts", h.now)
	if !won || err != nil {
		t.Fatalf("ClaimTick = %v, %v", won, err)
	}
	if ok, err := h.db.ExpireTick(ctx, lost); !ok || err != nil {
		t.Fatalf("ExpireTick = %v, %v", ok, err)
	}
	if _, err := h.runner.Run(journal.WithTick(ctx, lost), receiptJob()); !errors.Is(err, journal.ErrTickLost) {
		t.Fatalf("run of a lost tick = %v, want ErrTickLost", err)
	}
	entries, err := os.ReadDir(h.dir)
	if err != nil || len(entries) != 0 {
		t.Fatalf("the outbox holds %v (%v) after the run of a lost tick, want nothing", entries, err)
	}
	if c, ok, err := h.db.Cursor(ctx, "erp", "receipts"); ok || err != nil {
		t.Fatalf("cursor after the run of a lost tick = %+v, %v, %v; want none", c, ok, err)
	}

	held, won, err := h.db.ClaimTick(ctx, "erp", "receipts", h.now.Add(time.Minute))
	if !won || err != nil {
		t.Fatalf("ClaimTick = %v, %v", won, err)
	}
	res, err := h.runner.Run(journal.WithTick(ctx, held), receiptJob())
	if err != nil || res.File == "" || !slices.Equal(h.orderNumbers(res.File), []string{"A"}) {
		t.Fatalf("run of an owned tick = %+v, %v; want A written", res, err)
	}
	if _, ok, err := h.db.Cursor(ctx, "erp", "receipts"); !ok || err != nil {
		t.Errorf("cursor after the run of an owned tick: %v, %v; want saved", ok, err)
	}
}
