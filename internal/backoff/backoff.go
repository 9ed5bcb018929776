// Package backoff computes the waits between retries: capped exponential
// backoff, optionally with full jitter. It only returns durations; callers
// wait on their own clock or context.
package backoff

import (
	"math/rand/v2"
	"time"
)

// Backoff is a capped exponential backoff: the wait before retry number
// attempt+1 is Initial doubled attempt times, never more than Max.
type Backoff struct {
	Initial time.Duration
	Max     time.Duration
	// Jitter, when set, picks the actual wait from the capped step;
	// FullJitter spreads the retries of many clients. Nil: the step itself.
	Jitter func(step time.Duration) time.Duration
}

// Step is the capped wait before retry number attempt+1 (attempt counts
// from 0): min(Max, Initial*2^attempt), without jitter.
func (b Backoff) Step(attempt int) time.Duration {
	step := b.Max
	if attempt >= 0 && attempt < 63 {
		if d := b.Initial << uint(attempt); d > 0 && d>>uint(attempt) == b.Initial && d < step {
			step = d
		}
	}
	return step
}

// Next is the wait before retry number attempt+1: Step passed through
// Jitter when one is set.
func (b Backoff) Next(attempt int) time.Duration {
	step := b.Step(attempt)
	if b.Jitter != nil {
		return b.Jitter(step)
	}
	return step
}

// FullJitter is a random wait in [0, step].
func FullJitter(step time.Duration) time.Duration {
	if step <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(step) + 1))
}
