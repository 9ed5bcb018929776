package backoff

import (
	"testing"
	"time"
)

// TestNext: Step is Initial doubled attempt times, capped by Max; Next is
// Step passed through Jitter, or Step itself without one.
func TestNext(t *testing.T) {
	sec := Backoff{Initial: time.Second, Max: time.Minute}
	inbox := Backoff{Initial: 30 * time.Second, Max: 15 * time.Minute} // the inbox defaults
	half := Backoff{Initial: 10 * time.Millisecond, Max: 100 * time.Millisecond, Jitter: func(d time.Duration) time.Duration { return d / 2 }}
	tests := []struct {
		name       string
		b          Backoff
		attempt    int
		step, next time.Duration
	}{
		{"first", sec, 0, time.Second, time.Second},
		{"doubles", sec, 3, 8 * time.Second, 8 * time.Second},
		{"capped", sec, 6, time.Minute, time.Minute},
		{"far past the cap", sec, 40, time.Minute, time.Minute},
		{"no overflow", sec, 1000, time.Minute, time.Minute},
		{"initial equals max", Backoff{Initial: time.Minute, Max: time.Minute}, 2, time.Minute, time.Minute},
		{"initial above max", Backoff{Initial: time.Hour, Max: time.Minute}, 0, time.Minute, time.Minute},
		{"inbox defaults, fifth retry", inbox, 4, 8 * time.Minute, 8 * time.Minute},
		{"inbox defaults, capped", inbox, 5, 15 * time.Minute, 15 * time.Minute},
		{"negative attempt", sec, -1, time.Minute, time.Minute},
		{"jitter, first", half, 0, 10 * time.Millisecond, 5 * time.Millisecond},
		{"jitter, doubles", half, 1, 20 * time.Millisecond, 10 * time.Millisecond},
		{"jitter, capped", half, 4, 100 * time.Millisecond, 50 * time.Millisecond},
		{"jitter, far past the cap", half, 30, 100 * time.Millisecond, 50 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.b.Step(tt.attempt); got != tt.step {
				t.Errorf("Step(%d) = %v, want %v", tt.attempt, got, tt.step)
			}
			if got := tt.b.Next(tt.attempt); got != tt.next {
				t.Errorf("Next(%d) = %v, want %v", tt.attempt, got, tt.next)
			}
		})
	}
}

func TestFullJitterBounds(t *testing.T) {
	b := Backoff{Initial: 10 * time.Millisecond, Max: 100 * time.Millisecond, Jitter: FullJitter}
	for attempt := range 40 {
		ceil := b.Step(attempt)
		for range 20 {
			if d := b.Next(attempt); d < 0 || d > ceil {
				t.Fatalf("attempt %d: %v outside [0, %v]", attempt, d, ceil)
			}
		}
	}
	if d := FullJitter(0); d != 0 {
		t.Errorf("FullJitter(0) = %v, want 0", d)
	}
}
