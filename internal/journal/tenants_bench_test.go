package journal

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkTenantFiles reads what a round and /healthz read of one inbox
// (its open files, its counts by state) from a journal of 1,000 inboxes
// holding 20 files each, two of them open.
func BenchmarkTenantFiles(b *testing.B) {
	d := openTest(b)
	ctx := b.Context()
	at := formatTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	err := d.write(ctx, func(tx *txn) error {
		for i := range 20000 {
			state := FileDone
			if i < 2000 { // two open files an inbox
				state = FileClaimed
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO files (inbox, name, state, claimed_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
				fmt.Sprintf("t%04d", i%1000), fmt.Sprintf("SUPPLIERS_%05d.csv", i), state, at, at); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		open, err := d.OpenFiles(ctx, "t0500")
		if err != nil || len(open) != 2 {
			b.Fatalf("%d open files, %v", len(open), err)
		}
		states, err := d.FileStates(ctx, "t0500")
		if err != nil || states[FileDone] != 18 {
			b.Fatalf("states %v, %v", states, err)
		}
	}
}
