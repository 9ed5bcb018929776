package inbox

import (
	"context"
	"testing"
	"time"
)

// TestPace: the width of an inbox's claims grows from file_concurrency
// while a claim takes as long with more in flight (round trips are the
// limit), stays near file_concurrency when a claim takes longer the more
// run (a server or a machine that does them one after the other), backs
// off to file_concurrency when claims turn slow, follows a slower path
// once there, and stays 1 when one file at a time was asked for.
func TestPace(t *testing.T) {
	const rtt = 20 * time.Millisecond
	roundTrips := func(int) time.Duration { return 5 * rtt }
	queued := func(w int) time.Duration { return time.Duration(w) * 6 * time.Millisecond } // 166 claims/s whatever the width
	tests := []struct {
		name        string
		fc          int
		phases      []func(width int) time.Duration // 2,000 claims each, the last claims of the last
		claims      int
		wantAtMost  int
		wantAtLeast int
	}{
		{"round trips: grows to its cap", 16, []func(int) time.Duration{roundTrips}, 2000, 16 * maxPaceFactor, 16 * maxPaceFactor},
		{"a queue: stays near file_concurrency", 16, []func(int) time.Duration{queued}, 2000, 20, 16},
		{"slow after fast: backs off", 16, []func(int) time.Duration{roundTrips, func(int) time.Duration { return 4 * 5 * rtt }}, 500, 16, 16},
		{"a slower path: followed, grows again", 16, []func(int) time.Duration{roundTrips, func(int) time.Duration { return 3 * 5 * rtt }, func(int) time.Duration { return 3 * 5 * rtt }}, 2000, 16 * maxPaceFactor, 16 * maxPaceFactor},
		{"one at a time", 1, []func(int) time.Duration{roundTrips}, 2000, 1, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPace(tc.fc)
			for i, took := range tc.phases {
				n := 2000
				if i == len(tc.phases)-1 {
					n = tc.claims
				}
				for range n {
					if !p.acquire(t.Context(), 4) {
						t.Fatal("acquire refused")
					}
					p.release(4, took(p.Width()))
				}
			}
			if w := p.Width(); w > tc.wantAtMost || w < tc.wantAtLeast {
				t.Errorf("width %d, want %d to %d", w, tc.wantAtLeast, tc.wantAtMost)
			}
		})
	}
}

// TestPaceWaits: claims beyond the width wait for one to end; a failed
// claim (took 0) gives its place back without moving the width; acquire
// gives up when its context ends.
func TestPaceWaits(t *testing.T) {
	p := newPace(2)
	for range 2 {
		if !p.acquire(t.Context(), 4) {
			t.Fatal("a place within the width refused")
		}
	}
	ended, cancel := context.WithCancel(t.Context())
	cancel()
	if p.acquire(ended, 4) {
		t.Fatal("a third claim got a place beyond a width of 2")
	}
	got := make(chan bool)
	go func() { got <- p.acquire(t.Context(), 4) }()
	p.release(4, 0)
	if !<-got {
		t.Fatal("the waiting claim was refused after a place freed up")
	}
	if w := p.Width(); w != 2 {
		t.Errorf("width %d after a failed claim, want 2", w)
	}
}

// TestPaceQuarters: the claim of a small file takes a quarter of a place
// (eight of them at a width of 2) and any other a whole one, which waits
// until four quarters are free; at one file at a time a small file's
// claim takes a whole place too.
func TestPaceQuarters(t *testing.T) {
	p := newPace(2)
	small, whole := p.claimQuarters(smallFile-1), p.claimQuarters(smallFile)
	if small != 1 || whole != 4 || p.claimQuarters(-1) != 4 {
		t.Fatalf("quarters: small %d, whole %d, unknown %d; want 1, 4, 4", small, whole, p.claimQuarters(-1))
	}
	for i := range 8 {
		if !p.acquire(t.Context(), small) {
			t.Fatalf("small claim %d refused at a width of 2", i+1)
		}
	}
	ended, cancel := context.WithCancel(t.Context())
	cancel()
	if p.acquire(ended, small) {
		t.Fatal("a ninth small claim got a place at a width of 2")
	}
	for range 3 {
		p.release(small, 0)
	}
	if p.acquire(ended, whole) {
		t.Fatal("a whole claim got a place with three quarters free")
	}
	p.release(small, 0)
	if !p.acquire(ended, whole) {
		t.Fatal("a whole claim refused with four quarters free")
	}
	if q := newPace(1).claimQuarters(1); q != 4 {
		t.Errorf("one file at a time: a small claim takes %d quarters, want 4", q)
	}
}
