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
					if !p.acquire(t.Context()) {
						t.Fatal("acquire refused")
					}
					p.release(took(p.Width()))
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
		if !p.acquire(t.Context()) {
			t.Fatal("a place within the width refused")
		}
	}
	ended, cancel := context.WithCancel(t.Context())
	cancel()
	if p.acquire(ended) {
		t.Fatal("a third claim got a place beyond a width of 2")
	}
	got := make(chan bool)
	go func() { got <- p.acquire(t.Context()) }()
	p.release(0)
	if !<-got {
		t.Fatal("the waiting claim was refused after a place freed up")
	}
	if w := p.Width(); w != 2 {
		t.Errorf("width %d after a failed claim, want 2", w)
	}
}
