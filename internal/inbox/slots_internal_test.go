package inbox

import (
	"context"
	"testing"
	"time"

	"filebridge/internal/config"
)

// TestSlots: file_concurrency files of a level run at once, and a quarter
// of them (at least one) when they are big; a slot given back is free
// again; acquire gives up when the round's context ends.
func TestSlots(t *testing.T) {
	const small, big = 100, bigFile
	tests := []struct {
		fc, running  int
		sizes        []int64 // acquired in this order, all granted
		refused      int64   // a further file of this size waits
		afterRelease int     // index in sizes whose release lets refused in
	}{
		{fc: 16, sizes: []int64{big, big, big, big}, refused: big, afterRelease: 2},
		{fc: 16, sizes: []int64{big, big, big, big, small, small, small, small, small, small, small, small, small, small, small, small}, refused: small, afterRelease: 7},
		{fc: 4, sizes: []int64{big}, refused: big, afterRelease: 0},
		{fc: 4, sizes: []int64{big, small, small, small}, refused: small, afterRelease: 0},
		{fc: 1, sizes: []int64{small}, refused: big, afterRelease: 0},
		{fc: 16, running: 2, sizes: []int64{big, big}, refused: big, afterRelease: 1},
		{fc: 16, running: 2, sizes: make([]int64, 14), refused: small, afterRelease: 13},
	}
	for _, tc := range tests {
		in := &Inbox{cfg: config.Inbox{FileConcurrency: tc.fc}}
		for i := range tc.running {
			in.setRunning(int64(i+1), true)
		}
		s := in.fileSlots()
		ctx := context.Background()
		for i, size := range tc.sizes {
			if !s.acquire(ctx, size) {
				t.Fatalf("fc %d: file %d (%d bytes) refused", tc.fc, i, size)
			}
		}
		ended, cancel := context.WithCancel(ctx)
		cancel()
		if s.acquire(ended, tc.refused) {
			t.Errorf("fc %d, %d running: a file of %d bytes got a slot beyond %v", tc.fc, tc.running, tc.refused, tc.sizes)
			continue
		}
		s.release(tc.sizes[tc.afterRelease])
		waiting, stop := context.WithTimeout(ctx, 10*time.Second) // a failure timeout only: the slot is free at once
		if !s.acquire(waiting, tc.refused) {
			t.Errorf("fc %d: no slot for a file of %d bytes after a release", tc.fc, tc.refused)
		}
		stop()
	}
}
