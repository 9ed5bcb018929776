package journal

import (
	"slices"
	"sync"
	"testing"
	"time"
)

// TestNextControl: two instances sharing a journal number interchanges
// of one partner 1, 2, 3... with no number given twice or skipped, each
// partner on its own counter.
func TestNextControl(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		_, dbs := handles(t, 2, time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC))
		var mu sync.Mutex
		var got []int64
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Go(func() {
				n, err := dbs[i%2].NextControl(t.Context(), "ZZ:SHOPERP")
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				got = append(got, n)
				mu.Unlock()
			})
		}
		wg.Wait()
		slices.Sort(got)
		for i, n := range got {
			if n != int64(i+1) {
				t.Fatalf("control numbers %v: want 1..20, each once", got)
			}
		}
		if n, err := dbs[1].NextControl(t.Context(), "ZZ:OTHER"); err != nil || n != 1 {
			t.Errorf("another partner's first number: %d, %v", n, err)
		}
	})
}

func TestInterchangeSeen(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		d := openTest(t)
		ctx := t.Context()
		if _, seen, err := d.SeenInterchange(ctx, "ZZ:SHOPERP", "000000101"); err != nil || seen {
			t.Fatalf("seen before recording: %v %v", seen, err)
		}
		first := Interchange{Sender: "ZZ:SHOPERP", Control: "000000101", FileID: 7, Inbox: "erp", Name: "a.x12"}
		if err := d.RecordInterchange(ctx, first); err != nil {
			t.Fatal(err)
		}
		again := first
		again.FileID, again.Name = 9, "b.x12"
		if err := d.RecordInterchange(ctx, again); err != nil {
			t.Fatal(err)
		}
		ic, seen, err := d.SeenInterchange(ctx, "ZZ:SHOPERP", "000000101")
		if err != nil || !seen || ic.FileID != 7 || ic.Name != "a.x12" {
			t.Errorf("got %+v %v %v, want the first file", ic, seen, err)
		}
		if _, seen, _ := d.SeenInterchange(ctx, "ZZ:OTHER", "000000101"); seen {
			t.Error("another sender's interchange of the same number is seen")
		}
	})
}

// TestNumberRun: the control number is recorded on the run in the
// transaction that takes it; numbering an unknown run takes none.
func TestNumberRun(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		d := openTest(t)
		ctx := t.Context()
		id, err := d.StartRun(ctx, "out", "shipments")
		if err != nil {
			t.Fatal(err)
		}
		if n, err := d.NumberRun(ctx, id+100, "x12:ZZ:SHOPERP"); err == nil {
			t.Fatalf("numbered an unknown run: %d", n)
		}
		n, err := d.NumberRun(ctx, id, "x12:ZZ:SHOPERP")
		if err != nil || n != 1 {
			t.Fatalf("NumberRun = %d, %v; want 1 (the failed call took none)", n, err)
		}
		runs, err := d.RecentRuns(ctx, "out", "shipments", 1)
		if err != nil || len(runs) != 1 || runs[0].EDIControl != 1 {
			t.Errorf("run recorded as %+v, %v", runs, err)
		}
		if n, err := d.NextControl(ctx, "x12:ZZ:SHOPERP"); err != nil || n != 2 {
			t.Errorf("the partner's next number (a 997) = %d, %v; want 2", n, err)
		}
	})
}
