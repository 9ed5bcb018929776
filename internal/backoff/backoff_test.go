package backoff

import (
	"testing"
	"time"
)

func TestStep(t *testing.T) {
	tests := []struct {
		name    string
		b       Backoff
		attempt int
		want    time.Duration
	}{
		{"first", Backoff{Initial: time.Second, Max: time.Minute}, 0, time.Second},
		{"doubles", Backoff{Initial: time.Second, Max: time.Minute}, 3, 8 * time.Second},
		{"capped", Backoff{Initial: time.Second, Max: time.Minute}, 6, time.Minute},
		{"far past the cap", Backoff{Initial: time.Second, Max: time.Minute}, 40, time.Minute},
		{"no overflow", Backoff{Initial: time.Second, Max: time.Minute}, 1000, time.Minute},
		{"initial equals max", Backoff{Initial: time.Minute, Max: time.Minute}, 2, time.Minute},
		{"initial above max", Backoff{Initial: time.Hour, Max: time.Minute}, 0, time.Minute},
		{"inbox defaults, fifth retry", Backoff{Initial: 30 * time.Second, Max: 15 * time.Minute}, 4, 8 * time.Minute},
		{"inbox defaults, capped", Backoff{Initial: 30 * time.Second, Max: 15 * time.Minute}, 5, 15 * time.Minute},
		{"negative attempt", Backoff{Initial: time.Second, Max: time.Minute}, -1, time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.b.Step(tt.attempt); got != tt.want {
				t.Errorf("Step(%d) = %v, want %v", tt.attempt, got, tt.want)
			}
			if got := tt.b.Next(tt.attempt); got != tt.want {
				t.Errorf("Next(%d) without jitter = %v, want %v", tt.attempt, got, tt.want)
			}
		})
	}
}

func TestNextJitter(t *testing.T) {
	half := func(d time.Duration) time.Duration { return d / 2 }
	b := Backoff{Initial: 10 * time.Millisecond, Max: 100 * time.Millisecond, Jitter: half}
	tests := []struct {
		attempt int
		want    time.Duration
	}{
		{0, 5 * time.Millisecond},
		{1, 10 * time.Millisecond},
		{4, 50 * time.Millisecond},
		{30, 50 * time.Millisecond},
	}
	for _, tt := range tests {
		if got := b.Next(tt.attempt); got != tt.want {
			t.Errorf("Next(%d) = %v, want %v", tt.attempt, got, tt.want)
		}
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
