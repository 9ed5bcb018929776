package inbox

import (
	"context"
	"testing"

	"filebridge/internal/config"
)

// TestSlots: file_concurrency files of a level run at once, small files
// four times as many (one at a time stays one at a time), big ones a
// quarter as many (at least one); files
// running in the background count; a slot given back is free again;
// acquire gives up when the round's context ends.
func TestSlots(t *testing.T) {
	const small, mid, big = 100, smallFile, bigFile
	n := func(k int, size int64) []int64 { // k files of size bytes
		out := make([]int64, k)
		for i := range out {
			out[i] = size
		}
		return out
	}
	tests := []struct {
		fc, running  int
		sizes        []int64 // acquired in this order, all granted
		refused      int64   // a further file of this size waits
		afterRelease int     // index in sizes whose release lets refused in
	}{
		{fc: 16, sizes: n(4, big), refused: big, afterRelease: 2},
		{fc: 16, sizes: n(64, small), refused: small, afterRelease: 63},
		{fc: 16, sizes: n(16, mid), refused: small, afterRelease: 0},
		{fc: 16, sizes: append(n(15, mid), n(4, small)...), refused: small, afterRelease: 16},
		{fc: 16, sizes: append(n(15, mid), n(1, small)...), refused: mid, afterRelease: 3},
		{fc: 4, sizes: n(1, big), refused: big, afterRelease: 0},
		{fc: 4, sizes: append(n(1, big), n(3, mid)...), refused: small, afterRelease: 0},
		{fc: 1, sizes: n(1, mid), refused: small, afterRelease: 0},
		{fc: 1, sizes: n(1, small), refused: small, afterRelease: 0}, // one file at a time, however small
		{fc: 2, sizes: n(8, small), refused: mid, afterRelease: -1},
		{fc: 16, running: 2, sizes: n(2, big), refused: big, afterRelease: 1},
		{fc: 16, running: 2, sizes: n(14, mid), refused: small, afterRelease: 13},
	}
	for _, tc := range tests {
		in := &Inbox{cfg: config.Inbox{FileConcurrency: tc.fc}, pace: newPace(tc.fc)}
		for i := range tc.running {
			in.setRunning(int64(i+1), true)
		}
		s := in.fileSlots()
		// A context already ended: acquire takes a free slot at once and
		// gives up at once when there is none, so nothing here waits.
		now, cancel := context.WithCancel(context.Background())
		cancel()
		for i, size := range tc.sizes {
			if !s.acquire(now, size) {
				t.Fatalf("fc %d: file %d (%d bytes) refused", tc.fc, i, size)
			}
		}
		if s.acquire(now, tc.refused) {
			t.Errorf("fc %d, %d running: a file of %d bytes got a slot beyond %v", tc.fc, tc.running, tc.refused, tc.sizes)
			continue
		}
		if tc.afterRelease < 0 { // every file gives its slot back
			for _, size := range tc.sizes {
				s.release(size)
			}
		} else {
			s.release(tc.sizes[tc.afterRelease])
		}
		if !s.acquire(now, tc.refused) {
			t.Errorf("fc %d: no slot for a file of %d bytes after a release", tc.fc, tc.refused)
		}
	}
}
